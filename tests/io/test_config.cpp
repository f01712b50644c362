// Configuration fail-safety: text the option parser cannot report, unreadable --config paths,
// --version, every numeric key and the postprocessing checked when read (apps/common, as the
// applications read them), the shipped configurations still accepted, and the keys' defaults
// those of the parameter structs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "accel/smoother_type.hpp"
#include "common/flow_options.hpp"
#include "common/poisson_options.hpp"
#include "io/config.hpp"
#include "parallel/communicator.hpp"

using namespace quilt;

namespace {

namespace fs = std::filesystem;

const std::string kConfigs = std::string(QUILT_SOURCE_DIR) + "/apps/configs/";

/// A scratch directory of this process, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir()
      : path_(fs::temp_directory_path() / ("quilt_test_config_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

/// config.parse() of `args` (after the program name) on a worker thread: a parse that hangs
/// (Boost.Program_options' message formatting loops on its own placeholders) ends the binary
/// with a failure after 30 s instead of blocking the suite. Returns what parse() threw.
std::exception_ptr parse_error(Config& config, const std::vector<std::string>& args) {
  auto done = std::make_shared<std::promise<std::exception_ptr>>();
  std::future<std::exception_ptr> result = done->get_future();
  std::thread([&config, args, done] {
    std::vector<std::string> strings{"quilt-test"};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : strings) argv.push_back(s.data());
    try {
      config.parse(static_cast<int>(argv.size()), argv.data());
      done->set_value(nullptr);
    } catch (...) {
      done->set_value(std::current_exception());
    }
  }).detach();
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: Config::parse did not return within 30 s (hang)\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
  return result.get();
}

/// The message of the ConfigError `f` throws; "(no ConfigError)" if it throws none.
std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

/// s in single quotes, as the messages show keys, values and paths.
std::string in_quotes(const std::string& s) {
  std::string q = "'";
  q += s;  // not "'" + s: GCC 12 warns (-Wrestrict) on that wrongly
  q += '\'';
  return q;
}

std::string error_of(const std::exception_ptr& e) {
  return config_error([&] {
    if (e) std::rethrow_exception(e);
  });
}

std::string poisson_error(const std::vector<std::string>& args) {
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  return error_of(parse_error(config, args));
}

// --- text the option parser's messages cannot show ----------------------------------------

const char* const kPlaceholders[] = {"%value%",  "%canonical_option%", "%original_token%",
                                     "%option%", "%prefix%",           "%invalid_line%"};

TEST(ConfigPlaceholders, InIniValuesEndWithAnErrorNamingTheKey) {
  const ScratchDir dir;
  for (const std::string p : kPlaceholders) {
    const std::string file = dir.write("value.ini", "[mesh]\nlevel = " + p + "\n");
    const std::string what = poisson_error({"--config", file});
    EXPECT_NE(what.find("'mesh.level'"), std::string::npos) << p << ": " << what;
    EXPECT_NE(what.find(in_quotes(p)), std::string::npos) << p << ": " << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << p << ": " << what;
  }
}

TEST(ConfigPlaceholders, InIniKeysSectionsAndBadLinesEndWithAnError) {
  const ScratchDir dir;
  for (const std::string p : kPlaceholders) {
    for (const std::string& text : {"[mesh]\n" + p + " = 1\n", "[" + p + "]\nlevel = 1\n",
                                    "[mesh]\n" + p + "\n", "mesh.level=3 " + p + "\n"}) {
      const std::string file = dir.write("key.ini", text);
      const std::string what = poisson_error({"--config", file});
      EXPECT_NE(what.find(p), std::string::npos) << text << ": " << what;
      EXPECT_NE(what.find(file), std::string::npos) << text << ": " << what;
    }
  }
}

TEST(ConfigPlaceholders, OnTheCommandLineEndWithAnErrorNamingTheKey) {
  for (const std::string p : kPlaceholders) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--mesh.level=" + p}, {"--mesh.level", p}, {"--solver.type=cg" + p}}) {
      const std::string what = poisson_error(args);
      EXPECT_NE(what.find(p), std::string::npos) << args.back() << ": " << what;
      EXPECT_TRUE(what.find("'mesh.level'") != std::string::npos ||
                  what.find("'solver.type'") != std::string::npos)
          << what;
    }
    const std::string what = poisson_error({"--" + p + "=1"});
    EXPECT_NE(what.find(in_quotes(p)), std::string::npos) << what;
  }
}

TEST(ConfigPlaceholders, PercentSignsOtherwiseAndInCommentsAreValues) {
  const ScratchDir dir;
  const std::string file = dir.write(
      "percent.ini", "# %value% in a comment\n[mesh]\nfile = 50%-a%20b%%.msh # %value%\n");
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  EXPECT_EQ(error_of(parse_error(config, {"--config", file})), "(no ConfigError)");
  EXPECT_EQ(config.get<std::string>("mesh.file"), "50%-a%20b%%.msh");
}

// --- --config paths -------------------------------------------------------------------------

TEST(ConfigFile, ADirectoryIsAnErrorNamingThePath) {
  const ScratchDir dir;
  const std::string what = poisson_error({"--config", dir.path()});
  EXPECT_NE(what.find(in_quotes(dir.path())), std::string::npos) << what;
  EXPECT_NE(what.find("directory"), std::string::npos) << what;
}

TEST(ConfigFile, AMissingFileIsAnErrorNamingThePath) {
  const ScratchDir dir;
  const std::string missing = dir.path() + "/missing.ini";
  const std::string what = poisson_error({"--config", missing});
  EXPECT_NE(what.find(in_quotes(missing)), std::string::npos) << what;
}

// --- paths in the configuration ---------------------------------------------------------------

/// The test's working directory for its lifetime, the previous one again at its end.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& directory) : previous_(fs::current_path()) {
    fs::current_path(directory);
  }
  ~WorkingDirectory() {
    std::error_code ec;
    fs::current_path(previous_, ec);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path previous_;
};

/// The mesh file quilt-poisson reads with `args`, or the ConfigError's message.
std::string poisson_mesh(const std::vector<std::string>& args) {
  const Communicator comm;
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  std::string mesh;
  std::string error = error_of(parse_error(config, args));
  if (error == "(no ConfigError)")
    error = config_error([&] { mesh = read_poisson_params(config, comm).mesh_file; });
  return error == "(no ConfigError)" ? mesh : error;
}

bool same_file(const std::string& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

/// A case folder in `dir`: case/run.ini naming `mesh_file`, and the meshes case/mesh.msh and
/// mesh.msh (their content is not read here).
void write_case(const ScratchDir& dir, const std::string& mesh_file) {
  fs::create_directories(dir.path() + "/case");
  dir.write("case/run.ini", "[mesh]\nfile = " + mesh_file + "\n");
  dir.write("case/mesh.msh", "");
  dir.write("mesh.msh", "");
}

TEST(ConfigPaths, TheSameConfigurationReadsTheSameMeshFromAnyWorkingDirectory) {
  const fs::path source = QUILT_SOURCE_DIR;
  const fs::path mesh = source / "meshes/unit_square_4x2.msh";
  const ScratchDir elsewhere;
  const std::pair<fs::path, std::string> runs[] = {
      {source, "apps/configs/poisson.ini"},
      {source / "apps", "configs/poisson.ini"},
      {elsewhere.path(), (source / "apps/configs/poisson.ini").string()}};
  for (const auto& [directory, config] : runs) {
    const WorkingDirectory in(directory);
    const std::string read = poisson_mesh({"--config", config});
    EXPECT_TRUE(same_file(read, mesh)) << directory << ": " << read;
  }
  // From the repository root the mesh reads as it did when paths were relative to it.
  const WorkingDirectory in(source);
  EXPECT_EQ(poisson_mesh({"--config", "apps/configs/poisson.ini"}), "meshes/unit_square_4x2.msh");
}

TEST(ConfigPaths, AMeshOnTheCommandLineIsRelativeToTheWorkingDirectory) {
  const ScratchDir dir;
  write_case(dir, "mesh.msh");
  const WorkingDirectory in(dir.path());
  EXPECT_EQ(poisson_mesh({"--config", "case/run.ini"}), "case/mesh.msh");
  EXPECT_EQ(poisson_mesh({"--config", dir.path() + "/case/run.ini"}),
            dir.path() + "/case/mesh.msh");
  EXPECT_EQ(poisson_mesh({"--config", "case/run.ini", "--mesh.file=mesh.msh"}), "mesh.msh");
  EXPECT_EQ(poisson_mesh({"--mesh.file=case/mesh.msh"}), "case/mesh.msh");
}

TEST(ConfigPaths, AnAbsoluteMeshPathIsTakenAsItIs) {
  const ScratchDir dir;
  write_case(dir, dir.path() + "/mesh.msh");
  EXPECT_EQ(poisson_mesh({"--config", dir.path() + "/case/run.ini"}), dir.path() + "/mesh.msh");
}

TEST(ConfigPaths, AMissingMeshIsAnErrorNamingTheResolvedPath) {
  const ScratchDir dir;
  write_case(dir, "missing.msh");
  const std::string from_file = poisson_mesh({"--config", dir.path() + "/case/run.ini"});
  EXPECT_NE(
      from_file.find("key 'mesh.file': cannot open " + in_quotes(dir.path() + "/case/missing.msh") +
                     " ('missing.msh' relative to the configuration file's folder): "),
      std::string::npos)
      << from_file;
  const WorkingDirectory in(dir.path());
  const std::string from_command_line =
      poisson_mesh({"--config", "case/run.ini", "--mesh.file=nowhere.msh"});
  EXPECT_NE(from_command_line.find("key 'mesh.file': cannot open 'nowhere.msh': "),
            std::string::npos)
      << from_command_line;
  Config flow("quilt-flow", "test");
  declare_flow_keys(flow);
  ASSERT_EQ(error_of(parse_error(flow, {"--config", "case/run.ini"})), "(no ConfigError)");
  const std::string from_flow = config_error([&] { read_flow_options(flow, Communicator()); });
  EXPECT_NE(from_flow.find("cannot open 'case/missing.msh'"), std::string::npos) << from_flow;
}

// --- --version --------------------------------------------------------------------------------

TEST(ConfigVersion, PrintsTheProjectVersionAndStops) {
  EXPECT_STRNE(Config::version(), "");
  EXPECT_STRNE(Config::version(), "unknown");  // QUILT_VERSION from project(... VERSION)
  for (const char* program : {"quilt-poisson", "quilt-flow"}) {
    Config config(program, "test");
    declare_poisson_keys(config);
    std::string a0 = program, a1 = "--version";
    char* argv[] = {a0.data(), a1.data()};
    testing::internal::CaptureStdout();
    const bool go_on = config.parse(2, argv);
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_FALSE(go_on);
    EXPECT_EQ(out, std::string(program) + " (Quilt) " + Config::version() + "\n");
  }
}

// --- numeric keys ---------------------------------------------------------------------------

struct BadValue {
  const char* app;    // "poisson" or "flow" (with cavity.ini, which gives the boundary)
  const char* arg;    // the command-line setting
  const char* key;    // the key the message must name
  const char* shown;  // the value as the message must show it
};

const BadValue kBadValues[] = {
    {"poisson", "--mesh.level=-1", "mesh.level", "-1"},
    {"poisson", "--mesh.level=13", "mesh.level", "13"},
    {"poisson", "--solver.rel_tol=10", "solver.rel_tol", "10"},
    {"poisson", "--solver.rel_tol=1", "solver.rel_tol", "1"},
    {"poisson", "--solver.rel_tol=0", "solver.rel_tol", "0"},
    {"poisson", "--solver.rel_tol=nan", "solver.rel_tol", "nan"},
    {"poisson", "--solver.abs_tol=-1e-9", "solver.abs_tol", "-1e-09"},
    {"poisson", "--solver.abs_tol=inf", "solver.abs_tol", "inf"},
    {"poisson", "--solver.max_iter=0", "solver.max_iter", "0"},
    {"poisson", "--solver.restart=0", "solver.restart", "0"},
    {"poisson", "--solver.coarse.threshold=-1", "solver.coarse.threshold", "-1"},
    {"poisson", "--solver.coarse.threshold=0", "solver.coarse.threshold", "0"},
    {"poisson", "--solver.mg.pre_smooth=-1", "solver.mg.pre_smooth", "-1"},
    {"poisson", "--solver.mg.post_smooth=-1", "solver.mg.post_smooth", "-1"},
    {"poisson", "--solver.mg.damping=0", "solver.mg.damping", "0"},
    {"poisson", "--solver.mg.damping=nan", "solver.mg.damping", "nan"},
    {"poisson", "--solver.local.pre_smooth=-1", "solver.local.pre_smooth", "-1"},
    {"poisson", "--solver.local.post_smooth=-2", "solver.local.post_smooth", "-2"},
    {"poisson", "--solver.local.damping=2", "solver.local.damping", "2"},
    {"poisson", "--solver.local.damping=-inf", "solver.local.damping", "-inf"},
    {"poisson", "--solver.local.cycles=0", "solver.local.cycles", "0"},
    {"poisson", "--solver.local.digits=inf", "solver.local.digits", "inf"},
    {"poisson", "--solver.local.coarse_level=-1", "solver.local.coarse_level", "-1"},
    {"poisson", "--solver.local.device=-2", "solver.local.device", "-2"},
    {"flow", "--mesh.level=0", "mesh.level", "0"},
    {"flow", "--mesh.level=12", "mesh.level", "12"},
    {"flow", "--solver.rel_tol=10", "solver.rel_tol", "10"},
    {"flow", "--solver.rel_tol=-0.1", "solver.rel_tol", "-0.1"},
    {"flow", "--solver.max_iter=0", "solver.max_iter", "0"},
    {"flow", "--solver.restart=-3", "solver.restart", "-3"},
    {"flow", "--solver.coarse.threshold=-1", "solver.coarse.threshold", "-1"},
    {"flow", "--solver.velocity.damping=2.5", "solver.velocity.damping", "2.5"},
    {"flow", "--flow.viscosity=-1", "flow.viscosity", "-1"},
    {"flow", "--flow.viscosity=inf", "flow.viscosity", "inf"},
    {"flow", "--flow.re=inf", "flow.re", "inf"},
    {"flow", "--flow.re=nan", "flow.re", "nan"},
    {"flow", "--flow.re=0", "flow.re", "0"},
    {"flow", "--flow.re=-100", "flow.re", "-100"},
    {"flow", "--flow.continuation=100 -400", "flow.continuation", "-400"},
    {"flow", "--flow.reference_velocity=0", "flow.reference_velocity", "0"},
    {"flow", "--flow.reference_length=nan", "flow.reference_length", "nan"},
    {"flow", "--stabilisation.supg=-1", "stabilisation.supg", "-1"},
    {"flow", "--stabilisation.pspg=0", "stabilisation.pspg", "0"},
    {"flow", "--nonlinear.max_iter=0", "nonlinear.max_iter", "0"},
    {"flow", "--nonlinear.rel_tol=0", "nonlinear.rel_tol", "0"},
    {"flow", "--nonlinear.rel_tol=inf", "nonlinear.rel_tol", "inf"},
    {"flow", "--nonlinear.abs_tol=-1", "nonlinear.abs_tol", "-1"},
    {"flow", "--nonlinear.abs_tol=nan", "nonlinear.abs_tol", "nan"},
    {"flow", "--nonlinear.damping=0", "nonlinear.damping", "0"},
    {"flow", "--nonlinear.damping=2", "nonlinear.damping", "2"},
    {"flow", "--nonlinear.newton_switch=1.5", "nonlinear.newton_switch", "1.5"},
    {"flow", "--nonlinear.pseudo_time_step=-0.05", "nonlinear.pseudo_time_step", "-0.05"},
    {"flow", "--nonlinear.pseudo_time_step_max=-1", "nonlinear.pseudo_time_step_max", "-1"},
    {"flow", "--postprocess.force_scale=inf", "postprocess.force_scale", "inf"},
    {"flow", "--postprocess.force_scale=nan", "postprocess.force_scale", "nan"},
};

/// The message of the ConfigError that parsing and reading `args` as `app` throws.
std::string read_error(const std::string& app, std::vector<std::string> args) {
  const Communicator comm;
  Config config("quilt-" + app, "test");
  if (app == "flow") {
    declare_flow_keys(config);
    args.push_back("--config=" + kConfigs + "cavity.ini");
  } else {
    declare_poisson_keys(config);
  }
  if (const std::exception_ptr e = parse_error(config, args)) return error_of(e);
  return config_error([&] {
    if (app == "flow")
      read_flow_options(config, comm);
    else
      read_poisson_params(config, comm);
  });
}

TEST(ConfigKeys, BadNumbersAreErrorsNamingTheKeyAndTheValue) {
  for (const BadValue& c : kBadValues) {
    const std::string what = read_error(c.app, {c.arg});
    EXPECT_NE(what.find(in_quotes(c.key)), std::string::npos)
        << c.app << " " << c.arg << ": " << what;
    EXPECT_NE(what.find(std::string("value ") + c.shown + " "), std::string::npos)
        << c.app << " " << c.arg << ": " << what;
  }
}

/// The options of quilt-flow run with `args`; a ConfigError fails the test.
FlowOptions flow_options(const std::vector<std::string>& args) {
  const Communicator comm;
  Config config("quilt-flow", "test");
  declare_flow_keys(config);
  FlowOptions o;
  EXPECT_EQ(error_of(parse_error(config, args)), "(no ConfigError)");
  EXPECT_EQ(config_error([&] { o = read_flow_options(config, comm); }), "(no ConfigError)");
  return o;
}

TEST(ConfigKeys, TheDefaultsAreAccepted) {
  const Communicator comm;
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  ASSERT_EQ(error_of(parse_error(config, {})), "(no ConfigError)");
  EXPECT_EQ(config_error([&] { read_poisson_params(config, comm); }), "(no ConfigError)");
}

TEST(ConfigKeys, TheShippedConfigurationsAreAccepted) {
  const Communicator comm;
  {
    Config config("quilt-poisson", "test");
    declare_poisson_keys(config);
    ASSERT_EQ(error_of(parse_error(config, {"--config", kConfigs + "poisson.ini"})),
              "(no ConfigError)");
    PoissonParams p;
    EXPECT_EQ(config_error([&] { p = read_poisson_params(config, comm); }), "(no ConfigError)");
    EXPECT_EQ(p.level, 7);
    EXPECT_EQ(p.coarse_threshold, 4000u);
    EXPECT_DOUBLE_EQ(p.krylov.rel_tol, 1e-8);
    // solver.local.smoother = auto: aditrigs wherever the elements do not pick Jacobi.
    EXPECT_TRUE(p.multigrid.auto_smoother);
    EXPECT_EQ(p.multigrid.local.smoother, accel::SmootherType::aditrigs);
  }
  for (const std::string name : {"cavity.ini", "dfg_2d1.ini", "dfg_re100_steady.ini"}) {
    SCOPED_TRACE(name);
    const FlowOptions o = flow_options({"--config", kConfigs + name});
    EXPECT_DOUBLE_EQ(o.params.nu, name == "cavity.ini" ? 0.01 : 0.001);
    EXPECT_DOUBLE_EQ(o.params.linear.rel_tol, 0.1);
    EXPECT_EQ(o.postprocessing.centerlines, name == "cavity.ini");
  }
}

TEST(ConfigKeys, TheDfgPostprocessingIsReadBeforeTheSolve) {
  const FlowPostprocessing post =
      flow_options({"--config", kConfigs + "dfg_2d1.ini"}).postprocessing;
  EXPECT_EQ(post.force_part, "cylinder");
  EXPECT_EQ(post.force_scale, 500.0);
  ASSERT_TRUE(post.pressure_points);
  EXPECT_EQ((*post.pressure_points)[0].x, 0.15);
  EXPECT_EQ((*post.pressure_points)[0].y, 0.2);
  EXPECT_EQ((*post.pressure_points)[1].x, 0.25);
  EXPECT_EQ((*post.pressure_points)[1].y, 0.2);
  ASSERT_TRUE(post.recirculation);
  EXPECT_EQ(post.recirculation->x0, 0.25);
  EXPECT_EQ(post.recirculation->x1, 1.0);
  EXPECT_EQ(post.recirculation->y0, 0.2);
}

struct BadPostprocessing {
  const char* arg;   // the command-line setting (with cavity.ini, a stationary run)
  const char* key;   // the key the message must name
  const char* what;  // what the message must say
};

// Found when the keys are read, not after the solve: a typo in a part costs no solve.
const BadPostprocessing kBadPostprocessing[] = {
    {"--postprocess.forces=cylinder", "postprocess.forces", "no boundary part 'cylinder'"},
    {"--postprocess.pressure_difference=0.1 0.2 0.3", "postprocess.pressure_difference",
     "'X1 Y1 X2 Y2'"},
    {"--postprocess.pressure_difference=0.1 0.2 0.3 x", "postprocess.pressure_difference",
     "list of numbers"},
    {"--postprocess.recirculation=0.25 1", "postprocess.recirculation", "'X0 X1 Y0'"},
    {"--postprocess.recirculation=0.25 1 0.2 0", "postprocess.recirculation", "'X0 X1 Y0'"},
    {"--postprocess.centerline_y=0.5 half", "postprocess.centerline_y", "list of numbers"},
    // Outside the unit square; evaluated there, the pressure difference would be NaN.
    {"--postprocess.pressure_difference=0.5 0.5 0.25 1.0000001", "postprocess.pressure_difference",
     "the point (0.25, 1.0000001) is not in the mesh"},
    {"--postprocess.recirculation=0.5 1.5 0.5", "postprocess.recirculation",
     "the point (1.5, 0.5) is not in the mesh"},
    {"--postprocess.centerline_x=0.5 -0.25", "postprocess.centerline_x",
     "the point (-0.25, 0.5) is not in the mesh"},
    // A stationary run (cavity.ini) writes no series or checkpoints: refused, not left unwritten.
    {"--series=series.csv", "series", "needs an instationary run"},
    {"--checkpoint-every=2", "checkpoint-every", "needs an instationary run"},
    {"--vtu-every=1", "vtu-every", "needs an instationary run"},
    {"--restart=flow.checkpoint", "restart", "needs an instationary run"},
    // Every time key is read, in a stationary run too.
    {"--time.mass=galerkin", "time.mass", "'galerkin' is not consistent or lumped"},
};

TEST(ConfigKeys, BadPostprocessingIsAnErrorNamingTheKey) {
  for (const BadPostprocessing& c : kBadPostprocessing) {
    const std::string what = read_error("flow", {c.arg});
    EXPECT_NE(what.find(in_quotes(c.key)), std::string::npos) << c.arg << ": " << what;
    EXPECT_NE(what.find(c.what), std::string::npos) << c.arg << ": " << what;
  }
}

// --- defaults: written once, in the parameter structs --------------------------------------

// a.FIELD == b.FIELD, the failure naming the field.
#define EXPECT_SAME(field) EXPECT_EQ(a.field, b.field) << #field

void expect_same_local(const accel::LocalSolverParams& a, const accel::LocalSolverParams& b) {
  EXPECT_SAME(target);
  EXPECT_SAME(precision);
  EXPECT_SAME(smoother);
  EXPECT_SAME(ordering);
  EXPECT_SAME(pre_smooth);
  EXPECT_SAME(post_smooth);
  EXPECT_SAME(damping);
  EXPECT_SAME(max_cycles);
  EXPECT_SAME(digits);
  EXPECT_SAME(device);
}

void expect_same_multigrid(const GlobalMultigridParams& a, const GlobalMultigridParams& b) {
  EXPECT_SAME(coarse_level);
  EXPECT_SAME(pre_smooth);
  EXPECT_SAME(post_smooth);
  EXPECT_SAME(damping);
  EXPECT_SAME(combination);
  EXPECT_SAME(local_coarse_level);
  EXPECT_SAME(auto_smoother);
  expect_same_local(a.local, b.local);
}

void expect_same_linear(const NavierStokesParams& a, const NavierStokesParams& b) {
  EXPECT_SAME(linear_method);
  EXPECT_SAME(linear.rel_tol);
  EXPECT_SAME(linear.abs_tol);
  EXPECT_SAME(linear.max_iter);
  EXPECT_SAME(linear.restart);
  EXPECT_SAME(linear.divergence);
  EXPECT_SAME(linear.fail_on_cap);
  expect_same_multigrid(a.multigrid, b.multigrid);
  EXPECT_SAME(velocity_smoother.type);
  EXPECT_SAME(velocity_smoother.ordering);
  EXPECT_SAME(velocity_smoother.damping);
  EXPECT_SAME(schur);
  EXPECT_SAME(lsc_scaling);
  EXPECT_SAME(velocity_cycles);
  EXPECT_SAME(coarse_threshold);
}

void expect_same_nonlinear(const NavierStokesParams& a, const NavierStokesParams& b) {
  EXPECT_SAME(level);
  EXPECT_SAME(nu);  // from flow.re and the reference velocity and length
  EXPECT_SAME(stokes);
  EXPECT_SAME(continuation);
  EXPECT_SAME(stabilisation.supg_scale);
  EXPECT_SAME(stabilisation.pspg_scale);
  EXPECT_SAME(stabilisation.element_size);
  EXPECT_SAME(stabilisation.viscous_residual);
  EXPECT_SAME(stabilisation.pressure);
  EXPECT_SAME(stabilisation.time_scale);
  EXPECT_SAME(nonlinear_rel_tol);
  EXPECT_SAME(nonlinear_abs_tol);
  EXPECT_SAME(nonlinear_max_iter);
  EXPECT_SAME(nonlinear_damping);
  EXPECT_SAME(nonlinear_method);
  EXPECT_SAME(newton_switch);
  EXPECT_SAME(pseudo_time_step);
  EXPECT_SAME(pseudo_time_step_max);
}

void expect_same_postprocessing(const FlowPostprocessing& a, const FlowPostprocessing& b) {
  EXPECT_SAME(centerlines);
  EXPECT_SAME(force_part);
  EXPECT_SAME(force_scale);
  EXPECT_SAME(pressure_points.has_value());
  EXPECT_SAME(recirculation.has_value());
}

#undef EXPECT_SAME

// A default written both in a key and in the struct drifts apart unnoticed; every key default
// is read from the struct instead, and this holds the keys to it, exactly (EXPECT_EQ on
// doubles: 0.01 from Re = 100 must be the struct's 1e-2 to the bit). Not compared: the mesh
// file (the app's default problem; NavierStokesParams has no mesh), the
// boundary conditions (no default: the one key given) and the centreline points (the cavity's
// Ghia points, the app's).
TEST(ConfigKeys, TheFlowKeysDefaultToTheParameterStructs) {
  const FlowOptions o = flow_options({"--boundary.condition=bottom noslip"});
  const FlowOptions defaults;
  expect_same_nonlinear(o.params, defaults.params);
  expect_same_linear(o.params, defaults.params);
  EXPECT_EQ(o.scale.velocity, defaults.scale.velocity);
  EXPECT_EQ(o.scale.length, defaults.scale.length);
  expect_same_postprocessing(o.postprocessing, defaults.postprocessing);
}

TEST(ConfigKeys, TheSolverKeysDefaultToTheMultigridStruct) {
  const Communicator comm;
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  ASSERT_EQ(error_of(parse_error(config, {})), "(no ConfigError)");
  PoissonParams p;
  ASSERT_EQ(config_error([&] { p = read_poisson_params(config, comm); }), "(no ConfigError)");
  expect_same_multigrid(p.multigrid, GlobalMultigridParams{});
  EXPECT_EQ(p.coarse_threshold, PoissonParams{}.coarse_threshold);
}

// Switching solver.local.target to cuda is the one key a user changes: the orderings follow the
// target unless named (and a named one the target lacks is an error naming the key).
TEST(ConfigKeys, TheOrderingsFollowTheTargetUnlessNamed) {
#ifndef QUILT_HAVE_CUDA
  GTEST_SKIP() << "built without the cuda target";
#endif
  const Communicator comm;
  const auto poisson = [&](std::vector<std::string> args) {
    Config config("quilt-poisson", "test");
    declare_poisson_keys(config);
    EXPECT_EQ(error_of(parse_error(config, args)), "(no ConfigError)");
    PoissonParams p;
    EXPECT_EQ(config_error([&] { p = read_poisson_params(config, comm); }), "(no ConfigError)");
    return p.multigrid.local;
  };
  EXPECT_EQ(poisson({}).ordering, accel::SweepOrder::lexicographic);
  EXPECT_EQ(poisson({"--solver.local.target=cuda"}).ordering, accel::SweepOrder::colour);
  EXPECT_EQ(poisson({"--solver.local.target=cuda", "--solver.local.smoother=ilu"}).ordering,
            accel::SweepOrder::lexicographic);
  EXPECT_EQ(poisson({"--solver.local.ordering=colour"}).ordering, accel::SweepOrder::colour);
  EXPECT_NE(
      read_error("poisson", {"--solver.local.target=cuda", "--solver.local.ordering=lexicographic"})
          .find(in_quotes("solver.local")),
      std::string::npos);

  const FlowOptions cuda =
      flow_options({"--config", kConfigs + "cavity.ini", "--solver.local.target=cuda"});
  EXPECT_EQ(cuda.params.multigrid.local.ordering, accel::SweepOrder::colour);
  // ILU, the velocity default, has one ordering on either target.
  EXPECT_EQ(cuda.params.velocity_smoother.ordering, accel::SweepOrder::lexicographic);
  const FlowOptions gs =
      flow_options({"--config", kConfigs + "cavity.ini", "--solver.local.target=cuda",
                    "--solver.velocity.smoother=gs"});
  EXPECT_EQ(gs.params.velocity_smoother.ordering, accel::SweepOrder::colour);
}

// solver.local.smoother = auto (the shipped poisson.ini) picks Jacobi or aditrigs per level, each
// with its own damping, so a damping key is refused with it; the flows do not use it.
TEST(ConfigKeys, TheAutoSmootherTakesNoDamping) {
  const std::string what =
      read_error("poisson", {"--solver.local.smoother=auto", "--solver.local.damping=0.8"});
  EXPECT_NE(what.find(in_quotes("solver.local.damping")), std::string::npos) << what;
  EXPECT_FALSE(flow_options({"--config", kConfigs + "cavity.ini"}).params.multigrid.auto_smoother);
}

// An unknown smoother's message lists what its key takes: auto only for solver.local.smoother.
TEST(ConfigKeys, AnUnknownSmootherIsAnErrorListingTheKeysValues) {
  const std::string local = read_error("poisson", {"--solver.local.smoother=trigs-z"});
  EXPECT_NE(local.find("(expected auto, " + accel::smoother_names() + ")"), std::string::npos)
      << local;
  const std::string velocity = read_error("flow", {"--solver.velocity.smoother=auto"});
  EXPECT_NE(velocity.find(in_quotes("solver.velocity.smoother")), std::string::npos) << velocity;
  EXPECT_NE(velocity.find("(expected " + accel::smoother_names() + ")"), std::string::npos)
      << velocity;
  EXPECT_EQ(accel::smoother_names(), "jacobi, gs, sor, ssor, trigs-x, trigs-y, aditrigs or ilu");
}

TEST(ConfigKeys, TheExportMatrixPathIsCheckedWhenTheKeysAreRead) {
  const std::string missing = "/nonexistent-quilt-directory/system.mtx";
  const std::string what = read_error("poisson", {"--export-matrix=" + missing});
  EXPECT_NE(what.find(in_quotes("export-matrix")), std::string::npos) << what;
  EXPECT_NE(what.find(in_quotes(missing)), std::string::npos) << what;
  EXPECT_NE(read_error("poisson", {"--export-matrix="}).find("export-matrix"), std::string::npos);

  const Communicator comm;
  const ScratchDir dir;
  Config config("quilt-poisson", "test");
  declare_poisson_keys(config);
  ASSERT_EQ(error_of(parse_error(config, {"--export-matrix=" + dir.path() + "/a.mtx"})),
            "(no ConfigError)");
  PoissonParams p;
  ASSERT_EQ(config_error([&] { p = read_poisson_params(config, comm); }), "(no ConfigError)");
  EXPECT_EQ(p.export_matrix, dir.path() + "/a.mtx");
  EXPECT_EQ(PoissonParams{}.export_matrix, "") << "no export unless asked for";
}

}  // namespace
