#include "fem/manufactured_solution.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

// This file is compiled with -ffast-math (toolkit/CMakeLists.txt), under which glibc's math.h
// declares the vector variants of sin, cos and exp (libmvec, accurate to 4 ulp: far below the
// discretisation errors these solutions measure), so that the batch loops below are vectorised.
// The x86-64 baseline has 2 doubles per vector; the AVX2 clone, chosen at load time where the CPU
// has it, 4. Each loop calls one function of one argument: sin and cos of the same argument in
// one loop are merged into a sincos call, which is not vectorised.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QUILT_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define QUILT_VECTOR_CLONES
#endif

namespace quilt {
namespace {

constexpr double pi = std::numbers::pi;

/// f[k] = scale sin(pi x[k]) sin(pi y[k]).
QUILT_VECTOR_CLONES void sin_sin(const double* __restrict x, const double* __restrict y,
                                 double* __restrict f, std::size_t count, double scale) {
  for (std::size_t k = 0; k < count; ++k) f[k] = scale * std::sin(pi * x[k]) * std::sin(pi * y[k]);
}

/// u = sin(pi x) sin(pi y) and its gradient; the sines first, held in u and uy.
QUILT_VECTOR_CLONES void sin_sin_with_gradient(const double* __restrict x,
                                               const double* __restrict y, double* __restrict u,
                                               double* __restrict ux, double* __restrict uy,
                                               std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) u[k] = std::sin(pi * x[k]);
  for (std::size_t k = 0; k < count; ++k) uy[k] = std::sin(pi * y[k]);
  for (std::size_t k = 0; k < count; ++k) ux[k] = pi * std::cos(pi * x[k]) * uy[k];
  for (std::size_t k = 0; k < count; ++k) {
    const double sx = u[k], sy = uy[k];
    u[k] = sx * sy;
    uy[k] = pi * sx * std::cos(pi * y[k]);
  }
}

/// f = e^{x/2} (4.75 sin s - cos s), s = 2y + x: -Laplace of u below.
QUILT_VECTOR_CLONES void exp_sin_load(const double* __restrict x, const double* __restrict y,
                                      double* __restrict f, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) f[k] = 4.75 * std::sin(2 * y[k] + x[k]);
  for (std::size_t k = 0; k < count; ++k) f[k] -= std::cos(2 * y[k] + x[k]);
  for (std::size_t k = 0; k < count; ++k) f[k] *= std::exp(0.5 * x[k]);
}

/// u = e^{x/2} sin s, s = 2y + x: u_x = e^{x/2}(sin s / 2 + cos s), u_y = 2 e^{x/2} cos s. The
/// exponential is held in uy, sin s in u.
QUILT_VECTOR_CLONES void exp_sin_with_gradient(const double* __restrict x,
                                               const double* __restrict y, double* __restrict u,
                                               double* __restrict ux, double* __restrict uy,
                                               std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) uy[k] = std::exp(0.5 * x[k]);
  for (std::size_t k = 0; k < count; ++k) u[k] = std::sin(2 * y[k] + x[k]);
  for (std::size_t k = 0; k < count; ++k) {
    const double e = uy[k], s = u[k], c = std::cos(2 * y[k] + x[k]);
    u[k] = e * s;
    ux[k] = e * (0.5 * s + c);
    uy[k] = 2 * e * c;
  }
}

}  // namespace

ManufacturedSolution manufactured_solution(const std::string& name) {
  using Points = std::span<const double>;
  using Values = std::span<double>;
  if (name == "sin_sin") {
    return {name, [](double x, double y) { return std::sin(pi * x) * std::sin(pi * y); },
            [](Points x, Points y, Values f) {
              sin_sin(x.data(), y.data(), f.data(), x.size(), 2 * pi * pi);
            },
            [](Points x, Points y, Values u, Values ux, Values uy) {
              sin_sin_with_gradient(x.data(), y.data(), u.data(), ux.data(), uy.data(), x.size());
            }};
  }
  if (name == "exp_sin") {
    // u_xx = e^{x/2}(cos s - 3/4 sin s), u_yy = -4 e^{x/2} sin s.
    return {
        name, [](double x, double y) { return std::exp(0.5 * x) * std::sin(2 * y + x); },
        [](Points x, Points y, Values f) { exp_sin_load(x.data(), y.data(), f.data(), x.size()); },
        [](Points x, Points y, Values u, Values ux, Values uy) {
          exp_sin_with_gradient(x.data(), y.data(), u.data(), ux.data(), uy.data(), x.size());
        }};
  }
  throw std::invalid_argument("unknown manufactured solution '" + name +
                              "' (expected sin_sin or exp_sin)");
}

}  // namespace quilt
