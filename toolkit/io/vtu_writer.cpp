#include "io/vtu_writer.hpp"

#include <filesystem>
#include <ostream>

#include "io/atomic_file.hpp"
#include "io/output.hpp"

namespace quilt {
namespace {

void write_piece(std::ostream& out, const std::vector<MacroGeometry>& macros,
                 const std::vector<NodalField>& fields) {
  std::size_t points = 0, cells = 0;
  for (const auto& g : macros) {
    points += static_cast<std::size_t>(g.n) * g.n;
    cells += static_cast<std::size_t>(g.n - 1) * (g.n - 1);
  }
  out.precision(17);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\">\n"
      << "<UnstructuredGrid>\n<Piece NumberOfPoints=\"" << points << "\" NumberOfCells=\"" << cells
      << "\">\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n";
  for (const auto& g : macros)
    for (std::size_t i = 0; i < g.x.size(); ++i) out << g.x[i] << ' ' << g.y[i] << " 0\n";
  out << "</DataArray>\n</Points>\n<Cells>\n"
      << "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  std::size_t base = 0;
  for (const auto& g : macros) {
    const std::size_t n = g.n;
    for (std::size_t j = 0; j + 1 < n; ++j)
      for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::size_t r = base + i + j * n;
        out << r << ' ' << r + 1 << ' ' << r + 1 + n << ' ' << r + n << '\n';
      }
    base += n * n;
  }
  out << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (std::size_t c = 1; c <= cells; ++c) out << 4 * c << '\n';
  out << "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
  for (std::size_t c = 0; c < cells; ++c) out << "9\n";  // VTK_QUAD
  out << "</DataArray>\n</Cells>\n<PointData>\n";
  for (const auto& f : fields) {
    out << "<DataArray type=\"Float64\" Name=\"" << f.name << "\" format=\"ascii\">\n";
    for (double v : *f.values) out << v << '\n';
    out << "</DataArray>\n";
  }
  out << "</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n";
}

void write_master(std::ostream& out, const std::string& name, const std::vector<NodalField>& fields,
                  int pieces) {
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\">\n"
      << "<PUnstructuredGrid GhostLevel=\"0\">\n<PPoints>\n"
      << "<PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n</PPoints>\n<PPointData>\n";
  for (const auto& f : fields) out << "<PDataArray type=\"Float64\" Name=\"" << f.name << "\"/>\n";
  out << "</PPointData>\n";
  for (int r = 0; r < pieces; ++r) out << "<Piece Source=\"" << name << "_" << r << ".vtu\"/>\n";
  out << "</PUnstructuredGrid>\n</VTKFile>\n";
}

}  // namespace

std::string vtu_piece_path(const std::string& directory, const std::string& name, int rank) {
  return (std::filesystem::path(directory) / (name + "_" + std::to_string(rank) + ".vtu")).string();
}

void write_vtu(const std::string& directory, const std::string& name,
               const std::vector<MacroGeometry>& macros, const std::vector<NodalField>& fields,
               const Communicator& comm) {
  const std::string master = (std::filesystem::path(directory) / (name + ".pvtu")).string();
  collective_output_step(
      true,
      [&] {
        std::filesystem::create_directories(directory);
        write_file_atomically(vtu_piece_path(directory, name, comm.rank()),
                              [&](std::ostream& out) { write_piece(out, macros, fields); });
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
            master, [&](std::ostream& out) { write_master(out, name, fields, comm.size()); });
      },
      comm, [&](int) { return "rank 0 could not write '" + master + "'"; });
}

}  // namespace quilt
