// The VTU format (toolkit/io/vtu_writer) at 1, 2 and 4 ranks, read back by tests/io/vtu_reader:
// every value (points, nodal scalars and vectors, connectivity, the cell data `rank` and
// `macro`) comes back bit for bit, NaNs, infinities and -0 included; the PVTU lists every
// piece and declares the arrays each piece holds; a field that does not match its macros stops
// every rank naming the piece; a rank without macros writes an empty piece.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/output_test_support.hpp"
#include "io/shared_dir.hpp"
#include "io/vtu_reader.hpp"
#include "io/vtu_writer.hpp"
#include "parallel/communicator.hpp"

using namespace quilt;
using namespace quilt::test;

namespace {

/// Doubles of arbitrary bit patterns (NaN payloads, subnormals, -0 among them): splitmix64.
std::vector<double> arbitrary_bits(std::size_t count, std::uint64_t seed) {
  std::vector<double> v;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    v.push_back(std::bit_cast<double>(z ^ (z >> 31)));
  }
  return v;
}

MacroGeometry square(int n, double x0, double y0) {
  MacroGeometry g;
  g.n = n;
  g.level = std::bit_width(static_cast<unsigned>(n - 1)) - 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      g.x.push_back(x0 + static_cast<double>(i) / (n - 1));
      g.y.push_back(y0 + static_cast<double>(j) / (n - 1));
    }
  return g;
}

/// A rank's piece: macros of two sizes (5 x 5 and 3 x 3) with global ids 3r + 2 and 3r, so that
/// neither the sizes nor the ids follow from the order; fields of arbitrary bits, with the
/// special values first.
struct RankData {
  std::vector<MacroGeometry> macros;
  std::vector<int> ids;
  std::vector<double> vx, vy, p, w;

  RankData(int rank, bool with_macros) {
    if (with_macros) {
      macros = {square(5, rank, 0), square(3, rank, 1)};
      ids = {3 * rank + 2, 3 * rank};
    }
    const std::size_t points = with_macros ? 34 : 0;
    vx = arbitrary_bits(points, 4 * rank + 1);
    vy = arbitrary_bits(points, 4 * rank + 2);
    p = arbitrary_bits(points, 4 * rank + 3);
    w = arbitrary_bits(points, 4 * rank + 4);
    const double special[] = {-0.0, std::bit_cast<double>(0x7ff0000000000001ULL),  // sNaN
                              -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::denorm_min()};
    for (std::size_t k = 0; k < std::size(special) && k < points; ++k) p[k] = special[k];
  }
  VtuPiece piece() const {
    return {macros, ids, {{"velocity", vx, vy}}, {{"pressure", p}, {"vorticity", w}}};
  }
};

/// `expected` laid out as the file lays out a 3-component array: (a, b, 0) per point.
std::vector<double> interleaved(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> v;
  for (std::size_t i = 0; i < a.size(); ++i) v.insert(v.end(), {a[i], b[i], 0.0});
  return v;
}

/// 'text' (built by append: GCC 12 sees a false -Wrestrict in "'" + text + "'").
std::string quoted(const std::string& text) {
  return std::string("'").append(text).append("'");
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  // Empty vectors compare equal without memcmp, which may not be given their null data().
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// The quads of the macros, as VTK wants them: counter-clockwise from the lower left node.
std::vector<std::int64_t> expected_connectivity(const std::vector<MacroGeometry>& macros) {
  std::vector<std::int64_t> c;
  std::int64_t first = 0;
  for (const MacroGeometry& g : macros) {
    for (int j = 0; j + 1 < g.n; ++j)
      for (int i = 0; i + 1 < g.n; ++i) {
        const std::int64_t lower_left = first + i + j * g.n;
        c.insert(c.end(), {lower_left, lower_left + 1, lower_left + g.n + 1, lower_left + g.n});
      }
    first += static_cast<std::int64_t>(g.n) * g.n;
  }
  return c;
}

/// `value(k)` repeated on every quad of macro k.
template <class F>
std::vector<std::int32_t> per_quad(const std::vector<MacroGeometry>& macros, F value) {
  std::vector<std::int32_t> v;
  for (std::size_t k = 0; k < macros.size(); ++k)
    v.insert(v.end(), static_cast<std::size_t>(macros[k].n - 1) * (macros[k].n - 1), value(k));
  return v;
}

/// Int32 node numbers and offsets (a piece this small is far from needing Int64).
void expect_topology(const VtuData& d, const std::vector<MacroGeometry>& macros) {
  const VtuArray& connectivity = VtuData::find(d.topology, "connectivity");
  EXPECT_EQ(connectivity.type, "Int32");
  EXPECT_EQ(connectivity.integers(), expected_connectivity(macros));
  std::vector<std::int64_t> offsets;
  for (std::size_t c = 1; c <= d.cells; ++c) offsets.push_back(static_cast<std::int64_t>(4 * c));
  EXPECT_EQ(VtuData::find(d.topology, "offsets").type, "Int32");
  EXPECT_EQ(VtuData::find(d.topology, "offsets").integers(), offsets);
  EXPECT_TRUE(same_bits(VtuData::find(d.topology, "types").values<std::uint8_t>(),
                        std::vector<std::uint8_t>(d.cells, 9)));  // VTK_QUAD
}

/// Checks the piece `d` that `rank` wrote from `data`, value by value.
void expect_piece(const VtuData& d, const RankData& data, int rank) {
  std::vector<double> x, y;
  for (const MacroGeometry& g : data.macros) {
    x.insert(x.end(), g.x.begin(), g.x.end());
    y.insert(y.end(), g.y.begin(), g.y.end());
  }
  EXPECT_EQ(d.points, x.size());
  EXPECT_TRUE(same_bits(d.coordinates.at(0).values<double>(), interleaved(x, y)));
  EXPECT_TRUE(same_bits(VtuData::find(d.point_data, "velocity").values<double>(),
                        interleaved(data.vx, data.vy)));
  EXPECT_TRUE(same_bits(VtuData::find(d.point_data, "pressure").values<double>(), data.p));
  EXPECT_TRUE(same_bits(VtuData::find(d.point_data, "vorticity").values<double>(), data.w));
  EXPECT_TRUE(same_bits(VtuData::find(d.cell_data, "rank").values<std::int32_t>(),
                        per_quad(data.macros, [rank](std::size_t) { return rank; })));
  EXPECT_TRUE(same_bits(VtuData::find(d.cell_data, "macro").values<std::int32_t>(),
                        per_quad(data.macros, [&](std::size_t k) { return data.ids[k]; })));
  expect_topology(d, data.macros);
}

std::vector<std::string> signatures(const std::vector<VtuArray>& group) {
  std::vector<std::string> s;
  for (const VtuArray& a : group) s.push_back(a.signature());
  return s;
}

/// Rank 0 checks that the PVTU names piece r as the r-th source and declares exactly the arrays
/// each piece holds, and that piece r's cells say rank r.
void expect_pvtu_lists_the_pieces(const std::string& directory, int ranks) {
  const VtuData master = read_pvtu(directory + "/flow.pvtu");
  ASSERT_EQ(master.sources.size(), static_cast<std::size_t>(ranks));
  const std::vector<std::string> point_data = {"Float64 velocity 3", "Float64 pressure 1",
                                               "Float64 vorticity 1"};
  EXPECT_EQ(signatures(master.point_data), point_data);
  EXPECT_EQ(signatures(master.cell_data),
            (std::vector<std::string>{"Int32 rank 1", "Int32 macro 1"}));
  EXPECT_EQ(signatures(master.coordinates), std::vector<std::string>{"Float64  3"});
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(master.sources[r], "flow_" + std::to_string(r) + ".vtu");
    const VtuData piece = read_vtu(vtu_piece_path(directory, "flow", r));
    EXPECT_EQ(signatures(piece.point_data), point_data) << r;
    EXPECT_EQ(signatures(piece.cell_data), signatures(master.cell_data)) << r;
    EXPECT_EQ(signatures(piece.coordinates), signatures(master.coordinates)) << r;
    for (std::int32_t owner : VtuData::find(piece.cell_data, "rank").values<std::int32_t>())
      ASSERT_EQ(owner, r);
  }
}

TEST(VtuFormat, EveryValueReadsBackBitForBit) {
  const Communicator comm;
  const SharedDir dir(comm);
  const RankData data(comm.rank(), true);
  write_vtu(dir / "vtu", "flow", data.piece(), comm);
  const VtuData d = read_vtu(vtu_piece_path(dir / "vtu", "flow", comm.rank()));
  EXPECT_EQ(d.cells, 16u + 4u);
  expect_piece(d, data, comm.rank());
}

TEST(VtuFormat, ThePvtuListsEveryPieceAndItsArrays) {
  const Communicator comm;
  const SharedDir dir(comm);
  write_vtu(dir / "vtu", "flow", RankData(comm.rank(), true).piece(), comm);
  dir.barrier();
  if (comm.rank() == 0) expect_pvtu_lists_the_pieces(dir / "vtu", comm.size());
}

TEST(VtuFormat, ARankWithoutMacrosWritesAnEmptyPiece) {
  const Communicator comm;
  const SharedDir dir(comm);
  const RankData data(comm.rank(), comm.rank() % 2 == 0);  // odd ranks hold no macro
  write_vtu(dir / "vtu", "flow", data.piece(), comm);
  dir.barrier();
  const VtuData d = read_vtu(vtu_piece_path(dir / "vtu", "flow", comm.rank()));
  expect_piece(d, data, comm.rank());
  if (comm.rank() == 0) expect_pvtu_lists_the_pieces(dir / "vtu", comm.size());
}

TEST(VtuFormat, AFieldThatDoesNotMatchItsMacrosStopsEveryRankNamingThePiece) {
  const Communicator comm;
  const SharedDir dir(comm);
  const int failing = comm.size() - 1;
  RankData data(comm.rank(), true);
  if (comm.rank() == failing) data.w.pop_back();
  const std::string what = io_error([&] { write_vtu(dir / "vtu", "flow", data.piece(), comm); });
  const std::string piece = vtu_piece_path(dir / "vtu", "flow", failing);
  EXPECT_TRUE(contains(what, quoted(piece))) << "rank " << comm.rank() << ": " << what;
  if (comm.rank() == failing) {
    EXPECT_TRUE(contains(what, "field 'vorticity' has 33 values, the piece 34 points")) << what;
  }
  dir.barrier();
  EXPECT_FALSE(std::filesystem::exists(piece));
  EXPECT_FALSE(std::filesystem::exists(dir / "vtu/flow.pvtu"));
}

TEST(VtuFormat, BadFieldNamesAreRefused) {
  const Communicator comm;
  const SharedDir dir(comm);
  const RankData data(comm.rank(), true);
  for (const std::string& name : {std::string(), std::string("a\"b"), std::string("pressure")}) {
    VtuPiece piece = data.piece();
    piece.scalars.push_back({name, data.p});
    const std::string what = io_error([&] { write_vtu(dir / "vtu", "flow", piece, comm); });
    EXPECT_TRUE(contains(what, quoted(vtu_piece_path(dir / "vtu", "flow", comm.rank())))) << what;
    EXPECT_TRUE(contains(what, quoted(name))) << what;
  }
}

}  // namespace
