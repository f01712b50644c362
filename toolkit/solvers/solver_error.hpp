#pragma once
#include <stdexcept>

namespace quilt {

/// A linear or nonlinear solve that did not succeed: divergence, breakdown, NaN, iteration cap,
/// a failed factorisation. The message names the solver, the iteration and the quantity.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace quilt
