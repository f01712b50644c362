#pragma once
// The configuration keys of the two-layer solver, shared by every application: the global
// ScaRC multigrid (solver.mg.*, solver.coarse.*) and the local layer (solver.local.*).

#include <cstddef>
#include <optional>
#include <string>

#include "accel/local_solver.hpp"
#include "io/config.hpp"
#include "parallel/communicator.hpp"
#include "solvers/global_multigrid.hpp"

namespace quilt {

void declare_scarc_keys(Config& config);

/// The value of a string key turned into an accel enum by `parse` (accel::parse_target, ...); a
/// value it rejects (AccelError) is a ConfigError naming the key.
template <class Parse>
auto parse_key(const Config& config, const std::string& key, Parse parse) {
  try {
    return parse(config.get<std::string>(key));
  } catch (const accel::AccelError& e) {
    config.fail(key, e.what());
  }
}

/// The value of the ordering keys (solver.local.ordering, solver.velocity.ordering) that leaves
/// the choice to the target: accel::natural_order.
inline constexpr const char* kAutoOrdering = "auto";

/// The value of solver.local.smoother that takes a point smoother (Jacobi or Gauss-Seidel) on
/// levels of shape-regular elements and aditrigs on the others
/// (GlobalMultigridParams::auto_smoother).
inline constexpr const char* kAutoSmoother = "auto";

/// A smoother's ordering key: `auto` gives accel::natural_order(smoother, target), else the
/// ordering named (a ConfigError naming the key for any other value).
accel::SweepOrder read_ordering(const Config& config, const std::string& key,
                                accel::SmootherType smoother, accel::Target target);

/// The relaxation omega of a smoother (solver.local.damping, solver.velocity.damping): Jacobi
/// and SOR converge on an SPD matrix at best for omega in (0, 2).
inline const Range<double> kSmootherDampingRange = Range<double>::open(0, 2);

/// Checks a smoother's type, ordering and damping (accel::check_smoother) when the keys are
/// read, before any work; `keys` is the section, e.g. "solver.local".
void check_smoother_keys(const Config& config, accel::SmootherType type, accel::SweepOrder order,
                         const std::optional<double>& damping, const std::string& keys);

struct ScarcOptions {
  GlobalMultigridParams multigrid;
  std::size_t coarse_threshold = kDefaultCoarseThreshold;
};

/// Reads and validates the keys (ConfigError naming the key); maps the cuda target to a device
/// by node-local rank unless solver.local.device pins one.
ScarcOptions read_scarc_options(const Config& config, const Communicator& comm);

}  // namespace quilt
