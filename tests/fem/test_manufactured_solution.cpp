// The manufactured solutions' batch forms (vectorised, compiled with -ffast-math) against their
// pointwise forms and their own definitions, and the error norms built on them.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "fem/manufactured_solution.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;

namespace {

/// Points spread over [0,1]^2 (a fixed pseudo-random sequence), count of them.
void points(std::size_t count, std::vector<double>& x, std::vector<double>& y) {
  x.resize(count);
  y.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    x[k] = std::fmod(0.6180339887498949 * static_cast<double>(k + 1), 1.0);
    y[k] = std::fmod(0.7548776662466927 * static_cast<double>(k + 1), 1.0);
  }
}

}  // namespace

// Every batch length from 1 to 19 (the vector loops' remainders) and one long batch: the batch
// values agree with the pointwise u to a few ulp (libmvec: 4 ulp per function), the gradient
// with central differences of u, and f with -Laplace u by the 5-point difference.
TEST(ManufacturedSolution, BatchFormsAgreeWithThePointwiseSolution) {
  for (const char* name : {"sin_sin", "exp_sin"}) {
    const ManufacturedSolution s = manufactured_solution(name);
    std::vector<std::size_t> counts;
    for (std::size_t c = 1; c < 20; ++c) counts.push_back(c);
    counts.push_back(1000);
    for (std::size_t count : counts) {
      std::vector<double> x, y;
      points(count, x, y);
      std::vector<double> u(count), ux(count), uy(count), f(count);
      s.u_with_gradient(x, y, u, ux, uy);
      s.f(x, y, f);
      const double h = 1e-4, h2 = 1e-3;
      for (std::size_t k = 0; k < count; ++k) {
        const double X = x[k], Y = y[k];
        EXPECT_NEAR(u[k], s.u(X, Y), 4e-15) << name << " at " << X << ", " << Y;
        EXPECT_NEAR(ux[k], (s.u(X + h, Y) - s.u(X - h, Y)) / (2 * h), 1e-6) << name;
        EXPECT_NEAR(uy[k], (s.u(X, Y + h) - s.u(X, Y - h)) / (2 * h), 1e-6) << name;
        const double laplace =
            (s.u(X + h2, Y) + s.u(X - h2, Y) + s.u(X, Y + h2) + s.u(X, Y - h2) - 4 * s.u(X, Y)) /
            (h2 * h2);
        EXPECT_NEAR(f[k], -laplace, 1e-4) << name << " at " << X << ", " << Y;
      }
    }
  }
}

// The isoparametric Q1 space holds every linear function on any quadrilateral, so its nodal
// interpolant has no error: the norms must vanish to round-off. A batch value taken at another
// quadrature point than the one the loop integrates at would not.
TEST(ManufacturedSolution, ErrorNormsOfALinearFunctionVanish) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  const auto linear = [](double x, double y) { return 1.0 + 2.0 * x - 3.0 * y; };
  const BatchFunctionWithGradient exact = [&](std::span<const double> x, std::span<const double> y,
                                              std::span<double> u, std::span<double> ux,
                                              std::span<double> uy) {
    for (std::size_t k = 0; k < x.size(); ++k) {
      u[k] = linear(x[k], y[k]);
      ux[k] = 2.0;
      uy[k] = -3.0;
    }
  };
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, 3);
    std::vector<double> uh(g.x.size());
    for (std::size_t r = 0; r < uh.size(); ++r) uh[r] = linear(g.x[r], g.y[r]);
    const SquaredErrors e = q1_squared_errors(g, uh.data(), exact);
    EXPECT_LT(e.l2, 1e-28) << "macro " << c;
    EXPECT_LT(e.h1_semi, 1e-24) << "macro " << c;
    // Its gradient taken wrong by 1 in x: |grad(u - u_h)|^2 = the macro's area.
    const SquaredErrors shifted =
        q1_squared_errors(g, uh.data(), [&](auto x, auto y, auto u, auto ux, auto uy) {
          exact(x, y, u, ux, uy);
          for (double& d : ux) d += 1.0;
        });
    EXPECT_NEAR(shifted.h1_semi, macro_area(g), 1e-13) << "macro " << c;
  }
}
