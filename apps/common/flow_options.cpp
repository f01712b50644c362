#include "common/flow_options.hpp"

#include <sstream>

#include "common/scarc_options.hpp"

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

}  // namespace

void declare_flow_keys(Config& config) {
  const VelocitySmoother velocity;  // the defaults
  const NavierStokesParams defaults;
  // clang-format off
  config.keys()
    ("mesh.file", po::value<std::string>()->default_value("meshes/unit_square_4x2.msh"),
     "coarse mesh (Gmsh MSH 2.2 or 4.1 ASCII, quadrilaterals)")
    ("mesh.level", po::value<int>()->default_value(5), "refinement level L")
    ("mesh.chart", po::value<std::vector<std::string>>()->composing(),
     "bind a boundary part to a chart: 'PART line' or 'PART circle CX CY R' (repeatable)")
    ("boundary.condition", po::value<std::vector<std::string>>()->composing(),
     "'PART noslip' | 'PART velocity UX UY' | 'PART parabolic UMAX Y0 Y1' | 'PART donothing' "
     "(repeatable, one per part; at corners the condition listed first wins)")
    ("flow.re", number_key(100.0),
     "Reynolds number U L / nu (used unless flow.viscosity > 0)")
    ("flow.reference_velocity", number_key(1.0), "U in Re = U L / nu")
    ("flow.reference_length", number_key(1.0), "L in Re = U L / nu")
    ("flow.viscosity", number_key(0.0), "nu; > 0 overrides flow.re")
    ("flow.stokes", po::value<bool>()->default_value(false), "drop the convection: Stokes flow")
    ("flow.continuation", po::value<std::string>()->default_value(""),
     "Reynolds numbers to pass through before flow.re, e.g. '100 400'")
    ("stabilisation.supg", number_key(1.0), "SUPG parameter scale")
    ("stabilisation.pspg", number_key(1.0), "PSPG parameter scale (> 0)")
    ("stabilisation.element_size", po::value<std::string>()->default_value("isotropic"),
     "h_K in tau_K, delta_K: isotropic (sqrt |K|) | streamline (extent along w)")
    ("nonlinear.rel_tol", number_key(defaults.nonlinear_rel_tol), "relative nonlinear residual")
    ("nonlinear.abs_tol", number_key(defaults.nonlinear_abs_tol), "absolute nonlinear residual")
    ("nonlinear.max_iter", po::value<int>()->default_value(defaults.nonlinear_max_iter), "nonlinear step cap")
    ("nonlinear.damping", number_key(defaults.nonlinear_damping), "omega of the Picard update")
    ("nonlinear.method", po::value<std::string>()->default_value("auto"),
     "linearisation: picard (Oseen operator) | newton (Jacobian, line search) | auto (Picard, then "
     "Newton once the residual fell by nonlinear.newton_switch)")
    ("nonlinear.newton_switch", number_key(defaults.newton_switch),
     "auto: the relative residual |r_k| / |r_0| below which Newton takes over")
    ("nonlinear.pseudo_time_step", number_key(0.0),
     "dtau_0 of the pseudo-time continuation (M / dtau added to the correction solve); 0: none")
    ("nonlinear.pseudo_time_step_max", number_key(0.0),
     "cap on dtau as it grows with the defect reduction; 0: none")
    ("solver.type", po::value<std::string>()->default_value(to_string(defaults.linear_method)),
     "linear solver: fgmres | bicgstab")
    ("solver.rel_tol", number_key(defaults.linear.rel_tol),
     "relative reduction per linear solve (0.1: one digit per nonlinear step)")
    ("solver.max_iter", po::value<int>()->default_value(defaults.linear.max_iter), "linear iteration cap per step")
    ("solver.restart", po::value<int>()->default_value(defaults.linear.restart), "fgmres restart length")
    ("solver.velocity.smoother", po::value<std::string>()->default_value(accel::to_string(velocity.type)),
     "local smoother of the velocity multigrid (solver.local.smoother: of the pressure Laplacian); "
     "same values as solver.local.smoother")
    ("solver.velocity.ordering", po::value<std::string>()->default_value(accel::to_string(velocity.ordering)),
     "sweep order of the velocity smoother: lexicographic | colour")
    ("solver.velocity.damping", po::value<double>(),
     "relaxation omega of the velocity smoother (default: 0.7 for jacobi, 1 for the others)")
    ("solver.schur", po::value<std::string>()->default_value("pcd"),
     "pressure Schur complement approximation: pcd (pressure convection-diffusion) | mass (nu M_p^-1)")
    ("postprocess.centerlines", po::value<bool>()->default_value(false),
     "evaluate u(0.5, y) and v(x, 0.5) (driven cavity)")
    ("postprocess.centerline_y", po::value<std::string>()->default_value(kGhiaY),
     "y values of the u profile along x = 0.5")
    ("postprocess.centerline_x", po::value<std::string>()->default_value(kGhiaX),
     "x values of the v profile along y = 0.5")
    ("postprocess.forces", po::value<std::string>()->default_value(""),
     "boundary part whose drag and lift to report (volume and surface forms)")
    ("postprocess.force_scale", number_key(1.0),
     "drag/lift coefficients = force_scale * force, e.g. 2 / (rho Ubar^2 D)")
    ("postprocess.pressure_difference", po::value<std::string>()->default_value(""),
     "'X1 Y1 X2 Y2': report p(X1, Y1) - p(X2, Y2)")
    ("postprocess.recirculation", po::value<std::string>()->default_value(""),
     "'X0 X1 Y0': recirculation length behind X0 along y = Y0 (searched up to X1)");
  // clang-format on
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
  FlowOptions o;
  NavierStokesParams& p = o.params;
  p.mesh_file = config.get<std::string>("mesh.file");
  p.level = config.get("mesh.level", Range<int>::closed(1, 11));
  if (config.has("mesh.chart")) p.charts = config.get<std::vector<std::string>>("mesh.chart");
  if (!config.has("boundary.condition"))
    config.fail("boundary.condition", "no boundary conditions given");
  p.conditions = config.get<std::vector<std::string>>("boundary.condition");
  o.reference_velocity = config.get("flow.reference_velocity", Range<double>::above(0));
  o.reference_length = config.get("flow.reference_length", Range<double>::above(0));
  const Range<double> reynolds = Range<double>::above(0);
  auto viscosity_of = [&](double re) { return o.reference_velocity * o.reference_length / re; };
  const double viscosity = config.get("flow.viscosity", Range<double>::at_least(0));  // 0: flow.re
  const double re = config.get("flow.re", reynolds);
  p.nu = viscosity > 0 ? viscosity : viscosity_of(re);
  for (double re_k : config_numbers(config, "flow.continuation"))
    p.continuation.push_back(viscosity_of(config.check("flow.continuation", re_k, reynolds)));
  p.stokes = config.get<bool>("flow.stokes");
  p.stabilisation.supg_scale = config.get("stabilisation.supg", Range<double>::at_least(0));
  // > 0: Q1/Q1 needs the pressure stabilisation.
  p.stabilisation.pspg_scale = config.get("stabilisation.pspg", Range<double>::above(0));
  const auto element_size = config.get<std::string>("stabilisation.element_size");
  if (element_size == "streamline")
    p.stabilisation.element_size = ElementSize::streamline;
  else if (element_size != "isotropic")
    config.fail("stabilisation.element_size", "expected isotropic or streamline");
  p.nonlinear_rel_tol = config.get("nonlinear.rel_tol", Range<double>::above(0));
  p.nonlinear_abs_tol = config.get("nonlinear.abs_tol", Range<double>::at_least(0));
  p.nonlinear_max_iter = config.get("nonlinear.max_iter", Range<int>::at_least(1));
  p.nonlinear_damping = config.get("nonlinear.damping", Range<double>::open(0, 2));
  const auto method = config.get<std::string>("nonlinear.method");
  if (method == "picard")
    p.nonlinear_method = NonlinearMethod::picard;
  else if (method == "newton")
    p.nonlinear_method = NonlinearMethod::newton;
  else if (method == "auto")
    p.nonlinear_method = NonlinearMethod::automatic;
  else
    config.fail("nonlinear.method", "'" + method + "' is not picard, newton or auto");
  p.newton_switch = config.get("nonlinear.newton_switch", Range<double>::open_closed(0, 1));
  p.pseudo_time_step = config.get("nonlinear.pseudo_time_step", Range<double>::at_least(0));
  if (const double cap = config.get("nonlinear.pseudo_time_step_max", Range<double>::at_least(0));
      cap > 0)  // 0: no cap
    p.pseudo_time_step_max = cap;
  const auto type = config.get<std::string>("solver.type");
  if (type != "bicgstab" && type != "fgmres")
    config.fail("solver.type", "'" + type + "' is not bicgstab or fgmres");
  p.linear_method = parse_krylov_method(type);
  p.linear.rel_tol = config.get("solver.rel_tol", Range<double>::open(0, 1));
  p.linear.max_iter = config.get("solver.max_iter", Range<int>::at_least(1));
  p.linear.restart = config.get("solver.restart", Range<int>::at_least(1));
  const auto schur = config.get<std::string>("solver.schur");
  if (schur == "pcd")
    p.schur = SchurApproximation::pcd;
  else if (schur == "mass")
    p.schur = SchurApproximation::mass;
  else
    config.fail("solver.schur", "'" + schur + "' is not pcd or mass");
  VelocitySmoother& v = p.velocity_smoother;
  v.type = parse_key(config, "solver.velocity.smoother", accel::parse_smoother);
  v.ordering = parse_key(config, "solver.velocity.ordering", accel::parse_sweep_order);
  if (config.has("solver.velocity.damping"))
    v.damping = config.get("solver.velocity.damping", kSmootherDampingRange);
  check_smoother_keys(config, v.type, v.ordering, v.damping, "solver.velocity");
  const ScarcOptions scarc = read_scarc_options(config, comm);
  if (scarc.multigrid.local.target == accel::Target::cuda && v.type != accel::SmootherType::jacobi)
    config.fail("solver.velocity.smoother",
                accel::to_string(v.type) +
                    " is not available on solver.local.target = cuda yet (it has jacobi: set "
                    "solver.velocity.smoother = jacobi)");
  p.multigrid = scarc.multigrid;
  p.coarse_threshold = scarc.coarse_threshold;
  // The postprocessing keys are read after the solve (apps/flow): checked here, before it.
  config.get("postprocess.force_scale", Range<double>::any());
  config_numbers(config, "postprocess.centerline_y");
  config_numbers(config, "postprocess.centerline_x");
  if (const auto n = config_numbers(config, "postprocess.pressure_difference").size();
      n != 0 && n != 4)
    config.fail("postprocess.pressure_difference", "expected 'X1 Y1 X2 Y2'");
  if (const auto n = config_numbers(config, "postprocess.recirculation").size(); n != 0 && n != 3)
    config.fail("postprocess.recirculation", "expected 'X0 X1 Y0'");
  return o;
}

}  // namespace quilt
