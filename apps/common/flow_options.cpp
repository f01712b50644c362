#include "common/flow_options.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

#include "common/key_choice.hpp"
#include "common/scarc_options.hpp"
#include "flow/flow_postprocessing.hpp"
#include "flow/flow_problem.hpp"
#include "flow/step_size_control.hpp"
#include "io/output.hpp"
#include "mesh/msh_reader.hpp"
#include "parallel/rank_consistency.hpp"

namespace po = boost::program_options;

namespace quilt {
namespace {

// Evaluation points of Ghia, Ghia & Shin (1982), Tables I and II: the vertical centreline
// x = 0.5 (u) and the horizontal centreline y = 0.5 (v) of their 129 x 129 grid.
constexpr const char* kGhiaY =
    "1.0000 0.9766 0.9688 0.9609 0.9531 0.8516 0.7344 0.6172 0.5000 0.4531 0.2813 0.1719 "
    "0.1016 0.0703 0.0625 0.0547 0.0000";
constexpr const char* kGhiaX =
    "1.0000 0.9688 0.9609 0.9531 0.9453 0.9063 0.8594 0.8047 0.5000 0.2344 0.2266 0.1563 "
    "0.0938 0.0781 0.0703 0.0625 0.0000";

constexpr KeyChoice<ElementSize> kElementSizes[] = {{"isotropic", ElementSize::isotropic},
                                                    {"streamline", ElementSize::streamline}};
constexpr KeyChoice<ViscousResidual> kViscousResiduals[] = {
    {"reconstructed", ViscousResidual::reconstructed}, {"dropped", ViscousResidual::dropped}};
constexpr KeyChoice<PressureStabilisation> kPressureStabilisations[] = {
    {"pspg", PressureStabilisation::pspg},
    {"local_projection", PressureStabilisation::local_projection}};
constexpr KeyChoice<StabilisationTimeScale> kTimeScales[] = {
    {"step", StabilisationTimeScale::step}, {"none", StabilisationTimeScale::none}};
constexpr KeyChoice<NonlinearMethod> kNonlinearMethods[] = {{"picard", NonlinearMethod::picard},
                                                            {"newton", NonlinearMethod::newton},
                                                            {"auto", NonlinearMethod::automatic}};
// Not cg: the Navier-Stokes system is not symmetric.
constexpr KeyChoice<KrylovMethod> kLinearMethods[] = {{"bicgstab", KrylovMethod::bicgstab},
                                                      {"fgmres", KrylovMethod::fgmres}};
constexpr KeyChoice<SchurApproximation> kSchurApproximations[] = {
    {"pcd", SchurApproximation::pcd},
    {"lsc", SchurApproximation::lsc},
    {"mass", SchurApproximation::mass}};
constexpr KeyChoice<LscScaling> kLscScalings[] = {{"diagonal", LscScaling::diagonal},
                                                  {"mass", LscScaling::mass}};

// nonlinear.pseudo_time_step_max = 0 and time.step_max = 0 stand for no cap, an infinite
// maximum: a key's value must be finite.
double cap_as_key(double cap) {
  return std::isfinite(cap) ? cap : 0.0;
}
double cap_of_key(double key) {
  return key > 0 ? key : std::numeric_limits<double>::infinity();
}

void declare_problem_keys(Config& config, const NavierStokesParams& defaults) {
  const ReynoldsScale scale;
  // clang-format off
  config.keys()
    ("mesh.file", po::value<std::string>()->default_value("meshes/unit_square_4x2.msh"),
     "coarse mesh (Gmsh MSH 2.2 or 4.1 ASCII, quadrilaterals); a relative path is taken "
     "relative to the configuration file when set there, else to the working directory")
    ("mesh.level", po::value<int>()->default_value(defaults.level), "refinement level L")
    ("mesh.chart", po::value<std::vector<std::string>>()->composing(),
     "bind a boundary part to a chart: 'PART line' or 'PART circle CX CY R' (repeatable)")
    ("boundary.condition", po::value<std::vector<std::string>>()->composing(),
     "'PART noslip' | 'PART velocity UX UY' | 'PART parabolic UMAX Y0 Y1' | 'PART donothing' "
     "(repeatable, one per part; at corners the condition listed first wins)")
    ("flow.re", number_key(scale.reynolds(defaults.nu)),
     "Reynolds number U L / nu (used unless flow.viscosity > 0)")
    ("flow.reference_velocity", number_key(scale.velocity), "U in Re = U L / nu")
    ("flow.reference_length", number_key(scale.length), "L in Re = U L / nu")
    ("flow.viscosity", number_key(0.0), "nu; > 0 overrides flow.re")
    ("flow.stokes", po::value<bool>()->default_value(defaults.stokes), "drop the convection: Stokes flow")
    ("flow.continuation", po::value<std::string>()->default_value(""),
     "Reynolds numbers to pass through before flow.re, e.g. '100 400'")
    ("stabilisation.supg", number_key(defaults.stabilisation.supg_scale), "SUPG parameter scale")
    ("stabilisation.pspg", number_key(defaults.stabilisation.pspg_scale), "PSPG parameter scale (> 0)")
    ("stabilisation.element_size",
     po::value<std::string>()->default_value(choice_name(kElementSizes, defaults.stabilisation.element_size)),
     "h_K in tau_K, delta_K: isotropic (sqrt |K|) | streamline (extent along w)")
    ("stabilisation.viscous_residual",
     po::value<std::string>()->default_value(choice_name(kViscousResiduals, defaults.stabilisation.viscous_residual)),
     "-nu Laplace(u) in the SUPG/PSPG residual: reconstructed (recovered gradient) | dropped")
    ("stabilisation.pressure",
     po::value<std::string>()->default_value(choice_name(kPressureStabilisations, defaults.stabilisation.pressure)),
     "Q1/Q1 pressure stabilisation: pspg (residual-based) | local_projection (2x2 patches)")
    ("stabilisation.time_scale",
     po::value<std::string>()->default_value(choice_name(kTimeScales, defaults.stabilisation.time_scale)),
     "tau_K, delta_K of a time step: step (with the 2 / dt term) | none (the stationary ones)");
  // clang-format on
}

void declare_nonlinear_keys(Config& config, const NavierStokesParams& defaults) {
  // clang-format off
  config.keys()
    ("nonlinear.rel_tol", number_key(defaults.nonlinear_rel_tol), "relative nonlinear residual")
    ("nonlinear.abs_tol", number_key(defaults.nonlinear_abs_tol), "absolute nonlinear residual")
    ("nonlinear.max_iter", po::value<int>()->default_value(defaults.nonlinear_max_iter), "nonlinear step cap")
    ("nonlinear.damping", number_key(defaults.nonlinear_damping), "omega of the Picard update")
    ("nonlinear.method",
     po::value<std::string>()->default_value(choice_name(kNonlinearMethods, defaults.nonlinear_method)),
     "linearisation: picard (Oseen operator) | newton (Jacobian, line search) | auto (Picard, then "
     "Newton once the residual fell by nonlinear.newton_switch)")
    ("nonlinear.newton_switch", number_key(defaults.newton_switch),
     "auto: the relative residual |r_k| / |r_0| below which Newton takes over")
    ("nonlinear.pseudo_time_step", number_key(defaults.pseudo_time_step),
     "dtau_0 of the pseudo-time continuation (M / dtau added to the correction solve); 0: none")
    ("nonlinear.pseudo_time_step_max", number_key(cap_as_key(defaults.pseudo_time_step_max)),
     "cap on dtau as it grows with the defect reduction; 0: none");
  // clang-format on
}

void declare_linear_keys(Config& config, const NavierStokesParams& defaults) {
  const VelocitySmoother& velocity = defaults.velocity_smoother;
  // clang-format off
  config.keys()
    ("solver.type",
     po::value<std::string>()->default_value(choice_name(kLinearMethods, defaults.linear_method)),
     "linear solver: fgmres | bicgstab")
    ("solver.rel_tol", number_key(defaults.linear.rel_tol),
     "relative reduction per linear solve (0.1: one digit per nonlinear step)")
    ("solver.max_iter", po::value<int>()->default_value(defaults.linear.max_iter), "linear iteration cap per step")
    ("solver.restart", po::value<int>()->default_value(defaults.linear.restart), "fgmres restart length")
    ("solver.velocity.smoother", po::value<std::string>()->default_value(accel::to_string(velocity.type)),
     "local smoother of the velocity multigrid (solver.local.smoother: of the pressure Laplacian); "
     "the values of solver.local.smoother but auto")
    ("solver.velocity.ordering", po::value<std::string>()->default_value(kAutoOrdering),
     "sweep order of the velocity smoother: auto | lexicographic | colour (as solver.local.ordering)")
    ("solver.velocity.damping", po::value<double>(),
     "relaxation omega of the velocity smoother (default: 0.7 for jacobi, 1 for the others)")
    ("solver.schur", po::value<std::string>()->default_value(choice_name(kSchurApproximations, defaults.schur)),
     "pressure Schur complement approximation: pcd (pressure convection-diffusion) | lsc "
     "(least-squares commutator) | mass (nu M_p^-1)")
    ("solver.coarse_system.nodes", po::value<long long>()->default_value(static_cast<long long>(defaults.coarse_system_nodes)),
     "two-level preconditioner: the whole linearised system solved directly on the finest level "
     "H with at most this many global nodes (H <= L - 2 above 1000 nodes), before the block "
     "preconditioner (0: none)")
    ("solver.lsc.scaling", po::value<std::string>()->default_value(choice_name(kLscScalings, defaults.lsc_scaling)),
     "diagonal velocity weight Q of solver.schur = lsc: diagonal (diag(A)) | mass (lumped mass)")
    ("solver.velocity.cycles", po::value<int>()->default_value(defaults.velocity_cycles),
     "velocity multigrid cycles per component in each preconditioner application (1: the "
     "default; e.g. 8: a nearly exact velocity solve, to measure the Schur approximation alone)")
    ("solver.refresh_growth", number_key(defaults.refresh_growth),
     "time steps: the preconditioner (multigrids, coarse factorisations) of an earlier solve is "
     "kept until a solve needs this fraction more linear iterations per correction than the "
     "fewest since it was set up (0: set up at every solve)");
  // clang-format on
}

void declare_postprocess_keys(Config& config) {
  const FlowPostprocessing post;
  // clang-format off
  config.keys()
    ("postprocess.centerlines", po::value<bool>()->default_value(post.centerlines),
     "evaluate u(0.5, y) and v(x, 0.5) (driven cavity)")
    ("postprocess.centerline_y", po::value<std::string>()->default_value(kGhiaY),
     "y values of the u profile along x = 0.5")
    ("postprocess.centerline_x", po::value<std::string>()->default_value(kGhiaX),
     "x values of the v profile along y = 0.5")
    ("postprocess.forces", po::value<std::string>()->default_value(post.force_part),
     "boundary part whose drag and lift to report (volume and surface forms)")
    ("postprocess.force_scale", number_key(post.force_scale),
     "drag/lift coefficients = force_scale * force, e.g. 2 / (rho Ubar^2 D)")
    ("postprocess.pressure_difference", po::value<std::string>()->default_value(""),
     "'X1 Y1 X2 Y2': report p(X1, Y1) - p(X2, Y2)")
    ("postprocess.recirculation", po::value<std::string>()->default_value(""),
     "'X0 X1 Y0': recirculation length behind X0 along y = Y0 (searched up to X1)");
  // clang-format on
}

/// Mesh, boundary conditions, viscosity and stabilisation.
void read_problem(const Config& config, FlowOptions& o) {
  NavierStokesParams& p = o.params;
  p.mesh_file = config.input_file("mesh.file");
  p.level = config.get("mesh.level", Range<int>::closed(1, 11));
  if (config.has("mesh.chart")) p.charts = config.get<std::vector<std::string>>("mesh.chart");
  if (!config.has("boundary.condition"))
    config.fail("boundary.condition", "no boundary conditions given");
  p.conditions = config.get<std::vector<std::string>>("boundary.condition");
  o.scale.velocity = config.get("flow.reference_velocity", Range<double>::above(0));
  o.scale.length = config.get("flow.reference_length", Range<double>::above(0));
  const Range<double> reynolds = Range<double>::above(0);
  const double viscosity = config.get("flow.viscosity", Range<double>::at_least(0));  // 0: flow.re
  const double re = config.get("flow.re", reynolds);
  p.nu = viscosity > 0 ? viscosity : o.scale.viscosity(re);
  for (double re_k : config_numbers(config, "flow.continuation"))
    p.continuation.push_back(o.scale.viscosity(config.check("flow.continuation", re_k, reynolds)));
  p.stokes = config.get<bool>("flow.stokes");
  p.stabilisation.supg_scale = config.get("stabilisation.supg", Range<double>::at_least(0));
  // > 0: Q1/Q1 needs the pressure stabilisation.
  p.stabilisation.pspg_scale = config.get("stabilisation.pspg", Range<double>::above(0));
  p.stabilisation.element_size = read_choice(config, "stabilisation.element_size", kElementSizes);
  p.stabilisation.viscous_residual =
      read_choice(config, "stabilisation.viscous_residual", kViscousResiduals);
  p.stabilisation.pressure = read_choice(config, "stabilisation.pressure", kPressureStabilisations);
  p.stabilisation.time_scale = read_choice(config, "stabilisation.time_scale", kTimeScales);
}

void read_nonlinear(const Config& config, NavierStokesParams& p) {
  p.nonlinear_rel_tol = config.get("nonlinear.rel_tol", Range<double>::above(0));
  p.nonlinear_abs_tol = config.get("nonlinear.abs_tol", Range<double>::at_least(0));
  p.nonlinear_max_iter = config.get("nonlinear.max_iter", Range<int>::at_least(1));
  p.nonlinear_damping = config.get("nonlinear.damping", Range<double>::open(0, 2));
  p.nonlinear_method = read_choice(config, "nonlinear.method", kNonlinearMethods);
  p.newton_switch = config.get("nonlinear.newton_switch", Range<double>::open_closed(0, 1));
  p.pseudo_time_step = config.get("nonlinear.pseudo_time_step", Range<double>::at_least(0));
  p.pseudo_time_step_max =
      cap_of_key(config.get("nonlinear.pseudo_time_step_max", Range<double>::at_least(0)));
}

void read_linear(const Config& config, const Communicator& comm, NavierStokesParams& p) {
  p.linear_method = read_choice(config, "solver.type", kLinearMethods);
  p.linear.rel_tol = config.get("solver.rel_tol", Range<double>::open(0, 1));
  p.linear.max_iter = config.get("solver.max_iter", Range<int>::at_least(1));
  p.linear.restart = config.get("solver.restart", Range<int>::at_least(1));
  p.schur = read_choice(config, "solver.schur", kSchurApproximations);
  p.lsc_scaling = read_choice(config, "solver.lsc.scaling", kLscScalings);
  // Read as a signed number: -1 would wrap to 2^64 - 1 as an unsigned one.
  p.coarse_system_nodes = static_cast<std::size_t>(
      config.get("solver.coarse_system.nodes", Range<long long>::at_least(0)));
  p.velocity_cycles = config.get("solver.velocity.cycles", Range<int>::at_least(1));
  p.refresh_growth = config.get("solver.refresh_growth", Range<double>::at_least(0));
  const ScarcOptions scarc = read_scarc_options(config, comm);
  VelocitySmoother& v = p.velocity_smoother;
  v.type = parse_key(config, "solver.velocity.smoother", accel::parse_smoother);
  v.ordering =
      read_ordering(config, "solver.velocity.ordering", v.type, scarc.multigrid.local.target);
  if (config.has("solver.velocity.damping"))
    v.damping = config.get("solver.velocity.damping", kSmootherDampingRange);
  check_smoother_keys(config, v.type, v.ordering, v.damping, "solver.velocity");
  if (scarc.multigrid.local.target == accel::Target::cuda &&
      !accel::cuda_has_smoother(v.type, v.ordering))
    config.fail("solver.velocity.smoother",
                accel::to_string(v.type) +
                    " with solver.velocity.ordering = " + accel::to_string(v.ordering) +
                    " is not available on solver.local.target = cuda yet (it has jacobi, ilu, "
                    "and gs, sor, ssor, trigs-x, trigs-y, aditrigs with "
                    "solver.velocity.ordering = colour)");
  p.multigrid = scarc.multigrid;
  p.coarse_threshold = scarc.coarse_threshold;
}

/// The numbers of `key` if it has `count` of them (`form` names them), none if it is empty.
std::optional<std::vector<double>> numbers_of(const Config& config, const std::string& key,
                                              std::size_t count, const std::string& form) {
  std::vector<double> values = config_numbers(config, key);
  if (values.empty()) return std::nullopt;
  if (values.size() != count) config.fail(key, "expected '" + form + "'");
  return values;
}

FlowPostprocessing read_postprocessing(const Config& config, const std::string& mesh_file) {
  FlowPostprocessing post;
  post.centerlines = config.get<bool>("postprocess.centerlines");
  post.centerline_y = config_numbers(config, "postprocess.centerline_y");
  post.centerline_x = config_numbers(config, "postprocess.centerline_x");
  post.force_part = config.get<std::string>("postprocess.forces");
  post.force_scale = config.get("postprocess.force_scale", Range<double>::any());
  if (const auto dp = numbers_of(config, "postprocess.pressure_difference", 4, "X1 Y1 X2 Y2"))
    post.pressure_points = {{{(*dp)[0], (*dp)[1]}, {(*dp)[2], (*dp)[3]}}};
  if (const auto rc = numbers_of(config, "postprocess.recirculation", 3, "X0 X1 Y0"))
    post.recirculation = RecirculationLine{(*rc)[0], (*rc)[1], (*rc)[2]};
  // The one check that needs the mesh: read it only then.
  if (!post.force_part.empty())
    if (const std::string problem = postprocessing_problem(post, read_msh(mesh_file));
        !problem.empty())
      config.fail("postprocess.forces", problem);
  return post;
}

}  // namespace

// "steady" is no TimeScheme: the stationary solve, the default.
constexpr KeyChoice<TimeScheme> kTimeSchemes[] = {{"euler", TimeScheme::euler},
                                                  {"bdf2", TimeScheme::bdf2},
                                                  {"cn", TimeScheme::crank_nicolson},
                                                  {"fs-theta", TimeScheme::fractional_step_theta}};
constexpr KeyChoice<TimeMass> kTimeMasses[] = {{"consistent", TimeMass::consistent},
                                               {"lumped", TimeMass::lumped}};

void declare_time_keys(Config& config) {
  const TimeSteppingParams defaults;
  // clang-format off
  config.keys()
    ("time.scheme", po::value<std::string>()->default_value("steady"),
     "steady (the stationary problem) | euler | bdf2 | cn (Crank-Nicolson) | fs-theta "
     "(fractional-step theta): time steps from rest, t = 0 .. time.end")
    ("time.step", number_key(defaults.step),
     "time step dt (with time.tolerance: the first steps', then adapted)")
    ("time.end", number_key(defaults.end), "end time")
    ("time.tolerance", number_key(defaults.tolerance),
     "adaptive steps (euler, bdf2, cn): the estimated local error of each step in the velocity, "
     "relative to the velocity (L2), at most this; 0: fixed steps of time.step")
    ("time.step_max", number_key(cap_as_key(defaults.step_max)),
     "adaptive steps: the longest step (0: no limit), e.g. a tenth of a shedding period")
    ("time.mass", po::value<std::string>()->default_value(choice_name(kTimeMasses, defaults.mass)),
     "mass matrix of the time derivative: consistent (Galerkin) | lumped (row sums; less "
     "accurate for vortex shedding)");
  const TransientOutput output;
  config.keys()
    ("vtu-every", po::value<int>()->default_value(output.vtu_every),
     "instationary: VTU of every k-th time step in --vtu DIR, listed in DIR/flow.pvd (0: none)")
    ("series", po::value<std::string>(),
     "instationary: write the time series (t, drag, lift, ...) as CSV to this file")
    ("checkpoint", po::value<std::string>()->default_value("flow.checkpoint"),
     "instationary: the checkpoint file that --checkpoint-every writes")
    ("checkpoint-every", po::value<int>()->default_value(output.checkpoint_every),
     "instationary: write --checkpoint after every k-th time step (0: never)")
    ("restart", po::value<std::string>(),
     "instationary: continue from this checkpoint (same mesh, level, ranks, scheme and step)");
  // clang-format on
}

/// The output keys of an instationary run, the paths checked before any work.
TransientOutput read_transient_output(const Config& config) {
  TransientOutput o;
  o.vtu_every = config.get("vtu-every", Range<int>::at_least(0));
  if (o.vtu_every > 0) {
    if (!config.has("vtu")) config.fail("vtu-every", "needs --vtu DIR");
    o.vtu_directory = config.get<std::string>("vtu");
  }
  const auto output_path = [&](const char* key) {
    const std::string path = config.path(key);
    if (const std::string problem = output_file_problem(path); !problem.empty())
      config.fail(key, "'" + path + "': " + problem);
    return path;
  };
  if (config.has("series")) o.series_csv = output_path("series");
  o.checkpoint_every = config.get("checkpoint-every", Range<int>::at_least(0));
  if (o.checkpoint_every > 0) o.checkpoint = output_path("checkpoint");
  if (config.has("restart")) o.restart = config.input_file("restart");
  return o;
}

/// Every time key is checked, in a stationary run too (a typo there is no less a typo); the
/// checks that relate keys only in an instationary one.
std::optional<TimeSteppingParams> read_time(const Config& config) {
  const bool steady = config.get<std::string>("time.scheme") == "steady";
  TimeSteppingParams t;
  if (!steady) t.scheme = read_choice(config, "time.scheme", kTimeSchemes);
  t.step = config.get("time.step", Range<double>::above(0));
  t.end = config.get("time.end", Range<double>::above(0));
  t.tolerance = config.get("time.tolerance", Range<double>::at_least(0));
  t.step_max = cap_of_key(config.get("time.step_max", Range<double>::at_least(0)));
  t.mass = read_choice(config, "time.mass", kTimeMasses);
  if (steady) return std::nullopt;
  if (t.end < t.step) config.fail("time.end", "shorter than one time step (time.step)");
  if (t.tolerance > 0 && !has_local_error_estimate(t.scheme))
    config.fail("time.tolerance",
                "adaptive steps need time.scheme = euler, bdf2 or cn (the fractional-step theta "
                "scheme has no error estimate here)");
  return t;
}

namespace {

/// A stationary run refuses the instationary outputs rather than leave them unwritten.
void refuse_transient_output(const Config& config) {
  const auto refuse = [&](const char* key) {
    config.fail(key, "needs an instationary run (time.scheme; the default steady has no steps)");
  };
  for (const char* key : {"series", "restart"})
    if (config.has(key)) refuse(key);
  for (const char* key : {"vtu-every", "checkpoint-every"})
    if (config.get<int>(key) != 0) refuse(key);
}

/// The points the postprocessing evaluates (postprocessing_points) must lie in the refined mesh
/// of the run: evaluate_at_points gives NaN elsewhere, which would be found only after the solve.
/// Collective; reads and distributes the mesh for it.
void check_postprocessing_points(const Config& config, const FlowOptions& o,
                                 const Communicator& comm) {
  const PostprocessingPoints at = postprocessing_points(o.postprocessing);
  std::vector<Point2> points;
  std::vector<const char*> keys;
  for (const auto& [group, key] : {std::pair{&at.pressure, "postprocess.pressure_difference"},
                                   std::pair{&at.recirculation, "postprocess.recirculation"},
                                   std::pair{&at.centerline_u, "postprocess.centerline_y"},
                                   std::pair{&at.centerline_v, "postprocess.centerline_x"}}) {
    points.insert(points.end(), group->begin(), group->end());
    keys.insert(keys.end(), group->size(), key);
  }
  if (points.empty()) return;
  const FlowProblem problem(o.params, comm);
  const LevelVector zero(problem.block_size(), 0.0);
  const std::vector<double> found =
      evaluate_at_points(problem.mesh, problem.level, zero, points, comm);
  for (std::size_t k = 0; k < points.size(); ++k)
    if (std::isnan(found[k])) {
      std::ostringstream what;
      what << std::setprecision(12) << "the point (" << points[k].x << ", " << points[k].y
           << ") is not in the mesh ('" << o.params.mesh_file << "' at level " << o.params.level
           << ")";
      config.fail(keys[k], what.str());
    }
}

}  // namespace

void declare_flow_keys(Config& config) {
  const NavierStokesParams defaults;
  declare_problem_keys(config, defaults);
  declare_nonlinear_keys(config, defaults);
  declare_linear_keys(config, defaults);
  declare_postprocess_keys(config);
  declare_time_keys(config);
  declare_scarc_keys(config);
}

std::vector<double> config_numbers(const Config& config, const std::string& key) {
  std::istringstream in(config.get<std::string>(key));
  std::vector<double> values;
  double v;
  while (in >> v) values.push_back(config.check(key, v, Range<double>::any()));
  if (!in.eof()) config.fail(key, "expected a list of numbers");
  return values;
}

FlowOptions read_flow_options(const Config& config, const Communicator& comm) {
  check_same_configuration(config.file(), config.settings(), comm);
  FlowOptions o;
  read_problem(config, o);
  read_nonlinear(config, o.params);
  read_linear(config, comm, o.params);
  o.postprocessing = read_postprocessing(config, o.params.mesh_file);
  o.time = read_time(config);
  if (!o.time) refuse_transient_output(config);
  o.output = read_transient_output(config);
  check_postprocessing_points(config, o, comm);
  return o;
}

}  // namespace quilt
