// Collective fail-safe output (toolkit/io/output, vtu_writer) at 1, 2 and 4 ranks: the PVTU is
// written only when every rank wrote its piece; a failure on one rank makes every rank throw
// (no rank waits in a collective), naming the failed piece; the --results / --vtu checks stop
// every rank before any work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/config.hpp"
#include "io/json.hpp"
#include "io/output.hpp"
#include "io/output_test_support.hpp"
#include "io/shared_dir.hpp"
#include "io/vtu_writer.hpp"
#include "parallel/communicator.hpp"

using namespace quilt;
using namespace quilt::test;

namespace {

namespace fs = std::filesystem;

/// One 3 x 3 macro per rank, shifted by the rank, and a nodal field on it.
struct RankOutput {
  std::vector<MacroGeometry> macros;
  std::vector<int> ids;
  std::vector<double> u;
  explicit RankOutput(int rank) : macros(1), ids{rank} {
    MacroGeometry& g = macros[0];
    g.level = 1;
    g.n = 3;
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        g.x.push_back(rank + 0.5 * i);
        g.y.push_back(0.5 * j);
        u.push_back(rank + i + 3 * j);
      }
  }
  void write(const std::string& directory, const Communicator& comm) const {
    write_vtu(directory, "flow", {macros, ids, {}, {{"u", u}}}, comm);
  }
};

TEST(VtuOutput, WritesEveryPieceWholeThenThePvtu) {
  const Communicator comm;
  const SharedDir dir(comm);
  const std::string vtu = dir / "vtu";
  RankOutput(comm.rank()).write(vtu, comm);
  dir.barrier();
  if (comm.rank() != 0) return;
  const std::string master = contents(vtu + "/flow.pvtu");
  for (int r = 0; r < comm.size(); ++r) {
    const std::string piece = contents(vtu_piece_path(vtu, "flow", r));
    EXPECT_TRUE(contains(piece, "NumberOfPoints=\"9\" NumberOfCells=\"4\"")) << r;
    EXPECT_EQ(piece.substr(piece.size() - 11), "</VTKFile>\n") << r;
    EXPECT_TRUE(contains(master, "<Piece Source=\"flow_" + std::to_string(r) + ".vtu\"/>"));
  }
  EXPECT_EQ(master.substr(master.size() - 11), "</VTKFile>\n");
  EXPECT_TRUE(temporaries(vtu).empty());
}

TEST(VtuOutput, AFailedPieceStopsEveryRankAndNoPvtuIsWritten) {
  const Communicator comm;
  const SharedDir dir(comm);
  const std::string vtu = dir / "vtu";
  const int failing = comm.size() - 1;
  const std::string bad_piece = vtu_piece_path(vtu, "flow", failing);
  if (comm.rank() == 0) {
    fs::create_directories(bad_piece);  // a directory where the last rank's piece goes
    std::ofstream(vtu + "/flow.pvtu") << "previous run\n";
  }
  dir.barrier();
  const std::string what = io_error([&] { RankOutput(comm.rank()).write(vtu, comm); });
  EXPECT_TRUE(contains(what, "'" + bad_piece + "'")) << "rank " << comm.rank() << ": " << what;
  if (comm.rank() != failing) {
    EXPECT_TRUE(contains(what, "flow.pvtu' not written")) << what;
  }
  dir.barrier();
  if (comm.rank() != 0) return;
  EXPECT_EQ(contents(vtu + "/flow.pvtu"), "previous run\n");  // the old PVTU stays
  EXPECT_TRUE(fs::is_directory(bad_piece));
  EXPECT_TRUE(temporaries(vtu).empty());
}

TEST(VtuOutput, AFailedPvtuStopsEveryRank) {
  const Communicator comm;
  const SharedDir dir(comm);
  const std::string vtu = dir / "vtu";
  if (comm.rank() == 0) fs::create_directories(vtu + "/flow.pvtu");
  dir.barrier();
  const std::string what = io_error([&] { RankOutput(comm.rank()).write(vtu, comm); });
  EXPECT_TRUE(contains(what, "'" + vtu + "/flow.pvtu'")) << "rank " << comm.rank() << ": " << what;
  dir.barrier();
  if (comm.rank() == 0) {
    EXPECT_TRUE(temporaries(vtu).empty());
  }
}

TEST(CollectiveOutputStep, EveryRankLearnsTheLowestFailingRank) {
  const Communicator comm;
  const auto others = [](int rank) { return "rank " + std::to_string(rank) + " failed"; };
  // Odd ranks fail: their own message on them, "rank 1 failed" on the others.
  const std::string what = io_error([&] {
    collective_output_step(
        comm.rank() % 2 == 1, [&] { throw IoError("own " + std::to_string(comm.rank())); }, comm,
        others);
  });
  if (comm.size() == 1)
    EXPECT_EQ(what, "(no IoError)");
  else
    EXPECT_EQ(what, comm.rank() % 2 == 1 ? "own " + std::to_string(comm.rank()) : "rank 1 failed");
  EXPECT_NO_THROW(collective_output_step(
      true, [] {}, comm, others));
}

/// Config::parse of `args` (after the program name) with only the general options.
std::unique_ptr<Config> parsed(std::vector<std::string> args) {
  auto config = std::make_unique<Config>("quilt-test", "output options");
  args.insert(args.begin(), "quilt-test");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  config->parse(static_cast<int>(argv.size()), argv.data());
  return config;
}

TEST(OutputOptions, UnusablePathsStopEveryRankNamingOptionAndPath) {
  const Communicator comm;
  const SharedDir dir(comm);
  if (comm.rank() == 0) std::ofstream(dir / "plain") << "x";
  dir.barrier();
  EXPECT_NO_THROW(
      check_output_options(*parsed({"--results", dir / "r.json", "--vtu", dir / "v"}), comm));
  EXPECT_NO_THROW(check_output_options(*parsed({}), comm));
  const std::vector<std::pair<std::string, std::string>> bad = {{"--results", dir / "gone/r.json"},
                                                                {"--results", dir / ""},
                                                                {"--vtu", dir / "plain"},
                                                                {"--vtu", dir / "gone/vtu"}};
  for (const auto& [option, path] : bad) {
    const std::string what = io_error([&] { check_output_options(*parsed({option, path}), comm); });
    // --results is checked on rank 0 (which writes it), --vtu on every rank.
    if (comm.rank() == 0 || option == "--vtu") {
      EXPECT_TRUE(contains(what, option + " '" + path + "'")) << what;
    } else {
      EXPECT_TRUE(contains(what, "rank 0")) << what;
    }
  }
}

TEST(OutputOptions, ResultsAreWrittenByRankZeroAndAFailureStopsEveryRank) {
  const Communicator comm;
  const SharedDir dir(comm);
  Json j = Json::object();
  j["ranks"] = comm.size();
  write_results(*parsed({"--results", dir / "r.json"}), j, comm);
  dir.barrier();
  if (comm.rank() == 0) {
    EXPECT_EQ(contents(dir / "r.json"), json_text(j));
  }
  const std::string bad = dir / "gone/r.json";
  const std::string what = io_error([&] { write_results(*parsed({"--results", bad}), j, comm); });
  EXPECT_TRUE(contains(what, "'" + bad + "'")) << "rank " << comm.rank() << ": " << what;
}

}  // namespace
