#pragma once
// The keys of a quilt-flow run (mesh, boundary, flow, stabilisation, nonlinear, solver,
// postprocess and the two-layer solver's keys) and their reading into NavierStokesParams and
// FlowPostprocessing: shared by quilt-flow and the benchmarks that run its configurations.

#include <optional>
#include <string>
#include <vector>

#include "flow/flow_report.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "flow/time_stepping.hpp"
#include "flow/transient_flow.hpp"
#include "io/config.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// Declares the keys; their defaults are those of NavierStokesParams, ReynoldsScale and
/// FlowPostprocessing but for the mesh (the app's default problem) and the centreline points.
void declare_flow_keys(Config& config);

struct FlowOptions {
  NavierStokesParams params;
  ReynoldsScale scale;  ///< flow.reference_velocity, flow.reference_length
  FlowPostprocessing postprocessing;
  std::optional<TimeSteppingParams> time;  ///< empty: the stationary problem (time.scheme)
  TransientOutput output;                  ///< instationary: VTU series, CSV, checkpoints
};

/// Collective. Checks that every rank parsed the same configuration (check_same_configuration),
/// reads and validates the keys (ConfigError naming the key), the postprocessing ones included,
/// so that nothing found wrong after the solve wastes it: a postprocess.forces part is looked up
/// in mesh.file, and the points the postprocessing evaluates at (postprocessing_points: the
/// pressure points, the recirculation line's ends, the centreline points) in the refined mesh
/// (which is read and distributed for that). A stationary run refuses the
/// instationary outputs (series, restart, vtu-every, checkpoint-every).
FlowOptions read_flow_options(const Config& config, const Communicator& comm);

/// The value of `key` as a whitespace-separated list of numbers (ConfigError otherwise).
std::vector<double> config_numbers(const Config& config, const std::string& key);

}  // namespace quilt
