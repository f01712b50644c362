// libFuzzer harness of the Gmsh MSH reader (toolkit/mesh/msh_reader.hpp): every input is a
// candidate .msh file, MSH 2.2 or 4.1 as its $MeshFormat says. The reader promises that a file it
// cannot use is a MeshError naming the file; any other exception, a crash, a sanitizer report, a
// hang, or an accepted mesh that breaks build_topology()'s guarantees is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "mesh/coarse_mesh.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"

namespace {

constexpr const char* kName = "fuzz.msh";

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_msh: %s\n", what);
  std::abort();
}

/// What build_topology() guarantees of a mesh it accepts (coarse_mesh.hpp), checked so that a
/// validation gap shows up as a finding rather than as a crash in a later layer.
void check_accepted(const quilt::CoarseMesh& mesh) {
  const int nv = mesh.num_vertices();
  const int np = static_cast<int>(mesh.part_names.size());
  if (mesh.num_cells() == 0) broken("accepted a mesh without cells");
  for (const auto& cell : mesh.cells)
    for (int v : cell)
      if (v < 0 || v >= nv) broken("accepted a cell with a vertex out of range");
  for (int v = 0; v < nv; ++v)
    if (mesh.vertex_cells[v].empty()) broken("accepted a dangling vertex");
  for (int e = 0; e < mesh.num_edges(); ++e) {
    const std::size_t around = mesh.edge_cells[e].size();
    if (around != 1 && around != 2) broken("accepted an edge in neither one nor two cells");
    const int part = mesh.edge_part[e];
    if (around == 1 && (part < 0 || part >= np)) broken("accepted an untagged boundary edge");
    if (around == 2 && part != -1) broken("accepted a tagged interior edge");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    check_accepted(quilt::read_msh(in, kName));
  } catch (const quilt::MeshError& e) {
    // Every message locates the problem: "fuzz.msh:<line>: ..." or "fuzz.msh: ...".
    if (std::string(e.what()).rfind(kName, 0) != 0) broken("a MeshError that names no file");
  }
  return 0;
}
