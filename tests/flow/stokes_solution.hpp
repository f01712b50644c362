#pragma once
// A Stokes solution for nu = 1 on the unit square with u = 0 on the boundary, shared by the
// stationary and the time-stepping tests:
//   u = (pi sin^2(pi x) sin(2 pi y), -pi sin(2 pi x) sin^2(pi y)),  p = cos(pi x) cos(pi y),
//   f = -Laplace(u) + grad p.

#include <cmath>
#include <numbers>

namespace quilt::stokes_solution {

inline constexpr double pi = std::numbers::pi;

inline double u1(double x, double y) {
  return pi * std::pow(std::sin(pi * x), 2) * std::sin(2 * pi * y);
}
inline double u2(double x, double y) {
  return -pi * std::sin(2 * pi * x) * std::pow(std::sin(pi * y), 2);
}
inline double f1(double x, double y) {
  const double lap = 2 * std::pow(pi, 3) * std::cos(2 * pi * x) * std::sin(2 * pi * y) -
                     4 * std::pow(pi, 3) * std::pow(std::sin(pi * x), 2) * std::sin(2 * pi * y);
  return -lap - pi * std::sin(pi * x) * std::cos(pi * y);
}
inline double f2(double x, double y) {
  const double lap = 4 * std::pow(pi, 3) * std::sin(2 * pi * x) * std::pow(std::sin(pi * y), 2) -
                     2 * std::pow(pi, 3) * std::sin(2 * pi * x) * std::cos(2 * pi * y);
  return -lap - pi * std::cos(pi * x) * std::sin(pi * y);
}

}  // namespace quilt::stokes_solution
