#include "flow/transient_flow.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "flow/checkpoint.hpp"
#include "io/output.hpp"
#include "io/pvd_collection.hpp"

namespace quilt {
namespace {

void record(const TimeStepRecord& step, const FlowQuantities& q, TimeSeries& s) {
  s.t.push_back(step.time);
  s.nonlinear_steps.push_back(step.nonlinear_steps);
  s.linear_iterations.push_back(step.linear_iterations);
  s.seconds.push_back(step.seconds);
  s.rejected.push_back(step.rejected);
  if (q.forces) {
    s.drag.push_back(q.forces->drag);
    s.lift.push_back(q.forces->lift);
  }
  if (q.pressure_difference) s.pressure_difference.push_back(*q.pressure_difference);
}

/// q with drag, lift and pressure difference of step n of `s` (those it evaluates), with
/// `midpoints` from_midpoints of s.
FlowQuantities with_series_values(FlowQuantities q, const TimeSeries& s, std::size_t n,
                                  bool midpoints) {
  const auto value = [&](const std::vector<double>& y) {
    return midpoints ? from_midpoints(s.t, y, n) : y[n];
  };
  if (q.forces && n < s.drag.size()) {
    q.forces->drag = value(s.drag);
    q.forces->lift = value(s.lift);
  }
  if (q.pressure_difference && n < s.pressure_difference.size())
    q.pressure_difference = value(s.pressure_difference);
  return q;
}

/// "flow_000042": the VTU data set of time step 42.
std::string step_name(int step) {
  char name[32];
  std::snprintf(name, sizeof name, "flow_%06d", step);
  return name;
}

/// The VTU series of a run: every `every`-th step as a PVTU, all listed in DIR/flow.pvd.
class VtuSeries {
 public:
  /// restored: the series of the run before a restart (its times: steps may vary in length).
  VtuSeries(const TransientOutput& o, const TimeSeries& restored)
      : directory_(o.vtu_directory),
        every_(o.vtu_directory.empty() ? 0 : o.vtu_every),
        collection_((std::filesystem::path(directory_) / "flow.pvd").string()) {
    std::vector<std::pair<double, std::string>> entries;  // those of the run before a restart
    const int restored_steps = static_cast<int>(restored.t.size());
    for (int step = every_; every_ > 0 && step <= restored_steps; step += every_)
      entries.emplace_back(restored.t[step - 1], step_name(step) + ".pvtu");
    collection_.assign(std::move(entries));
  }

  void after_step(const TimeStepper& stepper, const NavierStokesResult& r,
                  const Communicator& comm) {
    if (every_ == 0 || stepper.steps() % every_ != 0) return;
    const std::string name = step_name(stepper.steps());
    write_flow_vtu(directory_, name, r, comm);
    collection_.add(stepper.time(), name + ".pvtu", comm);
  }

 private:
  std::string directory_;
  int every_;
  PvdCollection collection_;
};

/// Crank-Nicolson's flow as reported at the end of each step (the VTU files, the flow handed to
/// step_done and returned as the last: its forces and pressures): the pressure from_midpoints
/// (Sum_k c_k p^{n-k}, midpoint_weights), for the reason given at from_midpoints
/// (flow/time_series.hpp), and the momentum residuals moved to it and to the time derivative
/// taken the same way, which alternates with the pressure (d' + d^n = 2 (u' - u^n) / k: its step
/// means are the difference quotients of the velocities, step_mean_weights), by
/// NavierStokesSolver::move_momentum_residuals. Keeps the flows of the last four steps; a restart
/// takes those of the last three from the stepper's memory (u^n, u^{n-1}, u^{n-2} with their
/// pressures), so that it goes on to report bitwise what the run without the restart reports.
class MidpointFlow {
 public:
  explicit MidpointFlow(const TimeStepper& stepper) {
    if (stepper.steps() == 0) return;
    const TimeStepperState m = stepper.memory();
    const FlowVector* last[3] = {&m.current, &m.previous, &m.older};
    // Those of steps >= 1: the initial state is not a step's (nor in the series).
    for (int k = std::min(stepper.steps(), 3) - 1; k >= 0; --k)
      keep(last[k]->u1(), last[k]->u2(), last[k]->p());
  }

  /// After step n (t: the series' times, up to t_n; r: the solver's result of that step): keeps
  /// r's fields and makes r the flow to report.
  void report(const std::vector<double>& t, const TimeStepper& stepper,
              const NavierStokesSolver& solver, NavierStokesResult& r) {
    keep(r.u1, r.u2, r.p);
    const std::size_t n = t.size() - 1;
    if (n < 2) return;  // from_midpoints: each step's own values
    const std::array<double, 4> c = midpoint_weights(t, n);
    const std::array<double, 3> a = step_mean_weights(t, n);
    const auto at = [&](std::size_t k) -> const FlowVector& {
      return kept_[(newest_ + 4 - k) % 4];
    };
    // dp = p~ - p^n, p~ = Sum_k c_k p^{n-k}.
    dp_.assign(r.p.size(), 0.0);
    for (std::size_t k = 0; k <= std::min<std::size_t>(n, 3); ++k)
      for (std::size_t i = 0; i < r.p.size(); ++i) dp_[i] += c[k] * at(k).p()[i];
    for (std::size_t i = 0; i < r.p.size(); ++i) dp_[i] -= r.p[i];
    // e = d~ - d': d~ = Sum_j a_j (u^{n-j} - u^{n-j-1}) / k_{n-j}, d' the stepper's own.
    if (e_.block_size() != r.p.size()) e_ = mass_e_ = change_ = FlowVector(r.p.size());
    stepper.derivative(e_);
    for (int q = 0; q < 2; ++q) {
      const std::span<double> e = q == 0 ? e_.u1() : e_.u2();
      for (double& x : e) x = -x;
      for (std::size_t j = 0; j < std::min<std::size_t>(n, 3); ++j) {
        const double w = a[j] / (t[n - j] - t[n - j - 1]);
        const std::span<const double> now = q == 0 ? at(j).u1() : at(j).u2();
        const std::span<const double> before = q == 0 ? at(j + 1).u1() : at(j + 1).u2();
        for (std::size_t i = 0; i < e.size(); ++i) e[i] += w * (now[i] - before[i]);
      }
    }
    // change = (M + S) e.
    solver.assembly().apply_time_derivative_terms(e_, change_);
    stepper.mass().apply(e_.u1().data(), mass_e_.u1().data());
    stepper.mass().apply(e_.u2().data(), mass_e_.u2().data());
    for (std::size_t i = 0; i < r.p.size(); ++i) {
      change_.u1()[i] += mass_e_.u1()[i];
      change_.u2()[i] += mass_e_.u2()[i];
    }
    solver.move_momentum_residuals(r, dp_, change_);
    for (std::size_t i = 0; i < r.p.size(); ++i) r.p[i] += dp_[i];
  }

 private:
  void keep(std::span<const double> u1, std::span<const double> u2, std::span<const double> p) {
    newest_ = (newest_ + 1) % 4;
    FlowVector& v = kept_[newest_];
    if (v.block_size() != p.size()) v = FlowVector(p.size());
    std::copy(u1.begin(), u1.end(), v.u1().begin());
    std::copy(u2.begin(), u2.end(), v.u2().begin());
    std::copy(p.begin(), p.end(), v.p().begin());
  }

  std::array<FlowVector, 4> kept_;  ///< ring of (u1, u2, p): the newest at newest_
  int newest_ = 0;
  std::vector<double> dp_;          ///< the reported pressure less the step's own
  FlowVector e_, mass_e_, change_;  ///< e, M e and (M + S) e (u1, u2)
};

/// Collective: the CSV written by rank 0 (IoError on every rank when that failed).
void write_csv(const std::string& path, const TimeSeries& series, const Communicator& comm) {
  if (path.empty()) return;
  collective_output_step(
      comm.rank() == 0, [&] { write_time_series_csv(path, series); }, comm,
      [&](int) { return "rank 0 could not write '" + path + "'"; });
}

}  // namespace

FlowQuantities TransientFlowResult::at_end(FlowQuantities q) const {
  return series.t.empty() ? q
                          : with_series_values(std::move(q), series, series.t.size() - 1, false);
}

TransientFlowResult solve_transient_flow(
    const NavierStokesParams& params, const TimeSteppingParams& time,
    const FlowPostprocessing& post, const TransientOutput& output, const Communicator& comm,
    const std::function<void(const TimeStepRecord&, const FlowQuantities&,
                             const NavierStokesResult&)>& step_done) {
  FlowPostprocessing per_step = post;
  per_step.centerlines = false;  // profiles and L_a: at the end time only
  per_step.recirculation.reset();
  NavierStokesSolver solver(params, comm);
  TimeStepper stepper(solver, time);
  TransientFlowResult result;
  TimeSeries own;  // the values of each step's own pressure, as checkpointed
  const bool midpoints = time.scheme == TimeScheme::crank_nicolson;
  const auto series = [&] { return midpoints ? from_midpoints(own) : own; };
  if (!output.restart.empty()) {
    read_checkpoint(output.restart, stepper, solver, own, comm);
    if (stepper.finished())
      throw CheckpointError("checkpoint '" + output.restart +
                            "' is at t = " + std::to_string(stepper.time()) +
                            ", time.end = " + std::to_string(time.end) + ": no time step left");
  }
  VtuSeries vtu(output, own);
  std::optional<MidpointFlow> reported;
  if (midpoints) reported.emplace(stepper);
  while (!stepper.finished()) {
    result.last = stepper.advance();
    // Crank-Nicolson's own flow gives the series only; step_done is shown the reported flow's.
    const FlowQuantities q =
        reported ? evaluate_series_quantities(per_step, result.last, params.nu, comm)
                 : evaluate_flow_quantities(per_step, result.last, params.nu, comm);
    record(stepper.last(), q, own);
    if (reported) reported->report(own.t, stepper, solver, result.last);
    if (step_done) {
      // The quantities of the flow handed beside them: Crank-Nicolson's reported one.
      const FlowQuantities shown =
          reported ? evaluate_flow_quantities(per_step, result.last, params.nu, comm) : q;
      step_done(stepper.last(), with_series_values(shown, own, own.t.size() - 1, midpoints),
                result.last);
    }
    vtu.after_step(stepper, result.last, comm);
    if (output.checkpoint_every > 0 && stepper.steps() % output.checkpoint_every == 0) {
      write_checkpoint(output.checkpoint, stepper, solver, own, comm);
      // series() rebuilds the reported series (O(steps)): only for a CSV.
      if (!output.series_csv.empty()) write_csv(output.series_csv, series(), comm);
      // A restart sets its preconditioner up from the checkpoint's state: this run does too, so
      // that both go on bitwise alike.
      solver.set_up_preconditioner_at_next_solve();
    }
  }
  result.series = series();
  write_csv(output.series_csv, result.series, comm);
  return result;
}

}  // namespace quilt
