#pragma once
// Internal to read_msh (msh_reader.cpp): the body of a Gmsh MSH 2.2 ASCII file.

#include "mesh/msh_lines.hpp"
#include "mesh/msh_model.hpp"

namespace quilt::msh {

/// Reads the sections after $MeshFormat of an MSH 2.2 file: $PhysicalNames, $Nodes (in file
/// order) and $Elements; other sections are skipped.
MshModel read_msh2_sections(MshLines& in);

}  // namespace quilt::msh
