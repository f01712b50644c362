#pragma once
// ParaView output (design.md §10): one .vtu per rank with all its macros (each macro's grid as
// VTK quads; shared nodes appear once per macro), and on rank 0 a .pvtu that lists them.

#include <string>
#include <utility>
#include <vector>

#include "mesh/macro_geometry.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// A nodal field on this rank's macros (macros * n * n values, macro-major).
struct NodalField {
  std::string name;
  const std::vector<double>* values;
};

/// Writes DIR/NAME_RANK.vtu and, on rank 0, DIR/NAME.pvtu; creates DIR if needed.
void write_vtu(const std::string& directory, const std::string& name,
               const std::vector<MacroGeometry>& macros, const std::vector<NodalField>& fields,
               const Communicator& comm);

}  // namespace quilt
