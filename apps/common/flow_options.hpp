#pragma once
// The keys of a quilt-flow run (mesh, boundary, flow, stabilisation, nonlinear, solver,
// postprocess and the two-layer solver's keys) and their reading into NavierStokesParams: shared
// by quilt-flow and the benchmarks that run its configurations.

#include <string>
#include <vector>

#include "flow/navier_stokes_solver.hpp"
#include "io/config.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

void declare_flow_keys(Config& config);

struct FlowOptions {
  NavierStokesParams params;
  double reference_velocity = 1.0;  ///< U in Re = U L / nu
  double reference_length = 1.0;    ///< L in Re = U L / nu
  double reynolds(double nu) const { return reference_velocity * reference_length / nu; }
};

/// Reads and validates the keys (ConfigError naming the key).
FlowOptions read_flow_options(const Config& config, const Communicator& comm);

/// The value of `key` as a whitespace-separated list of numbers (ConfigError otherwise).
std::vector<double> config_numbers(const Config& config, const std::string& key);

}  // namespace quilt
