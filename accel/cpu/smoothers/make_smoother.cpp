#include <memory>

#include "accel/cpu/smoothers/gauss_seidel_smoother.hpp"
#include "accel/cpu/smoothers/ilu_smoother.hpp"
#include "accel/cpu/smoothers/jacobi_smoother.hpp"
#include "accel/cpu/smoothers/line_smoother.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
std::unique_ptr<Smoother<T>> make_smoother(const BandedMatrix<T>& A, const SmootherParams& p) {
  return make_smoother(A, detect_stencil_zones(A), p);
}

template <class T>
std::unique_ptr<Smoother<T>> make_smoother(const BandedMatrix<T>& A, const StencilZones<T>& zones,
                                           const SmootherParams& p, T* scratch) {
  if (p.order == SweepOrder::colour && !has_colour_order(p.type))
    throw AccelError("solver.local.ordering=colour: the " + to_string(p.type) +
                     " smoother has no colour variant");
  switch (p.type) {
    case SmootherType::jacobi:
      return std::make_unique<JacobiSmoother<T>>(A, zones, p.damping, scratch);
    case SmootherType::gs:
    case SmootherType::sor:
      return std::make_unique<GaussSeidelSmoother<T>>(A, p.damping, p.order, false);
    case SmootherType::ssor:
      return std::make_unique<GaussSeidelSmoother<T>>(A, p.damping, p.order, true);
    case SmootherType::trigs_x:
      return std::make_unique<LineSmoother<T>>(A, zones, p.damping, p.order, LineDirections::x);
    case SmootherType::trigs_y:
      return std::make_unique<LineSmoother<T>>(A, zones, p.damping, p.order, LineDirections::y);
    case SmootherType::aditrigs:
      return std::make_unique<LineSmoother<T>>(A, zones, p.damping, p.order,
                                               LineDirections::alternating);
    case SmootherType::ilu:
      return std::make_unique<IluSmoother<T>>(A, p.damping);
  }
  throw AccelError("make_smoother: unknown smoother type");
}

template std::unique_ptr<Smoother<float>> make_smoother(const BandedMatrix<float>&,
                                                        const SmootherParams&);
template std::unique_ptr<Smoother<double>> make_smoother(const BandedMatrix<double>&,
                                                         const SmootherParams&);
template std::unique_ptr<Smoother<float>> make_smoother(const BandedMatrix<float>&,
                                                        const StencilZones<float>&,
                                                        const SmootherParams&, float*);
template std::unique_ptr<Smoother<double>> make_smoother(const BandedMatrix<double>&,
                                                         const StencilZones<double>&,
                                                         const SmootherParams&, double*);

}  // namespace quilt::accel::cpu
