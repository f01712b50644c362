#pragma once
// The progress log of a quilt-flow run on stdout: a header, one line per nonlinear step, and a
// summary of the converged flow. Only the rank that is told to write writes (rank 0), so the
// callers need not guard every line.

#include "flow/flow_report.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "flow/time_series.hpp"
#include "flow/time_stepping.hpp"

namespace quilt {

class FlowLog {
 public:
  FlowLog(const FlowRun& run, bool writes) : run_(run), writes_(writes) {}

  /// The run and the column heads of the nonlinear step lines.
  void header() const;
  /// One line per nonlinear step (a ProgressCallback).
  void step(const NonlinearStep& s) const;
  /// The run and the column heads of the time-step lines: with `forces`, drag and lift per step,
  /// else the kinetic energy.
  void time_header(bool forces) const;
  /// One line per time step: t, dt, nonlinear steps, linear iterations, c_D and c_L (or the
  /// kinetic energy, where no forces are evaluated), seconds.
  void time_step(const TimeStepRecord& s, const FlowQuantities& q) const;
  /// The time steps of an instationary run: their count and the iterations per step.
  void series_summary(const TimeSeries& series);
  /// Sizes, iteration counts, timings and the evaluated quantities.
  void summary(const NavierStokesResult& r, const FlowQuantities& q) const;

 private:
  void print_quantities(const FlowQuantities& q) const;
  /// The first line: mesh, level, Reynolds number, ranks.
  void title() const;

  FlowRun run_;
  bool writes_;
  bool series_printed_ = false;  ///< summary() then leaves out the last solve's counts
};

}  // namespace quilt
