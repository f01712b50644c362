#pragma once
// The keys of a quilt-poisson run (mesh, problem, outer solver and the two-layer solver's keys)
// and their reading into PoissonParams.

#include "io/config.hpp"
#include "parallel/communicator.hpp"
#include "solvers/poisson_problem.hpp"

namespace quilt {

void declare_poisson_keys(Config& config);

/// Collective. Checks that every rank parsed the same configuration (check_same_configuration),
/// reads and validates the keys (ConfigError naming the key).
PoissonParams read_poisson_params(const Config& config, const Communicator& comm);

}  // namespace quilt
