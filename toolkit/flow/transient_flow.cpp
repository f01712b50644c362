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

/// Crank-Nicolson's pressure as reported at the end of each step (the VTU files, the flow handed
/// to step_done and returned as the last: its surface forces and pressures at points):
/// from_midpoints of the pressure field (midpoint_weights), for the reason given at
/// from_midpoints (flow/time_series.hpp). Keeps the pressures of the last four steps; a restart
/// takes those of the last three from the stepper's memory (u^n, u^{n-1}, u^{n-2} with their
/// pressures), so that it goes on to report bitwise what the run without the restart reports.
class MidpointPressure {
 public:
  explicit MidpointPressure(const TimeStepper& stepper) {
    if (stepper.steps() == 0) return;
    const TimeStepperState m = stepper.memory();
    const FlowVector* last[3] = {&m.current, &m.previous, &m.older};
    // Those of steps >= 1: p^0, the initial state's, is not a step's (nor in the series).
    for (int k = std::min(stepper.steps(), 3) - 1; k >= 0; --k) keep(last[k]->p());
  }

  /// After step n (t: the series' times, up to t_n): keeps r.p and puts the pressure to report
  /// in its place.
  void report(const std::vector<double>& t, NavierStokesResult& r) {
    keep(r.p);
    const std::array<double, 4> c = midpoint_weights(t, t.size() - 1);
    for (std::size_t i = 0; i < r.p.size(); ++i) {
      double p = 0;
      for (int k = 0; k < held_; ++k) p += c[k] * kept_[(newest_ + 4 - k) % 4][i];
      r.p[i] = p;
    }
  }

 private:
  void keep(std::span<const double> p) {
    newest_ = (newest_ + 1) % 4;
    kept_[newest_].assign(p.begin(), p.end());
    held_ = std::min(held_ + 1, 4);
  }

  std::array<std::vector<double>, 4> kept_;  ///< ring: the newest at newest_
  int newest_ = 0, held_ = 0;
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
  std::optional<MidpointPressure> reported;
  if (midpoints) reported.emplace(stepper);
  while (!stepper.finished()) {
    result.last = stepper.advance();
    const FlowQuantities q = evaluate_flow_quantities(per_step, result.last, params.nu, comm);
    record(stepper.last(), q, own);
    if (reported) reported->report(own.t, result.last);
    if (step_done)
      step_done(stepper.last(), with_series_values(q, own, own.t.size() - 1, midpoints),
                result.last);
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
