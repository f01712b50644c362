#pragma once
// An instationary flow run: the time stepper (flow/time_stepping.hpp) from rest to
// TimeSteppingParams::end, with the postprocessing of every time step collected as time series
// (the DFG 2D-2/2D-3 quantities: drag, lift, pressure difference over time).

#include <functional>
#include <vector>

#include "flow/flow_report.hpp"
#include "flow/time_stepping.hpp"

namespace quilt {

/// The quantities of every time step, one entry per step.
struct TimeSeries {
  std::vector<double> t, drag, lift, pressure_difference;
  std::vector<int> nonlinear_steps, linear_iterations;
  std::vector<double> seconds;
};

struct TransientFlowResult {
  NavierStokesResult last;  ///< the flow at the end time
  TimeSeries series;
};

/// Collective: integrates from the Dirichlet values at t = 0 (rest inside); `step_done` is
/// called after every time step with its record and quantities.
TransientFlowResult solve_transient_flow(
    const NavierStokesParams& params, const TimeSteppingParams& time,
    const FlowPostprocessing& post, const Communicator& comm,
    const std::function<void(const TimeStepRecord&, const FlowQuantities&)>& step_done = {});

/// The series and their maxima as the results document's "time_series", "drag_max",
/// "lift_max" (absent quantities left out).
void add_time_series(const TimeSeries& series, Json& results);

}  // namespace quilt
