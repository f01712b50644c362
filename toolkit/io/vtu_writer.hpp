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

/// DIR/NAME_RANK.vtu, the piece `rank` writes.
std::string vtu_piece_path(const std::string& directory, const std::string& name, int rank);

/// Collective: writes DIR/NAME_RANK.vtu on every rank and then, on rank 0 and only if every
/// piece was written, DIR/NAME.pvtu; creates DIR if needed. Each file is written whole or not at
/// all (write_file_atomically). If a piece fails, every rank throws IoError naming the piece of
/// the lowest failing rank (that rank: its own error) and no PVTU is written; if the PVTU fails,
/// every rank throws.
void write_vtu(const std::string& directory, const std::string& name,
               const std::vector<MacroGeometry>& macros, const std::vector<NodalField>& fields,
               const Communicator& comm);

}  // namespace quilt
