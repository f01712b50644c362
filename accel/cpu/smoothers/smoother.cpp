#include "accel/cpu/smoothers/smoother.hpp"

#include <string>

#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
Smoother<T>::Smoother(const BandedMatrix<T>& A, bool zones_suffice)
    : macros_(A.macros), n_(A.n), zones_suffice_(zones_suffice) {
  check_matrix(A, "smoother set-up");
}

template <class T>
void Smoother<T>::check_matrix(const BandedMatrix<T>& A, const char* who) const {
  if (A.macros != macros_ || A.n != n_)
    throw AccelError(std::string(who) + ": the matrix has " + std::to_string(A.macros) +
                     " macros of n = " + std::to_string(A.n) + ", the smoother was built for " +
                     std::to_string(macros_) + " of n = " + std::to_string(n_));
  if (!A.has_bands() && !zones_suffice_)
    throw AccelError(std::string(who) +
                     ": the matrix has no bands (shape_only), and this smoother reads them");
}

template <class T>
void Smoother<T>::update(const BandedMatrix<T>& A) {
  check_matrix(A, "smoother update");
  detect_stencil_zones(A, detected_);
  refresh(A, detected_);
}

template <class T>
void Smoother<T>::update(const BandedMatrix<T>& A, const StencilZones<T>& zones) {
  check_matrix(A, "smoother update");
  refresh(A, zones);
}

template class Smoother<float>;
template class Smoother<double>;

}  // namespace quilt::accel::cpu
