// The applications' results files (apps/common/mpi_main, io/results_report), run as a user runs
// them, alone and under mpirun at 2 ranks: a run that fails after the output paths were checked
// (no convergence, a key out of range) exits nonzero, prints its error once and leaves a results
// file with "status": "failed" and the error; a successful one has "status": "ok" and the
// configuration with the keys given on the command line; a results path that is unusable, or a
// configuration that cannot be parsed, leaves the path as it was.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/json.hpp"
#include "io/output_test_support.hpp"

using namespace quilt;
using namespace quilt::test;

namespace {

namespace fs = std::filesystem;

struct Finished {
  int status = -1;     ///< the exit status (-1: ended by a signal)
  std::string errors;  ///< what it printed to stderr
};

/// Runs `command` (from the source tree: the shipped configurations and meshes are named
/// relative to it), its stdout and stderr going to files in `dir`.
Finished run(const TempDir& dir, const std::string& command) {
  const std::string errors = dir.file("stderr");
  const int raw = std::system((command + " > " + dir.file("stdout") + " 2> " + errors).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, contents(errors)};
}

/// quilt-flow on the cavity at level 2, on `ranks` ranks (1: alone, without mpirun).
std::string flow(int ranks, const std::string& args) {
  const std::string app =
      std::string(QUILT_FLOW) + " --config apps/configs/cavity.ini " + "--mesh.level=2 " + args;
  return ranks == 1 ? app : std::string(QUILT_MPIEXEC) + " -np 2 --oversubscribe " + app;
}

std::string poisson(int ranks, const std::string& args) {
  const std::string app =
      std::string(QUILT_POISSON) + " --config apps/configs/poisson.ini " + "--mesh.level=3 " + args;
  return ranks == 1 ? app : std::string(QUILT_MPIEXEC) + " -np 2 --oversubscribe " + app;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

/// The run failed with `message` printed once, and its results file says so.
void expect_failed(const Finished& run, const std::string& results, const std::string& message) {
  EXPECT_NE(run.status, 0);
  EXPECT_EQ(count(run.errors, message), 1u) << run.errors;
  EXPECT_EQ(count(run.errors, "error on rank"), 1u) << run.errors;
  ASSERT_TRUE(fs::exists(results)) << run.errors;
  const Json file = Json::parse(contents(results));
  EXPECT_EQ(file["status"], "failed");
  EXPECT_TRUE(contains(file["error"].get<std::string>(), message)) << file["error"];
  EXPECT_EQ(file["version"].get<std::string>().empty(), false);
  EXPECT_EQ(file["converged"], false);
  EXPECT_TRUE(file["config"].is_object());
}

TEST(ResultsFile, FlowWithoutConvergenceLeavesTheError) {
  for (const int ranks : {1, 2}) {
    const TempDir dir;
    const std::string results = dir.file("r.json");
    std::ofstream(results) << "{\"previous\": \"results\"}\n";
    const Finished done = run(dir, flow(ranks, "--nonlinear.max_iter=1 --results " + results));
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    expect_failed(done, results, "no convergence in nonlinear.max_iter = 1");
    const Json file = Json::parse(contents(results));
    EXPECT_EQ(file["problem"], "navier-stokes");
    EXPECT_EQ(file["config"]["nonlinear.max_iter"], 1);
  }
}

TEST(ResultsFile, PoissonWithAnImpossibleToleranceLeavesTheError) {
  for (const int ranks : {1, 2}) {
    const TempDir dir;
    const std::string results = dir.file("r.json");
    const Finished done = run(
        dir, poisson(ranks, "--solver.rel_tol=1e-300 --solver.max_iter=2 --results " + results));
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    expect_failed(done, results, "no convergence in solver.max_iter = 2");
    const Json file = Json::parse(contents(results));
    EXPECT_EQ(file["problem"], "poisson");
    EXPECT_EQ(file["config"]["solver.rel_tol"].get<double>(), 1e-300);
  }
}

TEST(ResultsFile, AKeyOutOfRangeLeavesTheErrorNamingIt) {
  const TempDir dir;
  const std::string results = dir.file("r.json");
  const Finished done = run(dir, poisson(2, "--solver.restart=0 --results " + results));
  expect_failed(done, results, "key 'solver.restart'");
}

TEST(ResultsFile, SuccessHasStatusOkAndTheConfiguration) {
  for (const int ranks : {1, 2}) {
    const TempDir dir;
    const std::string results = dir.file("r.json");
    const Finished done = run(dir, poisson(ranks, "--solver.mg.damping=0.65 --results " + results));
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    EXPECT_EQ(done.status, 0) << done.errors;
    const Json file = Json::parse(contents(results));
    EXPECT_EQ(file["status"], "ok");
    EXPECT_FALSE(file.contains("error"));
    EXPECT_EQ(file["converged"], true);
    EXPECT_EQ(file["ranks"], ranks);
    EXPECT_EQ(file["config"]["mesh.level"], 3);
    EXPECT_EQ(file["config"]["solver.mg.damping"].get<double>(), 0.65);
    EXPECT_EQ(file["config"]["solver.type"], "cg");  // from the file
    EXPECT_EQ(file["config"]["results"], results);
  }
}

TEST(ResultsFile, AnUnusableResultsPathIsLeftAsItWas) {
  const TempDir dir;
  fs::create_directory(dir.file("taken"));
  const Finished done = run(dir, flow(2, "--results " + dir.file("taken")));
  EXPECT_NE(done.status, 0);
  EXPECT_EQ(count(done.errors, "--results '" + dir.file("taken") + "': is a directory"), 1u)
      << done.errors;
  EXPECT_TRUE(fs::is_empty(dir.file("taken")));
  const Finished missing = run(dir, flow(1, "--results " + dir.file("gone/r.json")));
  EXPECT_NE(missing.status, 0);
  EXPECT_FALSE(fs::exists(dir.file("gone")));
}

TEST(ResultsFile, AConfigurationThatCannotBeParsedWritesNothing) {
  // The error comes before the results path was checked: an existing file stays as it was.
  const TempDir dir;
  const std::string results = dir.file("r.json");
  std::ofstream(results) << "{\"previous\": \"results\"}\n";
  const Finished done = run(dir, flow(1, "--no.such_key=1 --results " + results));
  EXPECT_NE(done.status, 0);
  EXPECT_TRUE(contains(done.errors, "no.such_key")) << done.errors;
  EXPECT_EQ(contents(results), "{\"previous\": \"results\"}\n");
}

}  // namespace

// An instationary run (DFG 2D-3 on the coarse mesh, three steps of the shipped scheme) records
// one entry per time step, at the step times, and the maxima of its series.
TEST(ResultsFile, TransientRunHasItsTimeSeries) {
  const TempDir dir;
  const std::string results = dir.file("r.json");
  const std::string app = std::string(QUILT_MPIEXEC) + " -np 2 --oversubscribe " + QUILT_FLOW +
                          " --config apps/configs/dfg_2d3.ini --mesh.level=1 --time.step=0.5 "
                          "--time.end=1.5 --results " +
                          results;
  const Finished done = run(dir, app);
  ASSERT_EQ(done.status, 0) << done.errors;
  const Json file = Json::parse(contents(results));
  EXPECT_EQ(file["status"], "ok");
  const Json& series = file["time_series"];
  ASSERT_EQ(series["t"].size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(series["t"][k].get<double>(), 0.5 * (k + 1));
  ASSERT_EQ(series["drag"].size(), 3u);
  ASSERT_EQ(series["pressure_difference"].size(), 3u);
  double drag_max = series["drag"][0].get<double>();
  for (const auto& d : series["drag"]) drag_max = std::max(drag_max, d.get<double>());
  EXPECT_EQ(file["drag_max"].get<double>(), drag_max);
  // The inflow sin(pi t / 8) grows over [0, 1.5]: so does the drag.
  EXPECT_LT(series["drag"][0].get<double>(), series["drag"][2].get<double>());
  EXPECT_EQ(file["config"]["time.scheme"], "fs-theta");
}

namespace {

/// quilt-flow on DFG 2D-3 at level 1, time step 0.5, on 2 ranks.
std::string transient_flow(const std::string& args) {
  return std::string(QUILT_MPIEXEC) + " -np 2 --oversubscribe " + QUILT_FLOW +
         " --config apps/configs/dfg_2d3.ini --mesh.level=1 --time.step=0.5 " + args;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

// The outputs of an instationary run: the series as CSV (one row per step, the same numbers as
// the JSON), every k-th step as a PVTU listed in flow.pvd, and a checkpoint from which a
// restarted run reproduces the uninterrupted run's results and files. The uninterrupted run
// writes its checkpoints at the same steps: a checkpoint is where both set their preconditioner
// up afresh (flow/preconditioner_refresh.hpp).
TEST(ResultsFile, TransientRunWritesSeriesVtuCollectionAndCheckpoint) {
  const TempDir dir;
  const std::string whole = dir.file("whole.json"), series = dir.file("series.csv");
  const std::string vtu = dir.file("vtu"), checkpoint = dir.file("run.checkpoint");
  Finished done =
      run(dir, transient_flow("--time.end=2 --results " + whole + " --series " + series +
                              " --vtu " + vtu + " --vtu-every 2" + " --checkpoint " +
                              dir.file("whole.checkpoint") + " --checkpoint-every 2"));
  ASSERT_EQ(done.status, 0) << done.errors;
  const Json file = Json::parse(contents(whole));
  const std::vector<std::string> rows = lines_of(contents(series));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], "t,drag,lift,pressure_difference,nonlinear_steps,linear_iterations,seconds");
  EXPECT_EQ(std::stod(rows[4].substr(rows[4].find(',') + 1)),
            file["time_series"]["drag"][3].get<double>());
  const std::string pvd = contents(vtu + "/flow.pvd");
  EXPECT_EQ(count(pvd, "<DataSet "), 2u) << pvd;
  EXPECT_TRUE(contains(pvd, "timestep=\"1\" part=\"0\" file=\"flow_000002.pvtu\"")) << pvd;
  EXPECT_TRUE(contains(pvd, "timestep=\"2\" part=\"0\" file=\"flow_000004.pvtu\"")) << pvd;
  EXPECT_TRUE(fs::exists(vtu + "/flow_000004_1.vtu"));

  const std::string restarted = dir.file("restarted.json");
  done =
      run(dir, transient_flow("--time.end=1 --checkpoint " + checkpoint + " --checkpoint-every 2"));
  ASSERT_EQ(done.status, 0) << done.errors;
  done = run(dir, transient_flow("--time.end=2 --restart " + checkpoint + " --results " +
                                 restarted + " --series " + dir.file("restarted.csv")));
  ASSERT_EQ(done.status, 0) << done.errors;
  const Json again = Json::parse(contents(restarted));
  for (const char* key : {"t", "drag", "lift", "pressure_difference", "linear_iterations"})
    EXPECT_EQ(again["time_series"][key], file["time_series"][key]) << key;
  EXPECT_EQ(again["drag_max"], file["drag_max"]);
}

TEST(ResultsFile, TransientOutputKeysAreCheckedFirst) {
  const TempDir dir;
  Finished done = run(dir, transient_flow("--time.end=1 --vtu-every 2"));
  EXPECT_NE(done.status, 0);
  EXPECT_TRUE(contains(done.errors, "vtu-every")) << done.errors;
  done = run(dir, transient_flow("--time.end=1 --series " + dir.file("missing/s.csv")));
  EXPECT_NE(done.status, 0);
  EXPECT_TRUE(contains(done.errors, "series")) << done.errors;
  done = run(dir, transient_flow("--time.end=1 --restart " + dir.file("none.checkpoint")));
  EXPECT_NE(done.status, 0);
  EXPECT_TRUE(contains(done.errors, "restart")) << done.errors;
  done = run(dir, flow(1, "--restart " + dir.file("none.checkpoint")));
  EXPECT_NE(done.status, 0);
  EXPECT_TRUE(contains(done.errors, "restart")) << done.errors;
}
