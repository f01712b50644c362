#include "flow/transient_flow.hpp"

#include <algorithm>

namespace quilt {
namespace {

void record(const TimeStepRecord& step, const FlowQuantities& q, TimeSeries& s) {
  s.t.push_back(step.time);
  s.nonlinear_steps.push_back(step.nonlinear_steps);
  s.linear_iterations.push_back(step.linear_iterations);
  s.seconds.push_back(step.seconds);
  if (q.forces) {
    s.drag.push_back(q.forces->drag);
    s.lift.push_back(q.forces->lift);
  }
  if (q.pressure_difference) s.pressure_difference.push_back(*q.pressure_difference);
}

}  // namespace

TransientFlowResult solve_transient_flow(
    const NavierStokesParams& params, const TimeSteppingParams& time,
    const FlowPostprocessing& post, const Communicator& comm,
    const std::function<void(const TimeStepRecord&, const FlowQuantities&)>& step_done) {
  FlowPostprocessing per_step = post;
  per_step.centerlines = false;  // profiles and L_a: at the end time only
  per_step.recirculation.reset();
  NavierStokesSolver solver(params, comm);
  TimeStepper stepper(solver, time);
  TransientFlowResult result;
  while (!stepper.finished()) {
    result.last = stepper.advance();
    const FlowQuantities q = evaluate_flow_quantities(per_step, result.last, params.nu, comm);
    record(stepper.last(), q, result.series);
    if (step_done) step_done(stepper.last(), q);
  }
  return result;
}

void add_time_series(const TimeSeries& s, Json& results) {
  Json& j = results["time_series"];
  j["t"] = s.t;
  if (!s.drag.empty()) {
    j["drag"] = s.drag;
    j["lift"] = s.lift;
  }
  if (!s.pressure_difference.empty()) j["pressure_difference"] = s.pressure_difference;
  j["nonlinear_steps"] = s.nonlinear_steps;
  j["linear_iterations"] = s.linear_iterations;
  j["seconds"] = s.seconds;
  if (!s.drag.empty()) {
    results["drag_max"] = *std::max_element(s.drag.begin(), s.drag.end());
    results["lift_max"] = *std::max_element(s.lift.begin(), s.lift.end());
  }
}

}  // namespace quilt
