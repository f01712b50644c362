#pragma once
// Internal to read_msh (msh_reader.cpp): the body of a Gmsh MSH 4.1 ASCII file.

#include "mesh/msh_lines.hpp"
#include "mesh/msh_model.hpp"

namespace quilt::msh {

/// Reads the sections after $MeshFormat of an MSH 4.1 file: $PhysicalNames, $Entities (the
/// physical tags of every point, curve, surface and volume), $Nodes and $Elements in entity
/// blocks; other sections are skipped. Nodes are numbered in ascending tag order (4.1 groups
/// them by entity, so file order is no property of the mesh). A line element gets the physical
/// tags of its curve: none (a line in no group), or one record per tag, as gmsh writes a line
/// of several groups in MSH 2.2.
MshModel read_msh4_sections(MshLines& in);

}  // namespace quilt::msh
