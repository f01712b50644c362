// quilt-flow: the stationary incompressible Navier-Stokes equations on a macro mesh, solved by
// fixed-point defect correction with the Schur-complement-preconditioned two-layer solver.
// The problem is described by the configuration alone: mesh, boundary conditions per part,
// viscosity, solver and postprocessing keys.
//
//   mpirun -np 4 build/bin/quilt-flow --config apps/configs/cavity.ini --results cavity.json

#include <cmath>
#include <cstdio>
#include <exception>
#include <sstream>

#include "common/mpi_main.hpp"
#include "common/scarc_options.hpp"
#include "flow/flow_postprocessing.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "io/json.hpp"
#include "io/vtu_writer.hpp"
#include "mesh/macro_geometry.hpp"

namespace po = boost::program_options;
using namespace quilt;

namespace {

// Evaluation points of Ghia, Ghia & Shin (1982), Tables I and II: the vertical centreline
// x = 0.5 (u) and the horizontal centreline y = 0.5 (v) of their 129 x 129 grid.
constexpr const char* kGhiaY =
    "1.0000 0.9766 0.9688 0.9609 0.9531 0.8516 0.7344 0.6172 0.5000 0.4531 0.2813 0.1719 "
    "0.1016 0.0703 0.0625 0.0547 0.0000";
constexpr const char* kGhiaX =
    "1.0000 0.9688 0.9609 0.9531 0.9453 0.9063 0.8594 0.8047 0.5000 0.2344 0.2266 0.1563 "
    "0.0938 0.0781 0.0703 0.0625 0.0000";

void declare_keys(Config& config) {
  // clang-format off
  config.keys()
    ("mesh.file", po::value<std::string>()->default_value("meshes/unit_square_4x2.msh"),
     "coarse mesh (Gmsh MSH 2.2 ASCII, quadrilaterals)")
    ("mesh.level", po::value<int>()->default_value(5), "refinement level L")
    ("mesh.chart", po::value<std::vector<std::string>>()->composing(),
     "bind a boundary part to a chart: 'PART line' or 'PART circle CX CY R' (repeatable)")
    ("boundary.condition", po::value<std::vector<std::string>>()->composing(),
     "'PART noslip' | 'PART velocity UX UY' | 'PART parabolic UMAX Y0 Y1' | 'PART donothing' "
     "(repeatable, one per part; at corners the condition listed first wins)")
    ("flow.re", po::value<double>()->default_value(100.0),
     "Reynolds number U L / nu (used unless flow.viscosity > 0)")
    ("flow.reference_velocity", po::value<double>()->default_value(1.0), "U in Re = U L / nu")
    ("flow.reference_length", po::value<double>()->default_value(1.0), "L in Re = U L / nu")
    ("flow.viscosity", po::value<double>()->default_value(0.0), "nu; > 0 overrides flow.re")
    ("flow.stokes", po::value<bool>()->default_value(false), "drop the convection: Stokes flow")
    ("flow.continuation", po::value<std::string>()->default_value(""),
     "Reynolds numbers to pass through before flow.re, e.g. '100 400'")
    ("stabilisation.supg", po::value<double>()->default_value(1.0), "SUPG parameter scale")
    ("stabilisation.pspg", po::value<double>()->default_value(1.0), "PSPG parameter scale (> 0)")
    ("stabilisation.element_size", po::value<std::string>()->default_value("isotropic"),
     "h_K in tau_K, delta_K: isotropic (sqrt |K|) | streamline (extent along w)")
    ("nonlinear.rel_tol", po::value<double>()->default_value(1e-8), "relative nonlinear residual")
    ("nonlinear.abs_tol", po::value<double>()->default_value(1e-12), "absolute nonlinear residual")
    ("nonlinear.max_iter", po::value<int>()->default_value(200), "fixed-point step cap")
    ("nonlinear.damping", po::value<double>()->default_value(1.0), "omega of the fixed-point update")
    ("nonlinear.pseudo_time_step", po::value<double>()->default_value(0.0),
     "dtau_0 of the pseudo-time continuation (M / dtau added to the correction solve); 0: none")
    ("nonlinear.pseudo_time_step_max", po::value<double>()->default_value(0.0),
     "cap on dtau as it grows with the defect reduction; 0: none")
    ("solver.type", po::value<std::string>()->default_value("bicgstab"), "linear solver: bicgstab | fgmres")
    ("solver.rel_tol", po::value<double>()->default_value(0.1),
     "relative reduction per linear solve (0.1: one digit per nonlinear step)")
    ("solver.max_iter", po::value<int>()->default_value(50), "linear iteration cap per step")
    ("solver.restart", po::value<int>()->default_value(30), "fgmres restart length")
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
    ("postprocess.force_scale", po::value<double>()->default_value(1.0),
     "drag/lift coefficients = force_scale * force, e.g. 2 / (rho Ubar^2 D)")
    ("postprocess.pressure_difference", po::value<std::string>()->default_value(""),
     "'X1 Y1 X2 Y2': report p(X1, Y1) - p(X2, Y2)")
    ("postprocess.recirculation", po::value<std::string>()->default_value(""),
     "'X0 X1 Y0': recirculation length behind X0 along y = Y0 (searched up to X1)");
  // clang-format on
  declare_scarc_keys(config);
}

std::vector<double> numbers(const Config& config, const std::string& key) {
  std::istringstream in(config.get<std::string>(key));
  std::vector<double> values;
  double v;
  while (in >> v) values.push_back(v);
  if (!in.eof()) config.fail(key, "expected a list of numbers");
  return values;
}

int run(int argc, char** argv, const Communicator& comm) {
  Config config("quilt-flow", "stationary Navier-Stokes, Q1/Q1 PSPG/SUPG, two-layer ScaRC solver");
  declare_keys(config);
  if (!config.parse(argc, argv)) return 0;

  NavierStokesParams p;
  p.mesh_file = config.get<std::string>("mesh.file");
  p.level = config.get<int>("mesh.level");
  if (p.level < 1 || p.level > 11) config.fail("mesh.level", "must be in 1..11");
  if (config.has("mesh.chart")) p.charts = config.get<std::vector<std::string>>("mesh.chart");
  if (!config.has("boundary.condition"))
    config.fail("boundary.condition", "no boundary conditions given");
  p.conditions = config.get<std::vector<std::string>>("boundary.condition");
  const double U = config.get<double>("flow.reference_velocity");
  const double Lref = config.get<double>("flow.reference_length");
  auto viscosity_of = [&](double re) {
    if (!(re > 0)) config.fail("flow.re", "Reynolds numbers must be > 0");
    return U * Lref / re;
  };
  p.nu = config.get<double>("flow.viscosity") > 0 ? config.get<double>("flow.viscosity")
                                                  : viscosity_of(config.get<double>("flow.re"));
  for (double re : numbers(config, "flow.continuation")) p.continuation.push_back(viscosity_of(re));
  p.stokes = config.get<bool>("flow.stokes");
  p.stabilisation.supg_scale = config.get<double>("stabilisation.supg");
  p.stabilisation.pspg_scale = config.get<double>("stabilisation.pspg");
  if (!(p.stabilisation.pspg_scale > 0)) config.fail("stabilisation.pspg", "must be > 0 for Q1/Q1");
  const auto element_size = config.get<std::string>("stabilisation.element_size");
  if (element_size == "streamline")
    p.stabilisation.element_size = ElementSize::streamline;
  else if (element_size != "isotropic")
    config.fail("stabilisation.element_size", "expected isotropic or streamline");
  p.nonlinear_rel_tol = config.get<double>("nonlinear.rel_tol");
  p.nonlinear_abs_tol = config.get<double>("nonlinear.abs_tol");
  p.nonlinear_max_iter = config.get<int>("nonlinear.max_iter");
  p.nonlinear_damping = config.get<double>("nonlinear.damping");
  p.pseudo_time_step = config.get<double>("nonlinear.pseudo_time_step");
  if (p.pseudo_time_step < 0) config.fail("nonlinear.pseudo_time_step", "must be >= 0");
  if (const double cap = config.get<double>("nonlinear.pseudo_time_step_max"); cap > 0)
    p.pseudo_time_step_max = cap;
  const auto type = config.get<std::string>("solver.type");
  if (type != "bicgstab" && type != "fgmres")
    config.fail("solver.type", "'" + type + "' is not bicgstab or fgmres");
  p.linear_method = parse_krylov_method(type);
  p.linear.rel_tol = config.get<double>("solver.rel_tol");
  p.linear.max_iter = config.get<int>("solver.max_iter");
  p.linear.restart = config.get<int>("solver.restart");
  p.linear.fail_on_cap = false;  // an inexact step is still a valid defect correction
  const auto schur = config.get<std::string>("solver.schur");
  if (schur == "pcd")
    p.schur = SchurApproximation::pcd;
  else if (schur == "mass")
    p.schur = SchurApproximation::mass;
  else
    config.fail("solver.schur",
                "'" + schur +
                    "' is not pcd or mass");  // an inexact step is still a valid defect correction
  const ScarcOptions scarc = read_scarc_options(config, comm);
  p.multigrid = scarc.multigrid;
  p.coarse_threshold = scarc.coarse_threshold;
  const double re = U * Lref / p.nu;

  if (comm.rank() == 0)
    std::printf(
        "quilt-flow: %s, L=%d, Re=%g (nu=%g)%s, %d ranks\n%6s %10s %12s %6s %10s %8s %10s\n",
        p.mesh_file.c_str(), p.level, re, p.nu, p.stokes ? ", Stokes" : "", comm.size(), "step",
        "Re", "residual", "lin.it", "lin.red", "time[s]", "dtau");
  NavierStokesResult r = solve_navier_stokes(p, comm, [&](const NonlinearStep& s) {
    if (comm.rank() == 0)
      std::printf("%6d %10.4g %12.4e %6d %10.3e %8.3f %10.3g\n", s.step, U * Lref / s.nu,
                  s.residual, s.linear_iterations, s.linear_reduction, s.seconds,
                  s.pseudo_time_step);
  });

  const double energy = kinetic_energy(r.mesh, r.level, r.u1, r.u2, comm);
  const double divergence = divergence_l2(r.mesh, r.level, r.u1, r.u2, comm);
  int linear_total = 0;
  for (const auto& s : r.steps) linear_total += s.linear_iterations;
  const double r_acc = r.timings.linear > 0 ? r.timings.local_solve / r.timings.linear : 0.0;
  if (comm.rank() == 0) {
    std::printf(
        "  %zu dofs, %zu nonlinear steps, %d linear iterations, kinetic energy %.8e, |div u| "
        "%.3e\n",
        r.dofs, r.steps.size() - 1, linear_total, energy, divergence);
    std::printf(
        "  time: total %.3f s, assembly %.3f s, linear %.3f s (local %.3f s, coarse %.3f s)\n",
        r.timings.total, r.timings.assembly, r.timings.linear, r.timings.local_solve,
        r.timings.coarse_solve);
  }

  Json j = Json::object();
  j["problem"] = "navier-stokes";
  j["mesh"] = p.mesh_file;
  j["level"] = r.level;
  j["coarse_level"] = r.coarse_level;
  j["macros"] = r.mesh.mesh.num_cells();
  j["ranks"] = comm.size();
  j["dofs"] = r.dofs;
  j["re"] = re;
  j["nu"] = p.nu;
  j["stokes"] = p.stokes;
  j["target"] = accel::to_string(p.multigrid.local.target);
  j["precision"] = accel::to_string(p.multigrid.local.precision);
  j["nonlinear_iterations"] = static_cast<int>(r.steps.size()) - 1;
  Json::Array per_step, residuals;
  for (const auto& s : r.steps) {
    residuals.push_back(s.residual);
    if (s.linear_iterations > 0) per_step.push_back(s.linear_iterations);
  }
  Json& lin = j["linear_iterations"];
  lin["total"] = linear_total;
  lin["per_step"] = per_step;
  j["nonlinear_residuals"] = residuals;
  j["kinetic_energy"] = energy;
  j["divergence_l2"] = divergence;
  if (config.get<bool>("postprocess.centerlines")) {
    const auto ys = numbers(config, "postprocess.centerline_y");
    const auto xs = numbers(config, "postprocess.centerline_x");
    std::vector<Point2> pu, pv;
    for (double y : ys) pu.push_back({0.5, y});
    for (double x : xs) pv.push_back({x, 0.5});
    const auto u = evaluate_at_points(r.mesh, r.level, r.u1, pu, comm);
    const auto v = evaluate_at_points(r.mesh, r.level, r.u2, pv, comm);
    Json::Array cu, cv;
    for (std::size_t k = 0; k < ys.size(); ++k) cu.push_back(Json::Array{ys[k], u[k]});
    for (std::size_t k = 0; k < xs.size(); ++k) cv.push_back(Json::Array{xs[k], v[k]});
    j["centerline_u"] = cu;
    j["centerline_v"] = cv;
  }
  const std::string force_part = config.get<std::string>("postprocess.forces");
  if (!force_part.empty()) {
    const int part = r.mesh.mesh.part_id(force_part);
    if (part < 0)
      config.fail("postprocess.forces", "the mesh has no boundary part '" + force_part + "'");
    const double scale = config.get<double>("postprocess.force_scale");
    const BoundaryForce volume =
        volume_force(r.mesh, r.level, r.momentum_residual1, r.momentum_residual2, part, comm);
    const BoundaryForce surface = surface_force(r.mesh, r.level, r.u1, r.u2, r.p, p.nu, part, comm);
    j["drag"] = scale * volume.x;
    j["lift"] = scale * volume.y;
    j["drag_surface"] = scale * surface.x;
    j["lift_surface"] = scale * surface.y;
    if (comm.rank() == 0)
      std::printf("  %s: drag %.8f lift %.8f (volume form); drag %.8f lift %.8f (surface)\n",
                  force_part.c_str(), scale * volume.x, scale * volume.y, scale * surface.x,
                  scale * surface.y);
  }
  if (const auto dp = numbers(config, "postprocess.pressure_difference"); !dp.empty()) {
    if (dp.size() != 4) config.fail("postprocess.pressure_difference", "expected 'X1 Y1 X2 Y2'");
    const auto pv =
        evaluate_at_points(r.mesh, r.level, r.p, {{dp[0], dp[1]}, {dp[2], dp[3]}}, comm);
    j["pressure_difference"] = pv[0] - pv[1];
    if (comm.rank() == 0) std::printf("  pressure difference %.8f\n", pv[0] - pv[1]);
  }
  if (const auto rc = numbers(config, "postprocess.recirculation"); !rc.empty()) {
    if (rc.size() != 3) config.fail("postprocess.recirculation", "expected 'X0 X1 Y0'");
    const double length =
        recirculation_length(r.mesh, r.level, r.u1, rc[0], rc[1], rc[2], 4001, comm);
    j["recirculation_length"] = length;
    if (comm.rank() == 0) std::printf("  recirculation length %.6f\n", length);
  }
  Json& t = j["timings"];
  t["total"] = r.timings.total;
  t["assembly"] = r.timings.assembly;
  t["linear"] = r.timings.linear;
  t["local_solve"] = r.timings.local_solve;
  t["coarse_solve"] = r.timings.coarse_solve;
  j["r_ass"] = r.timings.assembly / r.timings.total;
  j["r_lin"] = r.timings.linear / r.timings.total;
  j["r_acc"] = r_acc;
  j["s_max"] = 1.0 / (1.0 - r_acc);
  if (config.has("results") && comm.rank() == 0) write_json(config.get<std::string>("results"), j);
  if (config.has("vtu")) {
    const std::vector<MacroGeometry> geometry = refine_local_macros(r.mesh, r.level);
    const LevelVector omega = vorticity(r.mesh, r.level, r.u1, r.u2, comm);
    write_vtu(
        config.get<std::string>("vtu"), "flow", geometry,
        {{"velocity_x", &r.u1}, {"velocity_y", &r.u2}, {"pressure", &r.p}, {"vorticity", &omega}},
        comm);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_main("quilt-flow", argc, argv, run);
}
