// The results JSON (nlohmann::ordered_json) read back with nlohmann's parser: the same values as
// the structs it was built from (doubles bit for bit), members in the order they were set; the
// "config" section with each key's value as its declared type; and the documents ResultsReport
// writes for a run that succeeded ("status": "ok") or failed ("status": "failed", "error").
// One rank: the documents are built the same on every rank and written by rank 0.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "common/flow_options.hpp"
#include "flow/flow_report.hpp"
#include "io/config.hpp"
#include "io/json.hpp"
#include "io/output_test_support.hpp"
#include "io/results_report.hpp"
#include "mesh_files.hpp"
#include "parallel/communicator.hpp"
#include "solvers/poisson_report.hpp"

using namespace quilt;
using namespace quilt::test;

namespace {

namespace fs = std::filesystem;

/// `document` written as a results file holds it and parsed back.
Json read_back(const Json& document) {
  return Json::parse(json_text(document));
}

/// The keys of an object in their order.
std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> names;
  for (const auto& [key, value] : object.items()) names.push_back(key);
  return names;
}

/// Doubles whose shortest text is long, or that are easily rounded on the way: each must read
/// back bit for bit.
const double kAwkward[] = {
    0.1 + 0.2, 1.0 / 3.0, -1e-300, 5e-324, 1.7976931348623157e308, std::nextafter(1.0, 2.0)};

/// A parsed config file with the flow keys and `args` after it on the command line.
class FlowConfig {
 public:
  explicit FlowConfig(std::vector<std::string> args) : config_("quilt-flow", "test") {
    declare_flow_keys(config_);
    args.insert(args.begin(), {"quilt-flow", "--config", kCavity});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    config_.parse(static_cast<int>(argv.size()), argv.data());
  }
  const Config& operator*() const { return config_; }

 private:
  static constexpr const char* kCavity = QUILT_SOURCE_DIR "/apps/configs/cavity.ini";
  Config config_;
};

// --- the documents read back ------------------------------------------------------------------

NavierStokesParams small_cavity() {
  NavierStokesParams p;
  p.mesh_file = mesh_path("unit_square_4x2.msh");
  p.conditions = {"bottom noslip", "left noslip", "right noslip", "top velocity 1 0"};
  p.level = 2;
  p.nu = 1.0 / 100;
  p.linear.rel_tol = 0.1;
  p.linear.fail_on_cap = false;
  p.coarse_threshold = 200;
  return p;
}

/// Every optional quantity, with awkward values.
FlowQuantities awkward_quantities() {
  FlowQuantities q;
  q.kinetic_energy = kAwkward[0];
  q.divergence_l2 = kAwkward[1];
  q.centerlines =
      CenterlineProfiles{{{kAwkward[2], kAwkward[3]}, {0.5, kAwkward[4]}}, {{kAwkward[5], 0.0}}};
  q.forces = FlowForces{"cylinder", kAwkward[0], kAwkward[1], kAwkward[2], kAwkward[3]};
  q.pressure_difference = kAwkward[4];
  q.recirculation_length = kAwkward[5];
  return q;
}

void expect_profile(const Json& j, const Profile& profile) {
  ASSERT_EQ(j.size(), profile.size());
  for (std::size_t k = 0; k < profile.size(); ++k) {
    EXPECT_EQ(j[k][0].get<double>(), profile[k][0]);
    EXPECT_EQ(j[k][1].get<double>(), profile[k][1]);
  }
}

void expect_flow_run(const Json& j, const FlowRun& run, const NavierStokesResult& r) {
  EXPECT_EQ(j["problem"], "navier-stokes");
  EXPECT_EQ(j["version"], Config::version());
  EXPECT_EQ(j["mesh"], run.params.mesh_file);
  EXPECT_EQ(j["level"].get<int>(), r.level);
  EXPECT_EQ(j["coarse_level"].get<int>(), r.coarse_level);
  EXPECT_EQ(j["ranks"].get<int>(), run.ranks);
  EXPECT_EQ(j["dofs"].get<std::size_t>(), r.dofs);
  EXPECT_EQ(j["re"].get<double>(), run.scale.reynolds(run.params.nu));
  EXPECT_EQ(j["nu"].get<double>(), run.params.nu);
  EXPECT_EQ(j["converged"].get<bool>(), r.converged);
  EXPECT_EQ(j["nonlinear_iterations"].get<int>() + 1, static_cast<int>(r.steps.size()));
  EXPECT_EQ(j["linear_iterations"]["total"].get<int>(), total_linear_iterations(r));
  ASSERT_EQ(j["nonlinear_residuals"].size(), r.steps.size());
  for (std::size_t k = 0; k < r.steps.size(); ++k)
    EXPECT_EQ(j["nonlinear_residuals"][k].get<double>(), r.steps[k].residual);
}

void expect_flow_quantities(const Json& j, const FlowQuantities& q) {
  EXPECT_EQ(j["kinetic_energy"].get<double>(), q.kinetic_energy);
  EXPECT_EQ(j["divergence_l2"].get<double>(), q.divergence_l2);
  expect_profile(j["centerline_u"], q.centerlines->u);
  expect_profile(j["centerline_v"], q.centerlines->v);
  EXPECT_EQ(j["drag"].get<double>(), q.forces->drag);
  EXPECT_EQ(j["lift"].get<double>(), q.forces->lift);
  EXPECT_EQ(j["drag_surface"].get<double>(), q.forces->drag_surface);
  EXPECT_EQ(j["lift_surface"].get<double>(), q.forces->lift_surface);
  EXPECT_EQ(j["pressure_difference"].get<double>(), *q.pressure_difference);
  EXPECT_EQ(j["recirculation_length"].get<double>(), *q.recirculation_length);
}

void expect_flow_timings(const Json& j, const FlowTimings& t) {
  EXPECT_EQ(j["timings"]["total"].get<double>(), t.total);
  EXPECT_EQ(j["timings"]["setup"].get<double>(), t.setup);
  EXPECT_EQ(j["timings"]["assembly"].get<double>(), t.assembly);
  EXPECT_EQ(j["timings"]["linear"].get<double>(), t.linear);
  EXPECT_EQ(j["timings"]["local_solve"].get<double>(), t.local_solve);
  EXPECT_EQ(j["timings"]["coarse_solve"].get<double>(), t.coarse_solve);
  EXPECT_EQ(j["r_ass"].get<double>(), t.assembly / t.total);
  EXPECT_EQ(j["r_lin"].get<double>(), t.linear / t.total);
}

TEST(ResultsJson, FlowDocumentReadsBackAsTheStructsItCameFrom) {
  const Communicator comm;
  const NavierStokesParams params = small_cavity();
  const NavierStokesResult r = solve_navier_stokes(params, comm);
  const FlowRun run{params, ReynoldsScale{}, comm.size()};
  const FlowQuantities q = awkward_quantities();
  const Json document = flow_results_json(run, r, q);
  const Json parsed = read_back(document);
  EXPECT_EQ(parsed, document);  // ordered_json: the same members in the same order
  EXPECT_EQ(keys(parsed), keys(document));
  expect_flow_run(parsed, run, r);
  expect_flow_quantities(parsed, q);
  expect_flow_timings(parsed, r.timings);
}

TEST(ResultsJson, PoissonDocumentReadsBackAsTheStructsItCameFrom) {
  PoissonParams params;
  params.mesh_file = "meshes/unit_square_4x2.msh";
  PoissonResult r;
  r.dofs = 4294967297;  // beyond 32 bits
  r.level = 7;
  r.solve.iterations = 12;
  r.solve.converged = true;
  r.solve.initial_residual = kAwkward[4];
  r.solve.final_residual = kAwkward[3];
  r.solve.history = std::vector<double>(std::begin(kAwkward), std::end(kAwkward));
  r.l2_error = kAwkward[0];
  r.h1_error = kAwkward[1];
  r.checksum = 0xfedcba9876543210ULL;
  r.timings = {kAwkward[0], kAwkward[1], kAwkward[4], kAwkward[2], kAwkward[3], kAwkward[5]};
  const Json parsed = read_back(poisson_results_json(params, r));
  EXPECT_EQ(keys(parsed).front(), "problem");
  EXPECT_EQ(parsed["version"], Config::version());
  EXPECT_EQ(parsed["converged"].get<bool>(), true);
  EXPECT_EQ(parsed["dofs"].get<std::size_t>(), r.dofs);
  EXPECT_EQ(parsed["iterations"].get<int>(), 12);
  EXPECT_EQ(parsed["final_relative_residual"].get<double>(), r.solve.relative_residual());
  EXPECT_EQ(parsed["residual_history"].get<std::vector<double>>(), r.solve.history);
  EXPECT_EQ(parsed["l2_error"].get<double>(), r.l2_error);
  EXPECT_EQ(parsed["h1_error"].get<double>(), r.h1_error);
  EXPECT_EQ(parsed["checksum"], "fedcba9876543210");
  EXPECT_EQ(parsed["timings"]["rhs"].get<double>(), r.timings.rhs);
  EXPECT_EQ(parsed["timings"]["coarse_solve"].get<double>(), r.timings.coarse_solve);
}

TEST(ResultsJson, NonFiniteNumbersAndBytesOutsideUtf8AreWrittenAnyway) {
  Json j = Json::object();
  j["inf"] = std::numeric_limits<double>::infinity();
  j["nan"] = std::nan("");
  j["error"] = "cannot open '\xff.msh'";
  const Json parsed = read_back(j);
  EXPECT_TRUE(parsed["inf"].is_null());
  EXPECT_TRUE(parsed["nan"].is_null());
  EXPECT_EQ(parsed["error"], "cannot open '\xef\xbf\xbd.msh'");  // U+FFFD
}

// --- the configuration section ------------------------------------------------------------------

TEST(ResultsJson, ConfigSectionHoldsEveryKeyAsItsType) {
  const FlowConfig config({"--mesh.level=3", "--flow.stokes=true", "--nonlinear.rel_tol=1e-10",
                           "--results", "out.json"});
  const Json section = read_back(config_json(*config));
  EXPECT_EQ(section, config_json(*config));
  EXPECT_EQ(section["mesh.level"], 3);            // command line
  EXPECT_EQ(section["nonlinear.max_iter"], 200);  // the file
  EXPECT_EQ(section["solver.restart"], 100);      // the file
  EXPECT_EQ(section["flow.stokes"], true);        // a bool
  EXPECT_EQ(section["nonlinear.rel_tol"].get<double>(), 1e-10);
  EXPECT_EQ(section["solver.local.target"], "cpu");  // a string
  EXPECT_EQ(section["results"], "out.json");
  EXPECT_TRUE(section["vtu"].is_null());  // not given
  EXPECT_EQ(section["boundary.condition"],
            Json({"bottom noslip", "left noslip", "right noslip", "top velocity 1 0"}));
  EXPECT_FALSE(section.contains("help"));
  EXPECT_FALSE(section.contains("version"));
  // Every other key, in declaration order.
  std::vector<std::string> declared;
  for (const auto& [key, value] : (*config).settings())
    if (key != "help" && key != "version") declared.push_back(key);
  EXPECT_EQ(keys(section), declared);
}

// --- the documents of a run ----------------------------------------------------------------

/// A report past check_output for the cavity with `args` and --results `results`.
ResultsReport checked_report(std::vector<std::string> args, const std::string& results) {
  args.insert(args.end(), {"--results", results});
  ResultsReport report;
  report.check_output(*FlowConfig(args), "navier-stokes", Communicator());
  return report;
}

TEST(ResultsReport, SuccessHasStatusOkFirstAndTheConfigurationLast) {
  const Communicator comm;
  const TempDir dir;
  ResultsReport report = checked_report({"--mesh.level=3"}, dir.file("r.json"));
  Json results = Json::object();
  results["problem"] = "navier-stokes";
  results["kinetic_energy"] = kAwkward[1];
  report.write(results, comm);
  const Json file = Json::parse(contents(dir.file("r.json")));
  EXPECT_EQ(keys(file),
            (std::vector<std::string>{"status", "problem", "kinetic_energy", "config"}));
  EXPECT_EQ(file["status"], "ok");
  EXPECT_EQ(file["kinetic_energy"].get<double>(), kAwkward[1]);
  EXPECT_EQ(file["config"]["mesh.level"], 3);
}

TEST(ResultsReport, FailureBeforeTheResultsHoldsTheErrorVersionAndConfiguration) {
  const TempDir dir;
  const ResultsReport report = checked_report({"--nonlinear.max_iter=1"}, dir.file("r.json"));
  EXPECT_EQ(report.write_failure("no convergence \"here\"\n"), "");
  const Json file = Json::parse(contents(dir.file("r.json")));
  EXPECT_EQ(keys(file), (std::vector<std::string>{"status", "error", "problem", "version",
                                                  "converged", "config"}));
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["error"], "no convergence \"here\"\n");
  EXPECT_EQ(file["problem"], "navier-stokes");
  EXPECT_EQ(file["version"], Config::version());
  EXPECT_EQ(file["converged"], false);
  EXPECT_EQ(file["config"]["nonlinear.max_iter"], 1);
}

TEST(ResultsReport, FailureAfterTheResultsKeepsThem) {
  const Communicator comm;
  const TempDir dir;
  ResultsReport report = checked_report({}, dir.file("r.json"));
  Json results = Json::object();
  results["converged"] = true;
  results["drag"] = kAwkward[0];
  report.write(results, comm);
  EXPECT_EQ(report.write_failure("--vtu: disk full"), "");
  const Json file = Json::parse(contents(dir.file("r.json")));
  EXPECT_EQ(keys(file),
            (std::vector<std::string>{"status", "error", "converged", "drag", "config"}));
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["drag"].get<double>(), kAwkward[0]);
}

TEST(ResultsReport, NothingIsWrittenWithoutAUsableResultsPath) {
  const Communicator comm;
  const TempDir dir;
  ResultsReport unchecked;  // the failure came before the path was checked
  EXPECT_EQ(unchecked.write_failure("bad key"), "");
  ResultsReport without;  // no --results
  without.check_output(*FlowConfig({}), "navier-stokes", comm);
  EXPECT_EQ(without.write_failure("bad key"), "");
  // The results could not be written: the error is not written there either.
  fs::create_directory(dir.file("sub"));
  ResultsReport report = checked_report({}, dir.file("sub/r.json"));
  fs::remove(dir.file("sub"));
  EXPECT_NE(io_error([&] { report.write(Json::object(), comm); }), "(no IoError)");
  EXPECT_EQ(report.write_failure("cannot write"), "");
  EXPECT_FALSE(fs::exists(dir.file("sub")));
  // An unusable path is found by check_output, which arms nothing.
  ResultsReport bad;
  EXPECT_NE(io_error([&] {
              bad.check_output(*FlowConfig({"--results", dir.file("gone/r.json")}), "navier-stokes",
                               comm);
            }),
            "(no IoError)");
  EXPECT_EQ(bad.write_failure("later"), "");
  EXPECT_FALSE(fs::exists(dir.file("gone")));
}

}  // namespace
