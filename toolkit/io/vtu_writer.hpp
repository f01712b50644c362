#pragma once
// ParaView output (design.md §10): one .vtu per rank with all its macros (each macro's grid as
// VTK quads; shared nodes appear once per macro), and on rank 0 a .pvtu that lists them.
//
// The format: VTK XML UnstructuredGrid version 1.0, every array in one raw appended block
// (<AppendedData encoding="raw">, after its '_'), each array there preceded by its size in bytes
// as a UInt64 (header_type="UInt64"), in the machine's byte order (byte_order says which). Points
// and nodal fields are Float64 (a vector field has 3 components, z = 0), the connectivity and
// offsets Int32 (Int64 in a piece of 2^29 cells or more), the cell types UInt8 (VTK_QUAD), the
// cell data `rank` (the writing rank) and `macro` (the global macro id) Int32.
//
// Why raw appended: the values are copied as they are in memory, so a file holds the solution
// bit for bit and costs 8 bytes a double (base64 costs 10.7, ASCII with 17 digits about 24) and
// no encoding pass. UInt64 headers so that an array of more than 4 GiB stays readable. The
// price: the block holds arbitrary bytes, so the file is not well-formed XML and only VTK
// readers (ParaView, VisIt, meshio) read it, not general XML tools. No compression: zlib would be
// a new dependency, and the mantissas of double fields barely compress.

#include <span>
#include <string>
#include <vector>

#include "mesh/macro_geometry.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// A nodal scalar on this rank's macros: one value a node, macro after macro in the order of
/// VtuPiece::macros, each macro's n * n nodes lexicographic.
struct ScalarField {
  std::string name;
  std::span<const double> values;
};

/// A nodal vector in the plane, ordered as ScalarField; written with 3 components, z = 0.
struct VectorField {
  std::string name;
  std::span<const double> x, y;
};

/// What one rank writes: its macros' nodes and the nodal fields on them. Field names must be
/// unique, non-empty and free of the XML specials < > & " '; every rank passes the same names.
struct VtuPiece {
  std::span<const MacroGeometry> macros;
  std::span<const int> macro_ids;  ///< the global id of each macro (cell data `macro`)
  std::vector<VectorField> vectors;
  std::vector<ScalarField> scalars;
};

/// DIR/NAME_RANK.vtu, the piece `rank` writes.
std::string vtu_piece_path(const std::string& directory, const std::string& name, int rank);

/// Collective: writes DIR/NAME_RANK.vtu on every rank and then, on rank 0 and only if every
/// piece was written, DIR/NAME.pvtu; creates DIR if needed. Each file is written whole or not at
/// all (write_file_atomically). If a piece fails (also a piece whose fields do not match its
/// macros), every rank throws IoError naming the piece of the lowest failing rank (that rank:
/// its own error) and no PVTU is written; if the PVTU fails, every rank throws.
void write_vtu(const std::string& directory, const std::string& name, const VtuPiece& piece,
               const Communicator& comm);

}  // namespace quilt
