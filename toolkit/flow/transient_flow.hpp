#pragma once
// An instationary flow run: the time stepper (flow/time_stepping.hpp) from rest to
// TimeSteppingParams::end, with the postprocessing of every time step collected as time series
// (the DFG 2D-2/2D-3 quantities: drag, lift, pressure difference over time).

#include <functional>
#include <string>

#include "flow/flow_report.hpp"
#include "flow/time_series.hpp"
#include "flow/time_stepping.hpp"

namespace quilt {

/// What an instationary run writes while it runs, and where it starts (quilt-flow's --vtu,
/// --vtu-every, --series, --checkpoint, --checkpoint-every, --restart).
struct TransientOutput {
  std::string vtu_directory;  ///< empty: no VTU series
  int vtu_every = 0;          ///< DIR/flow_NNNNNN.pvtu every k-th step, listed in DIR/flow.pvd
  std::string series_csv;     ///< the time series as CSV (write_time_series_csv); empty: none
  std::string checkpoint;     ///< the checkpoint file (flow/checkpoint.hpp)
  int checkpoint_every = 0;   ///< written after every k-th step (0: never)
  std::string restart;        ///< continue from this checkpoint instead of t = 0; empty: none
};

struct TransientFlowResult {
  /// The flow at the end time; with Crank-Nicolson its pressure and time derivative from the
  /// means of the steps (from_midpoints), its momentum residuals moved to them
  /// (transient_flow.cpp).
  NavierStokesResult last;
  /// As reported: with Crank-Nicolson, drag, lift and pressure difference from_midpoints
  /// (flow/time_series.hpp); the values of each step's own pressure are in the checkpoints.
  TimeSeries series;
  /// q of the flow at the end time with drag, lift and pressure difference as `series` has them
  /// at its end (with Crank-Nicolson, evaluated on `last` they differ from those by O(k^3): the
  /// velocity's part of them is not taken from the step means).
  FlowQuantities at_end(FlowQuantities q) const;
};

/// Collective: integrates from the Dirichlet values at t = 0 (rest inside), or from the
/// checkpoint output.restart, to time.end; writes what `output` asks for on the way (the CSV
/// with every checkpoint and at the end); `step_done` is called after every time step with its
/// record, its flow as reported (as TransientFlowResult::last) and that flow's quantities, with
/// drag, lift and pressure difference as the series reports them.
TransientFlowResult solve_transient_flow(
    const NavierStokesParams& params, const TimeSteppingParams& time,
    const FlowPostprocessing& post, const TransientOutput& output, const Communicator& comm,
    const std::function<void(const TimeStepRecord&, const FlowQuantities&,
                             const NavierStokesResult&)>& step_done = {});

}  // namespace quilt
