#include "flow/flow_log.hpp"

#include <cstdio>

namespace quilt {

void FlowLog::title() const {
  const NavierStokesParams& p = run_.params;
  std::printf("quilt-flow: %s, L=%d, Re=%g (nu=%g)%s, %d ranks\n", p.mesh_file.c_str(), p.level,
              run_.scale.reynolds(p.nu), p.nu, p.stokes ? ", Stokes" : "", run_.ranks);
}

void FlowLog::header() const {
  if (!writes_) return;
  title();
  std::printf("%6s %10s %12s %6s %6s %10s %8s %10s\n", "step", "Re", "residual", "method", "lin.it",
              "lin.red", "time[s]", "dtau");
}

void FlowLog::time_header(bool forces) const {
  if (!writes_) return;
  title();
  std::printf("%6s %10s %10s %6s %6s %14s %14s %8s\n", "step", "t", "dt", "nl.it", "lin.it",
              forces ? "drag" : "kinetic", forces ? "lift" : "", "time[s]");
}

void FlowLog::time_step(const TimeStepRecord& s, const FlowQuantities& q) const {
  if (!writes_) return;
  std::printf("%6d %10.5g %10.4g %6d %6d ", s.step, s.time, s.dt, s.nonlinear_steps,
              s.linear_iterations);
  if (q.forces)
    std::printf("%14.8f %14.8f", q.forces->drag, q.forces->lift);
  else
    std::printf("%14.8e %14s", q.kinetic_energy, "");
  std::printf(" %8.3f", s.seconds);
  if (s.rejected > 0) std::printf("  (%d longer tries rejected)", s.rejected);
  std::printf("\n");
}

void FlowLog::series_summary(const TimeSeries& s) {
  if (!writes_ || s.t.empty()) return;
  long long nonlinear = 0, linear = 0, rejected = 0;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    nonlinear += s.nonlinear_steps[i];
    linear += s.linear_iterations[i];
    rejected += s.rejected[i];
  }
  const double n = static_cast<double>(s.t.size());
  series_printed_ = true;
  std::printf(
      "  %zu time steps to t = %g: %lld nonlinear steps, %lld linear iterations (%.1f and "
      "%.1f per time step)\n",
      s.t.size(), s.t.back(), nonlinear, linear, nonlinear / n, linear / n);
  if (rejected > 0) std::printf("  %lld tries rejected by the time error estimate\n", rejected);
}

void FlowLog::step(const NonlinearStep& s) const {
  if (!writes_) return;
  // A step without a linear solve is the last one: the residual that met the tolerance.
  const char* method = s.linear_iterations == 0 ? "-" : (s.newton ? "newton" : "picard");
  std::printf("%6d %10.4g %12.4e %6s %6d %10.3e %8.3f %10.3g\n", s.step, run_.scale.reynolds(s.nu),
              s.residual, method, s.linear_iterations, s.linear_reduction, s.seconds,
              s.pseudo_time_step);
}

void FlowLog::summary(const NavierStokesResult& r, const FlowQuantities& q) const {
  if (!writes_) return;
  if (series_printed_) {  // the iterations were those of the time steps
    std::printf("  %zu dofs, kinetic energy %.8e, |div u| %.3e\n", r.dofs, q.kinetic_energy,
                q.divergence_l2);
    std::printf("  preconditioner set up for %d corrections (solver.refresh_growth)\n",
                r.preconditioner_setups);
  } else {
    std::printf(
        "  %zu dofs, %zu nonlinear steps, %d linear iterations, kinetic energy %.8e, |div u| "
        "%.3e\n",
        r.dofs, r.steps.size() - 1, total_linear_iterations(r), q.kinetic_energy, q.divergence_l2);
  }
  const FlowTimings& t = r.timings;
  std::printf(
      "  time: total %.3f s, setup %.3f s, assembly %.3f s, linear %.3f s (local %.3f s, coarse "
      "%.3f s)\n",
      t.total, t.setup, t.assembly, t.linear, t.local_solve, t.coarse_solve);
  print_quantities(q);
}

void FlowLog::print_quantities(const FlowQuantities& q) const {
  if (const auto& f = q.forces)
    std::printf("  %s: drag %.8f lift %.8f (volume form); drag %.8f lift %.8f (surface)\n",
                f->part.c_str(), f->drag, f->lift, f->drag_surface, f->lift_surface);
  if (q.pressure_difference) {
    std::printf("  pressure difference %.8f", *q.pressure_difference);
    if (q.pressure_difference_nodal && *q.pressure_difference_nodal != *q.pressure_difference)
      std::printf(" (wall traction; the Q1 pressure's own %.8f)", *q.pressure_difference_nodal);
    std::printf("\n");
  }
  if (q.recirculation_length) std::printf("  recirculation length %.6f\n", *q.recirculation_length);
}

}  // namespace quilt
