// quilt-flow: the stationary incompressible Navier-Stokes equations on a macro mesh, solved by
// fixed-point defect correction with the Schur-complement-preconditioned two-layer solver.
// The problem is described by the configuration alone: mesh, boundary conditions per part,
// viscosity, solver and postprocessing keys.
//
//   mpirun -np 4 build/bin/quilt-flow --config apps/configs/cavity.ini --results cavity.json

#include <cstdio>

#include "common/flow_options.hpp"
#include "common/mpi_main.hpp"
#include "flow/flow_postprocessing.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "io/output.hpp"
#include "io/vtu_writer.hpp"
#include "mesh/macro_geometry.hpp"

using namespace quilt;

namespace {

int run(int argc, char** argv, const Communicator& comm) {
  Config config("quilt-flow", "stationary Navier-Stokes, Q1/Q1 PSPG/SUPG, two-layer ScaRC solver");
  declare_flow_keys(config);
  if (!config.parse(argc, argv)) return 0;

  const FlowOptions options = read_flow_options(config, comm);
  check_output_options(config, comm);
  const NavierStokesParams& p = options.params;
  const double re = options.reynolds(p.nu);

  if (comm.rank() == 0)
    std::printf(
        "quilt-flow: %s, L=%d, Re=%g (nu=%g)%s, %d ranks\n%6s %10s %12s %6s %6s %10s %8s %10s\n",
        p.mesh_file.c_str(), p.level, re, p.nu, p.stokes ? ", Stokes" : "", comm.size(), "step",
        "Re", "residual", "method", "lin.it", "lin.red", "time[s]", "dtau");
  NavierStokesResult r = solve_navier_stokes(p, comm, [&](const NonlinearStep& s) {
    if (comm.rank() == 0)
      std::printf("%6d %10.4g %12.4e %6s %6d %10.3e %8.3f %10.3g\n", s.step, options.reynolds(s.nu),
                  s.residual, s.linear_iterations == 0 ? "-" : (s.newton ? "newton" : "picard"),
                  s.linear_iterations, s.linear_reduction, s.seconds, s.pseudo_time_step);
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
    const auto ys = config_numbers(config, "postprocess.centerline_y");
    const auto xs = config_numbers(config, "postprocess.centerline_x");
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
  if (const auto dp = config_numbers(config, "postprocess.pressure_difference"); !dp.empty()) {
    if (dp.size() != 4) config.fail("postprocess.pressure_difference", "expected 'X1 Y1 X2 Y2'");
    const auto pv =
        evaluate_at_points(r.mesh, r.level, r.p, {{dp[0], dp[1]}, {dp[2], dp[3]}}, comm);
    j["pressure_difference"] = pv[0] - pv[1];
    if (comm.rank() == 0) std::printf("  pressure difference %.8f\n", pv[0] - pv[1]);
  }
  if (const auto rc = config_numbers(config, "postprocess.recirculation"); !rc.empty()) {
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
  write_results(config, j, comm);
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
