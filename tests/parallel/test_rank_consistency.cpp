// Inputs every rank reads for itself must agree (parallel/rank_consistency): equal inputs pass,
// an input that differs on one rank is an error on every rank, naming what differs, and none
// waits for ever. Run at 1, 2 and 4 ranks; the mismatch tests need two.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "parallel/distributed_mesh.hpp"
#include "parallel/rank_consistency.hpp"

using namespace quilt;

namespace {

namespace po = boost::program_options;

#define REQUIRE_TWO_RANKS(comm) \
  if ((comm).size() < 2) GTEST_SKIP() << "needs two ranks to differ"

/// The message of what `f` threw on this rank, "" if it returned.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InconsistentInputError& e) {
    return e.what();
  }
  return "";
}

/// Whether `text` holds `part`, with the whole text in the failure message.
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not in '" << text << "'";
}

/// A configuration parsed from `args` as an application parses its command line.
std::vector<std::pair<std::string, std::optional<std::string>>> settings_of(
    std::vector<std::string> args) {
  Config config("quilt-test", "");
  config.keys()("mesh.level", po::value<int>()->default_value(4), "")(
      "flow.re", number_key(100), "")("mesh.chart", po::value<std::vector<std::string>>(), "");
  args.insert(args.begin(), "quilt-test");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  config.parse(static_cast<int>(argv.size()), argv.data());
  return config.settings();
}

const Communicator& world() {
  static const Communicator comm;
  return comm;
}

bool last_rank() {
  return world().rank() == world().size() - 1;
}

}  // namespace

TEST(Fingerprint, TellsApartWhatTheRanksMustAgreeOn) {
  EXPECT_EQ(Fingerprint().add(std::string("ab")).value(),
            Fingerprint().add(std::string("ab")).value());
  EXPECT_NE(Fingerprint().add("ab").add("c").value(), Fingerprint().add("a").add("bc").value());
  EXPECT_NE(Fingerprint().add(0.0).value(), Fingerprint().add(-0.0).value());
  EXPECT_NE(Fingerprint().add(1.0).value(), Fingerprint().add(std::nextafter(1.0, 2.0)).value());
  EXPECT_NE(Fingerprint().add(std::vector<int>{}).value(),
            Fingerprint().add(std::vector<int>{0}).value());
}

TEST(RankConsistency, EqualConfigurationsPass) {
  EXPECT_NO_THROW(check_same_configuration(
      "run.ini", settings_of({"--mesh.level=5", "--mesh.chart=c circle 0 0 1"}), world()));
}

TEST(RankConsistency, AKeyDifferingOnOneRankIsAnErrorOnEveryRank) {
  REQUIRE_TWO_RANKS(world());
  const auto settings =
      settings_of({last_rank() ? "--flow.re=100.00000000000001" : "--flow.re=100"});
  const std::string what =
      error_of([&] { check_same_configuration("case/run.ini", settings, world()); });
  EXPECT_TRUE(contains(what, "the ranks read different configurations from 'case/run.ini'"));
  EXPECT_TRUE(contains(what, "(differing: flow.re)"));
  EXPECT_TRUE(contains(what, "edited while the job started"));
}

TEST(RankConsistency, AKeySetOnOneRankOnlyIsAnErrorOnEveryRank) {
  REQUIRE_TWO_RANKS(world());
  const auto settings = settings_of(last_rank() ? std::vector<std::string>{"--mesh.chart=c line"}
                                                : std::vector<std::string>{});
  const std::string what = error_of([&] { check_same_configuration("", settings, world()); });
  EXPECT_TRUE(contains(what, "the ranks read different configurations (differing: mesh.chart)"));
}

TEST(RankConsistency, ADifferentNumberOfPartsIsAnErrorNotAHang) {
  REQUIRE_TWO_RANKS(world());
  std::vector<InputPart> parts = {{"a", 1}};
  if (last_rank()) parts.push_back({"b", 2});
  EXPECT_EQ(parts_differing_across_ranks(parts, world()),
            std::vector<std::string>{"the number of parts"});
}

TEST(RankConsistency, EqualMeshesPass) {
  const CoarseMesh mesh = read_msh(mesh_path("dfg_channel.msh"));
  const ChartMap charts = bind_charts(mesh, {"cylinder circle 0.2 0.2 0.05"});
  EXPECT_NO_THROW(check_same_mesh(mesh, charts, world()));
  EXPECT_NO_THROW(distribute(mesh, charts, world()));
}

TEST(RankConsistency, AVertexOneUlpOffOnOneRankIsAnErrorOnEveryRank) {
  REQUIRE_TWO_RANKS(world());
  CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  if (last_rank()) mesh.vertices[3].x = std::nextafter(mesh.vertices[3].x, 10.0);
  const std::string what = error_of([&] { distribute(mesh, {}, world()); });
  EXPECT_TRUE(contains(what, "the ranks read different meshes: '" + mesh.source + "'"));
  EXPECT_TRUE(contains(what, "(differing: vertices)"));
}

TEST(RankConsistency, DifferentPartNamesAndChartsAreNamed) {
  REQUIRE_TWO_RANKS(world());
  CoarseMesh mesh = read_msh(mesh_path("dfg_channel.msh"));
  ChartMap charts = bind_charts(mesh, {"cylinder circle 0.2 0.2 0.05"});
  if (last_rank()) {
    charts.begin()->second.radius = std::nextafter(0.05, 1.0);
    mesh.part_names.back() += "_edited";
  }
  const std::string what = error_of([&] { check_same_mesh(mesh, charts, world()); });
  EXPECT_TRUE(contains(what, "(differing: part names, charts)"));
}
