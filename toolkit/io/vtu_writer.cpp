#include "io/vtu_writer.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace quilt {

void write_vtu(const std::string& directory, const std::string& name,
               const std::vector<MacroGeometry>& macros, const std::vector<NodalField>& fields,
               const Communicator& comm) {
  std::filesystem::create_directories(directory);
  const std::string piece = name + "_" + std::to_string(comm.rank()) + ".vtu";
  std::ofstream out(std::filesystem::path(directory) / piece);
  if (!out) throw std::runtime_error("cannot write VTU file in '" + directory + "'");
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
  if (!out) throw std::runtime_error("error while writing " + piece);

  if (comm.rank() != 0) return;
  std::ofstream master(std::filesystem::path(directory) / (name + ".pvtu"));
  master << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\">\n"
         << "<PUnstructuredGrid GhostLevel=\"0\">\n<PPoints>\n"
         << "<PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n</PPoints>\n<PPointData>\n";
  for (const auto& f : fields)
    master << "<PDataArray type=\"Float64\" Name=\"" << f.name << "\"/>\n";
  master << "</PPointData>\n";
  for (int r = 0; r < comm.size(); ++r)
    master << "<Piece Source=\"" << name << "_" << r << ".vtu\"/>\n";
  master << "</PUnstructuredGrid>\n</VTKFile>\n";
}

}  // namespace quilt
