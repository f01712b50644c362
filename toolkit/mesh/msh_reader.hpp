#pragma once
#include <istream>
#include <string>

#include "mesh/coarse_mesh.hpp"

namespace quilt {

/// Reads a Gmsh MSH 2.2 or 4.1 ASCII file (gmsh -format msh22 / -format msh41, the version
/// named in $MeshFormat): $MeshFormat, $PhysicalNames, $Nodes, $Elements and, for 4.1,
/// $Entities. Quadrilaterals (type 3) become macros, lines (type 1) with a named physical line
/// tag (4.1: the tag of their curve entity) become boundary edges of that part, points (type 15)
/// are ignored; any other element type, a binary file, another version or 4.1 parametric nodes
/// is a MeshError naming the file and line. Vertices are renumbered densely, in file order
/// (2.2) or ascending node tag order (4.1). Calls build_topology().
CoarseMesh read_msh(const std::string& path);

/// read_msh of text already open as a stream; `name` stands for the file in messages. The fuzzer
/// (fuzz/fuzz_msh.cpp) reads its inputs from memory this way, without a file per input.
CoarseMesh read_msh(std::istream& in, const std::string& name);

}  // namespace quilt
