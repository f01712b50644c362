#include "io/vtu_writer.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <ostream>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/output.hpp"

namespace quilt {
namespace {

/// One array of the appended block: its XML description and how to write its values.
struct AppendedArray {
  std::string type;  ///< the VTK type: Float64, Int64, Int32, UInt8
  std::string name;  ///< "" for the points, which have none
  int components = 1;
  std::uint64_t bytes = 0;                   ///< the size of the values
  std::function<void(std::ostream&)> write;  ///< writes exactly `bytes` bytes
};

/// The arrays of a piece, grouped as the XML groups them.
struct PieceArrays {
  std::size_t points = 0, cells = 0;
  std::vector<AppendedArray> point_data, cell_data, coordinates, topology;
};

/// The bytes of `values` as they are in memory (the file says the byte order).
template <class T>
void write_raw(std::ostream& out, std::span<const T> values) {
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size_bytes()));
}

/// An array of `count` values of type T written chunk by chunk: `chunk(k, buffer)` fills the
/// buffer with the values of macro k, so that no array of the whole piece is ever built.
template <class T>
AppendedArray per_macro(std::string type, std::string name, int components, std::size_t count,
                        std::size_t macros,
                        std::function<void(std::size_t, std::vector<T>&)> chunk) {
  AppendedArray a{std::move(type), std::move(name), components, count * sizeof(T), {}};
  a.write = [count, macros, chunk = std::move(chunk), label = a.name](std::ostream& out) {
    std::vector<T> buffer;
    std::size_t written = 0;
    for (std::size_t k = 0; k < macros; ++k) {
      buffer.clear();
      chunk(k, buffer);
      write_raw(out, std::span<const T>(buffer));
      written += buffer.size();
    }
    // A size that differs from the header's would shift every later array: a garbled file.
    if (written != count) throw std::logic_error("array '" + label + "' of the wrong size");
  };
  return a;
}

std::size_t nodes(const MacroGeometry& g) {
  return static_cast<std::size_t>(g.n) * g.n;
}
std::size_t quads(const MacroGeometry& g) {
  return static_cast<std::size_t>(g.n - 1) * (g.n - 1);
}

/// Where macro k's entities start among the piece's: the sums of `count` over the macros before.
std::vector<std::size_t> firsts(std::span<const MacroGeometry> macros,
                                std::size_t (*count)(const MacroGeometry&)) {
  std::vector<std::size_t> first(macros.size() + 1, 0);
  for (std::size_t k = 0; k < macros.size(); ++k) first[k + 1] = first[k] + count(macros[k]);
  return first;
}

/// The quads of macro k, four node numbers each, counter-clockwise as VTK wants them.
template <class Index>
void append_quads(const MacroGeometry& g, Index first, std::vector<Index>& out) {
  const Index n = g.n;
  for (Index j = 0; j + 1 < n; ++j)
    for (Index i = 0; i + 1 < n; ++i) {
      const Index r = first + i + j * n;
      out.insert(out.end(), {r, r + 1, r + 1 + n, r + n});
    }
}

/// Connectivity, offsets and cell types with node numbers and offsets of the type Index.
template <class Index>
std::vector<AppendedArray> topology(std::span<const MacroGeometry> macros, std::size_t cells,
                                    const char* type) {
  const std::vector<std::size_t> first = firsts(macros, nodes), first_cell = firsts(macros, quads);
  const std::size_t m = macros.size();
  return {per_macro<Index>(type, "connectivity", 1, 4 * cells, m,
                           [=](std::size_t k, std::vector<Index>& out) {
                             append_quads(macros[k], static_cast<Index>(first[k]), out);
                           }),
          per_macro<Index>(type, "offsets", 1, cells, m,
                           [=](std::size_t k, std::vector<Index>& out) {
                             // Each quad ends four entries after the previous one.
                             for (std::size_t c = first_cell[k]; c < first_cell[k + 1]; ++c)
                               out.push_back(static_cast<Index>(4 * (c + 1)));
                           }),
          per_macro<std::uint8_t>("UInt8", "types", 1, cells, m,
                                  [=](std::size_t k, std::vector<std::uint8_t>& out) {
                                    out.assign(quads(macros[k]), 9);  // VTK_QUAD
                                  })};
}

/// Int32 where the offsets fit, which halves the topology, a third of the file: every piece a
/// rank can hold in memory (below 2^29 cells); Int64 beyond.
std::vector<AppendedArray> topology(std::span<const MacroGeometry> macros, std::size_t cells) {
  if (4 * cells <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    return topology<std::int32_t>(macros, cells, "Int32");
  return topology<std::int64_t>(macros, cells, "Int64");
}

AppendedArray coordinates(std::span<const MacroGeometry> macros, std::size_t points) {
  return per_macro<double>("Float64", "", 3, 3 * points, macros.size(),
                           [=](std::size_t k, std::vector<double>& out) {
                             const MacroGeometry& g = macros[k];
                             for (std::size_t i = 0; i < g.x.size(); ++i)
                               out.insert(out.end(), {g.x[i], g.y[i], 0.0});
                           });
}

/// A cell array of Int32 with value(k) on every quad of macro k.
AppendedArray per_cell(std::string name, std::span<const MacroGeometry> macros, std::size_t cells,
                       std::function<std::int32_t(std::size_t)> value) {
  return per_macro<std::int32_t>("Int32", std::move(name), 1, cells, macros.size(),
                                 [=](std::size_t k, std::vector<std::int32_t>& out) {
                                   out.assign(quads(macros[k]), value(k));
                                 });
}

AppendedArray vector_field(const VectorField& f, std::size_t points) {
  AppendedArray a{"Float64", f.name, 3, 3 * points * sizeof(double), {}};
  a.write = [f](std::ostream& out) {
    // Interleaved (x, y, 0) in slices, so that no 3-component copy of the field is built.
    constexpr std::size_t kSlice = 4096;
    std::vector<double> buffer;
    for (std::size_t s = 0; s < f.x.size(); s += kSlice) {
      buffer.clear();
      for (std::size_t i = s; i < std::min(s + kSlice, f.x.size()); ++i)
        buffer.insert(buffer.end(), {f.x[i], f.y[i], 0.0});
      write_raw(out, std::span<const double>(buffer));
    }
  };
  return a;
}

AppendedArray scalar_field(const ScalarField& f) {
  return {"Float64", f.name, 1, f.values.size_bytes(),
          [f](std::ostream& out) { write_raw(out, f.values); }};
}

void check_name(const std::string& name, std::set<std::string>& seen) {
  if (name.empty() || name.find_first_of("<>&\"'") != std::string::npos)
    throw std::invalid_argument("field name '" + name + "' is empty or holds an XML special");
  if (!seen.insert(name).second) throw std::invalid_argument("two fields are named '" + name + "'");
}

void check_size(const std::string& name, std::size_t size, std::size_t points) {
  if (size != points)
    throw std::invalid_argument("field '" + name + "' has " + std::to_string(size) +
                                " values, the piece " + std::to_string(points) + " points");
}

/// std::invalid_argument when the piece's fields or ids do not match its macros.
void check_piece(const VtuPiece& piece, std::size_t points) {
  if (piece.macro_ids.size() != piece.macros.size())
    throw std::invalid_argument(std::to_string(piece.macro_ids.size()) + " macro ids for " +
                                std::to_string(piece.macros.size()) + " macros");
  for (const MacroGeometry& g : piece.macros)
    if (g.n < 2 || g.x.size() != nodes(g) || g.y.size() != nodes(g))
      throw std::invalid_argument("a macro's coordinates do not match its n = " +
                                  std::to_string(g.n));
  std::set<std::string> seen;
  for (const VectorField& f : piece.vectors) {
    check_name(f.name, seen);
    check_size(f.name, f.x.size(), points);
    check_size(f.name, f.y.size(), points);
  }
  for (const ScalarField& f : piece.scalars) {
    check_name(f.name, seen);
    check_size(f.name, f.values.size(), points);
  }
}

/// The arrays of `piece` as written by `rank`; their descriptions alone make the PVTU.
PieceArrays piece_arrays(const VtuPiece& piece, int rank) {
  PieceArrays a;
  for (const MacroGeometry& g : piece.macros) {
    a.points += nodes(g);
    a.cells += quads(g);
  }
  check_piece(piece, a.points);
  for (const VectorField& f : piece.vectors) a.point_data.push_back(vector_field(f, a.points));
  for (const ScalarField& f : piece.scalars) a.point_data.push_back(scalar_field(f));
  const auto ids = piece.macro_ids;
  a.cell_data = {per_cell("rank", piece.macros, a.cells, [rank](std::size_t) { return rank; }),
                 per_cell("macro", piece.macros, a.cells, [ids](std::size_t k) { return ids[k]; })};
  a.coordinates = {coordinates(piece.macros, a.points)};
  a.topology = topology(piece.macros, a.cells);
  return a;
}

std::string file_attributes(const char* type) {
  const char* order = std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian";
  return std::string("<VTKFile type=\"") + type + "\" version=\"1.0\" byte_order=\"" + order +
         "\" header_type=\"UInt64\">\n";
}

/// The attributes a DataArray and its PDataArray share.
std::string array_attributes(const AppendedArray& a) {
  std::string s = "type=\"" + a.type + "\"";
  if (!a.name.empty()) s += " Name=\"" + a.name + "\"";
  if (a.components != 1) s += " NumberOfComponents=\"" + std::to_string(a.components) + "\"";
  return s;
}

/// The DataArray elements of `group` inside <tag>, advancing `offset` past each array and its
/// UInt64 size.
void write_group(std::ostream& out, const char* tag, const std::vector<AppendedArray>& group,
                 std::uint64_t& offset) {
  out << '<' << tag << ">\n";
  for (const AppendedArray& a : group) {
    out << "<DataArray " << array_attributes(a) << " format=\"appended\" offset=\"" << offset
        << "\"/>\n";
    offset += sizeof(std::uint64_t) + a.bytes;
  }
  out << "</" << tag << ">\n";
}

void write_appended(std::ostream& out, const std::vector<AppendedArray>& group) {
  for (const AppendedArray& a : group) {
    write_raw(out, std::span<const std::uint64_t>(&a.bytes, 1));
    a.write(out);
  }
}

void write_piece(std::ostream& out, const PieceArrays& a) {
  out << "<?xml version=\"1.0\"?>\n"
      << file_attributes("UnstructuredGrid") << "<UnstructuredGrid>\n<Piece NumberOfPoints=\""
      << a.points << "\" NumberOfCells=\"" << a.cells << "\">\n";
  std::uint64_t offset = 0;
  write_group(out, "PointData", a.point_data, offset);
  write_group(out, "CellData", a.cell_data, offset);
  write_group(out, "Points", a.coordinates, offset);
  write_group(out, "Cells", a.topology, offset);
  out << "</Piece>\n</UnstructuredGrid>\n<AppendedData encoding=\"raw\">\n_";
  for (const auto* group : {&a.point_data, &a.cell_data, &a.coordinates, &a.topology})
    write_appended(out, *group);
  out << "\n</AppendedData>\n</VTKFile>\n";
}

void write_pgroup(std::ostream& out, const char* tag, const std::vector<AppendedArray>& group) {
  out << "<P" << tag << ">\n";
  for (const AppendedArray& a : group) out << "<PDataArray " << array_attributes(a) << "/>\n";
  out << "</P" << tag << ">\n";
}

void write_master(std::ostream& out, const std::string& name, const PieceArrays& a, int pieces) {
  out << "<?xml version=\"1.0\"?>\n"
      << file_attributes("PUnstructuredGrid") << "<PUnstructuredGrid GhostLevel=\"0\">\n";
  write_pgroup(out, "PointData", a.point_data);
  write_pgroup(out, "CellData", a.cell_data);
  write_pgroup(out, "Points", a.coordinates);
  for (int r = 0; r < pieces; ++r) out << "<Piece Source=\"" << name << "_" << r << ".vtu\"/>\n";
  out << "</PUnstructuredGrid>\n</VTKFile>\n";
}

/// Writes the piece of `rank` to `path` and returns its arrays. A piece that does not match its
/// macros (std::invalid_argument), or an array of the wrong size (std::logic_error), becomes an
/// IoError naming the file, which is then not written.
PieceArrays write_piece_file(const std::string& path, const std::string& directory,
                             const VtuPiece& piece, int rank) {
  try {
    PieceArrays arrays = piece_arrays(piece, rank);
    std::filesystem::create_directories(directory);
    write_file_atomically(path, [&](std::ostream& out) { write_piece(out, arrays); });
    return arrays;
  } catch (const std::logic_error& e) {
    throw IoError("VTU piece '" + path + "' not written: " + e.what());
  }
}

}  // namespace

std::string vtu_piece_path(const std::string& directory, const std::string& name, int rank) {
  return (std::filesystem::path(directory) / (name + "_" + std::to_string(rank) + ".vtu")).string();
}

void write_vtu(const std::string& directory, const std::string& name, const VtuPiece& piece,
               const Communicator& comm) {
  const std::string master = (std::filesystem::path(directory) / (name + ".pvtu")).string();
  PieceArrays arrays;  // rank 0's also describe the PVTU
  collective_output_step(
      true,
      [&] {
        arrays = write_piece_file(vtu_piece_path(directory, name, comm.rank()), directory, piece,
                                  comm.rank());
      },
      comm,
      [&](int rank) {
        return "VTU piece '" + vtu_piece_path(directory, name, rank) + "' of rank " +
               std::to_string(rank) + " was not written; '" + master + "' not written";
      });
  collective_output_step(
      comm.rank() == 0,
      [&] {
        write_file_atomically(
            master, [&](std::ostream& out) { write_master(out, name, arrays, comm.size()); });
      },
      comm, [&](int) { return "rank 0 could not write '" + master + "'"; });
}

}  // namespace quilt
