#pragma once
#include <vector>

#include "mesh/coarse_mesh.hpp"

namespace quilt {

/// Rank of every macro: METIS_PartGraphKway on the macro dual graph (macros adjacent through an
/// edge), deterministic; 1 <= ranks <= macros, every rank gets at least one macro. ranks == 1
/// and ranks == macros are handled without METIS. Throws MeshError for an impossible count.
std::vector<int> partition_macros(const CoarseMesh& mesh, int ranks);

}  // namespace quilt
