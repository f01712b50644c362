#include "accel/cpu/smoothers/jacobi_smoother.hpp"

#include <algorithm>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
JacobiSmoother<T>::JacobiSmoother(const BandedMatrix<T>& A, const StencilZones<T>& zones,
                                  double damping, T* scratch)
    : Smoother<T>(A, true),
      omega_(static_cast<T>(damping)),
      own_scratch_(scratch == nullptr ? A.rows() : 0),
      scratch_(scratch == nullptr ? own_scratch_.data() : scratch) {
  refresh(A, zones);
}

template <class T>
void JacobiSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) {
  if (!A.has_bands() && !zones.all())
    throw AccelError(
        "Jacobi smoother: a matrix without bands (shape_only) needs every macro zoned");
  zones_ = zones;
  check_diagonal(A, zones_);  // the sweeps divide by the diagonal as they go
}

template <class T>
void JacobiSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                               SweepDirection, bool x_is_zero) {
  if (steps == 0) {
    if (x_is_zero) std::fill(x, x + A.rows(), T(0));
    return;
  }
  // Sweeps alternate between x and the scratch iterate so that the last one writes x: with an
  // odd count the first sweep reads a copy. From x = 0 the first sweep is omega D^{-1} b.
  T* into[2] = {x, scratch_};
  int target = (steps - 1) % 2;  // the buffer the first sweep writes
  int s = 0;
  if (x_is_zero) {
    jacobi_from_zero(A, zones_, omega_, b, into[target]);
    target = 1 - target;
    s = 1;
  } else if (target == 0) {
    std::copy(x, x + A.rows(), scratch_);
  }
  for (; s < steps; ++s) {
    jacobi_sweep(A, zones_, omega_, b, into[1 - target], into[target]);
    target = 1 - target;
  }
}

template class JacobiSmoother<float>;
template class JacobiSmoother<double>;

}  // namespace quilt::accel::cpu
