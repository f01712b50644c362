// vtu_check PVTU [NAME:COMPONENTS...]: reads a .pvtu an application wrote and every piece it
// lists with tests/io/vtu_reader, and checks what a ParaView user relies on: each piece holds
// the arrays the PVTU declares, NAME has COMPONENTS components, the z of a vector is 0, every
// value is finite, piece r's cells say rank r, and each macro 0..M-1 is in exactly one piece.
// Prints one line per array (its range) and exits 1 with the reason on the first failure.
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/vtu_reader.hpp"

using namespace quilt::test;

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

/// The pieces' arrays must be those of the PVTU, in its order.
void check_arrays(const VtuData& master, const VtuData& piece, const std::string& source) {
  const auto same = [](const std::vector<VtuArray>& a, const std::vector<VtuArray>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (a[k].signature() != b[k].signature()) return false;
    return true;
  };
  require(same(master.point_data, piece.point_data) && same(master.cell_data, piece.cell_data) &&
              same(master.coordinates, piece.coordinates),
          source + ": its arrays differ from the PVTU's");
}

/// Finite values, z = 0 for 3 components; widens `range` (min, max) of the array.
void check_values(const VtuArray& a, const std::string& source, std::vector<double>& range) {
  require(a.type == "Float64", source + ": '" + a.name + "' is " + a.type);
  const std::vector<double> v = a.values<double>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    require(std::isfinite(v[i]), source + ": '" + a.name + "' holds " + std::to_string(v[i]));
    if (a.components == 3 && i % 3 == 2)
      require(v[i] == 0 && !std::signbit(v[i]), source + ": '" + a.name + "' has z != 0");
    range = {std::min(range[0], v[i]), std::max(range[1], v[i])};
  }
}

/// Piece r's cells say rank r; its macros are collected in `macros`, each seen only once.
void check_cells(const VtuData& piece, int r, const std::string& source, std::set<int>& macros) {
  for (std::int32_t owner : VtuData::find(piece.cell_data, "rank").values<std::int32_t>())
    require(owner == r,
            source + ", piece " + std::to_string(r) + ": a cell of rank " + std::to_string(owner));
  std::set<int> here;
  for (std::int32_t m : VtuData::find(piece.cell_data, "macro").values<std::int32_t>())
    here.insert(m);
  for (int m : here) require(macros.insert(m).second, "macro " + std::to_string(m) + " twice");
}

void check_expected(const VtuData& master, const std::vector<std::string>& expected) {
  for (const std::string& e : expected) {
    const std::size_t colon = e.find(':');
    const VtuArray& a = VtuData::find(master.point_data, e.substr(0, colon));
    require(a.components == std::stoi(e.substr(colon + 1)),
            "'" + a.name + "' has " + std::to_string(a.components) + " components");
  }
}

/// What the pieces add up to.
struct Totals {
  std::vector<std::vector<double>> ranges;  ///< (min, max) of each point array
  std::set<int> macros;
  std::size_t points = 0, cells = 0;
};

void check_piece(const VtuData& master, const std::string& source, int r, Totals& t) {
  const VtuData piece = read_vtu(source);
  check_arrays(master, piece, source);
  for (std::size_t k = 0; k < piece.point_data.size(); ++k)
    check_values(piece.point_data[k], source, t.ranges[k]);
  check_cells(piece, r, source, t.macros);
  t.points += piece.points;
  t.cells += piece.cells;
}

int check(const std::string& pvtu, const std::vector<std::string>& expected) {
  const VtuData master = read_pvtu(pvtu);
  check_expected(master, expected);
  Totals t;
  t.ranges.assign(master.point_data.size(),
                  {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()});
  for (std::size_t r = 0; r < master.sources.size(); ++r)
    check_piece(master, (std::filesystem::path(pvtu).parent_path() / master.sources[r]).string(),
                static_cast<int>(r), t);
  require(!t.macros.empty() && *t.macros.begin() == 0 &&
              *t.macros.rbegin() + 1 == static_cast<int>(t.macros.size()),
          "the macros are not 0.." + std::to_string(t.macros.size() - 1));
  std::printf("%s: %zu pieces, %zu macros, %zu points, %zu cells\n", pvtu.c_str(),
              master.sources.size(), t.macros.size(), t.points, t.cells);
  for (std::size_t k = 0; k < t.ranges.size(); ++k)
    std::printf("  %s (%d): [%.17g, %.17g]\n", master.point_data[k].name.c_str(),
                master.point_data[k].components, t.ranges[k][0], t.ranges[k][1]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vtu_check PVTU [NAME:COMPONENTS...]\n");
    return 2;
  }
  try {
    return check(argv[1], std::vector<std::string>(argv + 2, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vtu_check: %s\n", e.what());
    return 1;
  }
}
