#include "accel/cpu/smoothers/smoother.hpp"

#include <string>

#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
void Smoother<T>::update(const BandedMatrix<T>& A) {
  if (A.macros != macros_ || A.n != n_)
    throw AccelError("smoother update: the matrix has " + std::to_string(A.macros) +
                     " macros of n = " + std::to_string(A.n) + ", the smoother was built for " +
                     std::to_string(macros_) + " of n = " + std::to_string(n_));
  refresh(A);
}

template class Smoother<float>;
template class Smoother<double>;

}  // namespace quilt::accel::cpu
