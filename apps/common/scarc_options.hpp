#pragma once
// The configuration keys of the two-layer solver, shared by every application: the global
// ScaRC multigrid (solver.mg.*, solver.coarse.*) and the local layer (solver.local.*).

#include <cstddef>

#include "io/config.hpp"
#include "parallel/communicator.hpp"
#include "solvers/global_multigrid.hpp"

namespace quilt {

void declare_scarc_keys(Config& config);

struct ScarcOptions {
  GlobalMultigridParams multigrid;
  std::size_t coarse_threshold = 20000;
};

/// Reads and validates the keys (ConfigError naming the key); maps the cuda target to a device
/// by node-local rank unless solver.local.device pins one.
ScarcOptions read_scarc_options(const Config& config, const Communicator& comm);

}  // namespace quilt
