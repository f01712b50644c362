#pragma once
#include <string>

#include "mesh/coarse_mesh.hpp"

namespace quilt {

/// Reads a Gmsh MSH 2.2 ASCII file (gmsh -format msh22): $MeshFormat, $PhysicalNames, $Nodes,
/// $Elements. Quadrilaterals (type 3) become macros, lines (type 1) with a named physical tag
/// become boundary edges, points (type 15) are ignored; any other element type, a binary file or
/// another version is a MeshError naming the file and line. Vertices are renumbered densely in
/// file order. Calls build_topology().
CoarseMesh read_msh(const std::string& path);

}  // namespace quilt
