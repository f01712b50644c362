// Properties of the stabilised Q1/Q1 Navier-Stokes blocks (flow/navier_stokes_operators.hpp) on
// every macro of the shipped meshes: transposition and sign relations between the blocks,
// Galerkin consistency of the residual-based stabilisation, and closed-form values of tau_K and
// delta_K on uniform rectangles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "fem/scalar_assembly.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "flow/nodal_field.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;
using accel::BandedMatrix;

namespace {

/// The six blocks of a batch, plus the pointer view the assembly takes.
struct Blocks {
  BandedMatrix<double> A, B1, B2, D1, D2, C;
  Blocks(int macros, int n)
      : A(macros, n), B1(macros, n), B2(macros, n), D1(macros, n), D2(macros, n), C(macros, n) {}
  NavierStokesBlocks view() { return {&A, &B1, &B2, &D1, &D2, &C}; }
};

struct Assembly {
  double nu = 1.0;
  bool convection = true;
  StabilisationParams stab{};
};

/// Assembles every macro of `mesh` at `level` with the linearisation velocity w = (w1, w2).
Blocks assemble_mesh(const CoarseMesh& mesh, int level, const Field& w1, const Field& w2,
                     const Assembly& as) {
  const int n = accel::nodes_per_side(level);
  Blocks b(mesh.num_cells(), n);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    const std::vector<double> u1 = nodal(g, w1), u2 = nodal(g, w2);
    add_navier_stokes_blocks(g, {u1.data(), u2.data()}, as.nu, as.convection, as.stab, b.view(), c);
  }
  return b;
}

/// Calls f(i, j, di, dj, r, col) for every stored entry whose column lies inside the grid.
template <class F>
void for_each_entry(int n, F&& f) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < accel::kBands; ++k) {
        const int di = k % 3 - 1, dj = k / 3 - 1;
        if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) continue;
        const std::size_t r = i + static_cast<std::size_t>(j) * n;
        f(i, j, k, r, r + static_cast<std::size_t>(dj * n + di));
      }
}

/// Entry M(col, r) of the transpose position, for an entry (r, col) in band k.
double transposed(const BandedMatrix<double>& M, int m, int k, std::size_t col) {
  return M.at(accel::band_index(-(k % 3 - 1), -(k / 3 - 1)), m, col);
}

double max_abs(const BandedMatrix<double>& M) {
  double v = 0;
  for (const auto& band : M.band)
    for (double x : band) v = std::max(v, std::abs(x));
  return v;
}

/// y = M v on macro m.
std::vector<double> apply(const BandedMatrix<double>& M, int m, const std::vector<double>& v) {
  std::vector<double> y(M.rows_per_macro(), 0.0);
  for_each_entry(M.n, [&](int, int, int k, std::size_t r, std::size_t col) {
    y[r] += M.at(k, m, r) * v[col];
  });
  return y;
}

bool interior(int n, std::size_t r) {
  const int i = static_cast<int>(r % n), j = static_cast<int>(r / n);
  return i > 0 && j > 0 && i + 1 < n && j + 1 < n;
}

struct MeshCase {
  const char* file;
};

class NavierStokesOperators : public ::testing::TestWithParam<MeshCase> {};

// A linear solenoidal field and a linear pressure: exact Oseen solutions reproduced by Q1.
double u1_exact(double x, double y) {
  return 0.3 + 2.0 * x + 0.5 * y;
}
double u2_exact(double x, double y) {
  return -0.7 + 1.5 * x - 2.0 * y;
}
double p_exact(double x, double y) {
  return 1.2 - 0.8 * x + 1.9 * y;
}

// A non-constant linearisation velocity, so that |w|_K, h_K, tau_K and delta_K vary per element.
double w1_field(double x, double y) {
  return 1.0 + 0.5 * y - 0.3 * x;
}
double w2_field(double x, double y) {
  return 0.3 - 0.4 * x + 0.2 * y;
}

}  // namespace

// Without convection there is no stabilisation term in B or D: D = -B^T on every macro, also
// with a non-zero w passed in (it must be ignored), and C is the w = 0 PSPG Laplacian.
TEST_P(NavierStokesOperators, StokesDivergenceIsMinusGradientTranspose) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3, n = accel::nodes_per_side(level);
  Blocks b = assemble_mesh(mesh, level, w1_field, w2_field, {0.01, false, {}});
  Blocks zero = assemble_mesh(
      mesh, level, [](double, double) { return 0.0; }, [](double, double) { return 0.0; },
      {0.01, true, {}});
  const double scale = max_abs(b.B1) + max_abs(b.B2);
  ASSERT_GT(scale, 0.0);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for_each_entry(n, [&](int, int, int k, std::size_t r, std::size_t col) {
      EXPECT_NEAR(b.D1.at(k, c, r), -transposed(b.B1, c, k, col), 1e-15 * scale);
      EXPECT_NEAR(b.D2.at(k, c, r), -transposed(b.B2, c, k, col), 1e-15 * scale);
      EXPECT_EQ(b.C.at(k, c, r), zero.C.at(k, c, r));
      EXPECT_EQ(b.A.at(k, c, r), zero.A.at(k, c, r));
    });
}

// With w = 0 every w-dependent term vanishes even with convection on: A = nu L, B and D are the
// Galerkin blocks, and A is symmetric.
TEST_P(NavierStokesOperators, ZeroVelocityLeavesGalerkinBlocks) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3, n = accel::nodes_per_side(level);
  const double nu = 0.05;
  const Field zero = [](double, double) { return 0.0; };
  Blocks b = assemble_mesh(mesh, level, zero, zero, {nu, true, {}});
  Blocks stokes = assemble_mesh(mesh, level, w1_field, w2_field, {nu, false, {}});
  BandedMatrix<double> L(mesh.num_cells(), n);
  for (int c = 0; c < mesh.num_cells(); ++c)
    add_laplacian(refine_macro(mesh, {}, c, level), L, c, nu);
  const double scale = max_abs(L);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for_each_entry(n, [&](int, int, int k, std::size_t r, std::size_t col) {
      EXPECT_NEAR(b.A.at(k, c, r), L.at(k, c, r), 1e-14 * scale);
      EXPECT_NEAR(b.A.at(k, c, r), transposed(b.A, c, k, col), 1e-14 * scale);
      EXPECT_EQ(b.B1.at(k, c, r), stokes.B1.at(k, c, r));
      EXPECT_EQ(b.B2.at(k, c, r), stokes.B2.at(k, c, r));
      EXPECT_EQ(b.D1.at(k, c, r), stokes.D1.at(k, c, r));
      EXPECT_EQ(b.D2.at(k, c, r), stokes.D2.at(k, c, r));
    });
}

// C = sum_K tau_K (grad phi_j, grad psi_i)_K with tau_K > 0 is symmetric positive semidefinite
// with the constants in its kernel, for any w.
TEST_P(NavierStokesOperators, PressureStabilisationIsSymmetricSemidefinite) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3, n = accel::nodes_per_side(level);
  Blocks b = assemble_mesh(mesh, level, w1_field, w2_field, {0.002, true, {1.0, 0.7}});
  const double scale = max_abs(b.C);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const std::vector<double> ones(b.C.rows_per_macro(), 1.0);
    const std::vector<double> c_one = apply(b.C, c, ones);
    for (double v : c_one) EXPECT_NEAR(v, 0.0, 1e-13 * scale);
    for_each_entry(n, [&](int, int, int k, std::size_t r, std::size_t col) {
      EXPECT_NEAR(b.C.at(k, c, r), transposed(b.C, c, k, col), 1e-15 * scale);
      if (k == accel::kCentre) {
        EXPECT_GT(b.C.at(k, c, r), 0.0);
      }
    });
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> q(b.C.rows_per_macro());
      for (double& v : q) v = uni(rng);
      const std::vector<double> cq = apply(b.C, c, q);
      double energy = 0;
      for (std::size_t r = 0; r < q.size(); ++r) energy += q[r] * cq[r];
      EXPECT_GT(energy, 0.0);
    }
  }
}

// (div u_h, psi_i) = 0 on every row when u_h is a linear solenoidal field: Q1 on straight-edged
// quadrilaterals reproduces linear functions, so div u_h vanishes pointwise.
TEST_P(NavierStokesOperators, LinearSolenoidalFieldIsDiscretelyDivergenceFree) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3;
  Blocks b = assemble_mesh(mesh, level, w1_field, w2_field, {0.01, false, {}});
  const double scale = max_abs(b.D1);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    const std::vector<double> d1 = apply(b.D1, c, nodal(g, u1_exact));
    const std::vector<double> d2 = apply(b.D2, c, nodal(g, u2_exact));
    for (std::size_t r = 0; r < d1.size(); ++r) EXPECT_NEAR(d1[r] + d2[r], 0.0, 1e-13 * scale);
  }
}

// ((w.grad) phi_j, phi_i) + ((w.grad) phi_i, phi_j) = int w.grad(phi_i phi_j) = 0 when div w = 0
// and phi_i phi_j vanishes on the macro boundary. 2x2 Gauss integrates N(w) exactly for a Q1 w,
// so N must be skew on the interior block to round-off: this fixes the sign and the
// transposition of the convection term.
TEST_P(NavierStokesOperators, ConvectionIsSkewForSolenoidalVelocity) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3, n = accel::nodes_per_side(level);
  for (int variant = 0; variant < 2; ++variant) {
    const Field w1 = variant == 0 ? Field([](double, double) { return 0.8; }) : Field(u1_exact);
    const Field w2 = variant == 0 ? Field([](double, double) { return -0.6; }) : Field(u2_exact);
    // SUPG off and nu = 1: A - L is N(w).
    Blocks b = assemble_mesh(mesh, level, w1, w2, {1.0, true, {0.0, 1.0}});
    double max_n = 0;
    for (int c = 0; c < mesh.num_cells(); ++c) {
      BandedMatrix<double> N(1, n);
      add_laplacian(refine_macro(mesh, {}, c, level), N, 0, -1.0);
      // add_laplacian computes an affine macro's element matrix once, the flow assembly per
      // element: their Laplacians agree to the round-off of the Laplacian's entries (large on
      // stretched macros), which N = A - L inherits.
      const double tolerance = 1e-14 * std::max(1.0, max_abs(N));
      for (int k = 0; k < accel::kBands; ++k)
        for (std::size_t r = 0; r < N.rows(); ++r) N.band[k][r] += b.A.at(k, c, r);
      max_n = std::max(max_n, max_abs(N));
      for_each_entry(n, [&](int, int, int k, std::size_t r, std::size_t col) {
        if (!interior(n, r) || !interior(n, col)) return;
        EXPECT_NEAR(N.at(k, 0, r) + transposed(N, 0, k, col), 0.0, tolerance)
            << "variant " << variant << " macro " << c << " row " << r;
      });
    }
    EXPECT_GT(max_n, 1e-3);
  }
}

// Residual-based stabilisation is consistent: for an exact Oseen solution (u, p linear, w a
// non-constant linear field, f = (w.grad) u + grad p) every SUPG and PSPG term vanishes element
// by element, whatever tau_K and delta_K. With the quadrature exact for these integrands, the
// continuity residual D u + C p - g is zero on every row and the momentum residual
// A u + B p - f on every interior row. A sign error or transposition in any stabilisation term,
// or a tau_K / delta_K that differs between operators and load, breaks this.
TEST_P(NavierStokesOperators, StabilisedResidualAnnihilatesExactOseenSolution) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3;
  for (bool convection : {true, false}) {
    const Assembly as{0.01, convection, {1.0, 1.0}};
    const Field zero = [](double, double) { return 0.0; };
    const Field w1 = convection ? Field(w1_field) : zero;
    const Field w2 = convection ? Field(w2_field) : zero;
    Blocks b = assemble_mesh(mesh, level, w1, w2, as);
    // (w.grad) u for u1 = 0.3 + 2x + 0.5y, u2 = -0.7 + 1.5x - 2y; grad p = (-0.8, 1.9).
    const ScalarFunction f1 = [&](double x, double y) {
      return w1(x, y) * 2.0 + w2(x, y) * 0.5 - 0.8;
    };
    const ScalarFunction f2 = [&](double x, double y) {
      return w1(x, y) * 1.5 - w2(x, y) * 2.0 + 1.9;
    };
    const double scale = max_abs(b.A) + max_abs(b.B1) + max_abs(b.C);
    for (int c = 0; c < mesh.num_cells(); ++c) {
      const MacroGeometry g = refine_macro(mesh, {}, c, level);
      const std::vector<double> u1 = nodal(g, u1_exact), u2 = nodal(g, u2_exact),
                                p = nodal(g, p_exact), wn1 = nodal(g, w1), wn2 = nodal(g, w2);
      std::vector<double> rhs1(u1.size()), rhs2(u1.size()), rhs_p(u1.size());
      assemble_navier_stokes_load(g, {wn1.data(), wn2.data()}, as.nu, as.convection, as.stab, f1,
                                  f2, rhs1.data(), rhs2.data(), rhs_p.data());
      const auto au1 = apply(b.A, c, u1), au2 = apply(b.A, c, u2), b1p = apply(b.B1, c, p),
                 b2p = apply(b.B2, c, p), d1u = apply(b.D1, c, u1), d2u = apply(b.D2, c, u2),
                 cp = apply(b.C, c, p);
      double max_rhs_p = 0;
      for (std::size_t r = 0; r < u1.size(); ++r) {
        max_rhs_p = std::max(max_rhs_p, std::abs(rhs_p[r]));
        EXPECT_NEAR(d1u[r] + d2u[r] + cp[r] - rhs_p[r], 0.0, 1e-13 * scale)
            << "convection " << convection << " macro " << c << " row " << r;
        if (!interior(g.n, r)) continue;
        EXPECT_NEAR(au1[r] + b1p[r] - rhs1[r], 0.0, 1e-13 * scale);
        EXPECT_NEAR(au2[r] + b2p[r] - rhs2[r], 0.0, 1e-13 * scale);
      }
      EXPECT_GT(max_rhs_p, 1e-6);  // the PSPG load is really there
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, NavierStokesOperators,
                         ::testing::Values(MeshCase{"unit_square_4x2.msh"},
                                           MeshCase{"unit_square_unstructured.msh"}));

// On the 4x2 unit square every element is an a x b rectangle (a = 1/4/2^L, b = 1/2/2^L), so for a
// constant w the streamline length is h = (a |w1| + b |w2|) / |w| on every element and tau,
// delta take one closed-form value. Applied to the Q1 function xy (exact on rectangles), every
// block has a closed-form image on interior rows by integration by parts, e.g.
//   (B1 xy)_i = (y, phi_i) + delta (y, (w.grad) phi_i) = (M y)_i - delta w2 (1, phi_i).
TEST(NavierStokesParameters, ClosedFormOnUniformRectangles) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  const int level = 3, n = accel::nodes_per_side(level);
  const double a = 0.25 / (1 << level), b = 0.5 / (1 << level);
  const double nu = 0.003, w1 = 0.9, w2 = -0.4;
  const StabilisationParams stab{0.6, 1.7, ElementSize::streamline};
  const double speed = std::hypot(w1, w2);
  const double h = (a * std::abs(w1) + b * std::abs(w2)) / speed;
  const double base = 1.0 / std::hypot(2.0 * speed / h, 4.0 * nu / (h * h));
  const double tau = stab.pspg_scale * base, delta = stab.supg_scale * base;

  Blocks blk = assemble_mesh(
      mesh, level, [&](double, double) { return w1; }, [&](double, double) { return w2; },
      {nu, true, stab});
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    BandedMatrix<double> M(1, n), L(1, n), A_only(1, n);
    add_mass(g, M, 0);
    add_laplacian(g, L, 0);
    std::vector<double> lumped(M.rows());
    assemble_lumped_mass(g, lumped.data());
    const auto xy = nodal(g, [](double x, double y) { return x * y; });
    const auto mx = apply(M, 0, nodal(g, [](double x, double) { return x; }));
    const auto my = apply(M, 0, nodal(g, [](double, double y) { return y; }));
    const auto au = apply(blk.A, c, xy), b1p = apply(blk.B1, c, xy), b2p = apply(blk.B2, c, xy),
               d1u = apply(blk.D1, c, xy), d2u = apply(blk.D2, c, xy);
    std::vector<double> rhs1(M.rows()), rhs2(M.rows()), rhs_p(M.rows());
    const std::vector<double> wn1(M.rows(), w1), wn2(M.rows(), w2);
    assemble_navier_stokes_load(
        g, {wn1.data(), wn2.data()}, nu, true, stab, [](double x, double) { return x; },
        [](double, double y) { return y; }, rhs1.data(), rhs2.data(), rhs_p.data());
    const double tol = 1e-13 * (1.0 + max_abs(blk.A));
    for (std::size_t r = 0; r < M.rows(); ++r) {
      if (!interior(n, r)) continue;
      // -nu Laplace(xy) = 0; N: (w.grad)(xy) = w1 y + w2 x; SUPG: -delta w.grad(w1 y + w2 x).
      EXPECT_NEAR(au[r], w1 * my[r] + w2 * mx[r] - 2.0 * delta * w1 * w2 * lumped[r], tol);
      EXPECT_NEAR(b1p[r], my[r] - delta * w2 * lumped[r], tol);
      EXPECT_NEAR(b2p[r], mx[r] - delta * w1 * lumped[r], tol);
      // PSPG convection: tau ((w.grad) xy, d/dx psi) = -tau w2 (1, psi) on interior rows.
      EXPECT_NEAR(d1u[r], my[r] - tau * w2 * lumped[r], tol);
      EXPECT_NEAR(d2u[r], mx[r] - tau * w1 * lumped[r], tol);
      EXPECT_NEAR(rhs1[r], mx[r] - delta * w1 * lumped[r], tol);
      EXPECT_NEAR(rhs2[r], my[r] - delta * w2 * lumped[r], tol);
      EXPECT_NEAR(rhs_p[r], -2.0 * tau * lumped[r], tol);
    }
    // C = tau L entry by entry; add_velocity_operator builds the same A.
    const double c_scale = tau * max_abs(L);
    const std::vector<double> wv1(M.rows(), w1), wv2(M.rows(), w2);
    add_velocity_operator(g, {wv1.data(), wv2.data()}, nu, true, stab, A_only, 0);
    for_each_entry(n, [&](int, int, int k, std::size_t r, std::size_t) {
      EXPECT_NEAR(blk.C.at(k, c, r), tau * L.at(k, 0, r), 1e-14 * c_scale);
      EXPECT_EQ(blk.A.at(k, c, r), A_only.at(k, 0, r));
    });
  }
}

// For w = 0 the streamline length falls back to sqrt(|K|) and tau = pspg_scale h^2 / (4 nu): on
// a uniform square grid the centre entry of C at an interior node is tau * 8/3 (the four
// elements each contribute 2/3 to the Laplacian diagonal).
TEST(NavierStokesParameters, ZeroVelocityTauOnSquares) {
  const int level = 2, n = accel::nodes_per_side(level);
  const double side = 0.8, h = side / (n - 1), nu = 0.02;
  MacroGeometry g;
  g.level = level;
  g.n = n;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      g.x.push_back(0.3 + i * h);
      g.y.push_back(-0.1 + j * h);
    }
  const std::vector<double> zero(g.x.size(), 0.0);
  for (bool convection : {true, false}) {
    Blocks b(1, n);
    const StabilisationParams stab{1.0, 2.5};
    add_navier_stokes_blocks(g, {zero.data(), zero.data()}, nu, convection, stab, b.view(), 0);
    const double tau = stab.pspg_scale * h * h / (4.0 * nu);
    for (std::size_t r = 0; r < b.C.rows(); ++r)
      if (interior(n, r)) {
        EXPECT_NEAR(b.C.at(accel::kCentre, 0, r), tau * 8.0 / 3.0, 1e-14 * tau);
      }
  }
}

// One general quadrilateral (a level-0 macro) with a non-constant w: C = tau_K L_K, with |w|_K
// the mean of the vertex velocities and h_K the extent of K along w/|w|; for w = 0,
// h_K = sqrt(|K|); in a time step with the time scale, (2 / dt)^2 joins the sum.
TEST(NavierStokesParameters, SingleDistortedElement) {
  MacroGeometry g;
  g.level = 0;
  g.n = 2;
  // Grid order (0,0), (1,0), (0,1), (1,1); counterclockwise corners 0, 1, 3, 2.
  g.x = {0.1, 1.0, -0.1, 0.8};
  g.y = {0.0, 0.2, 0.7, 0.9};
  const std::vector<double> w1 = {1.0, 0.4, 0.2, 0.9}, w2 = {0.2, -0.3, 0.1, 0.5};
  const std::vector<double> zero(4, 0.0);
  const double nu = 0.01;
  const StabilisationParams stab{0.8, 1.3, ElementSize::streamline};
  BandedMatrix<double> L(1, 2);
  add_laplacian(g, L, 0);

  const double wc1 = 0.25 * (w1[0] + w1[1] + w1[2] + w1[3]);
  const double wc2 = 0.25 * (w2[0] + w2[1] + w2[2] + w2[3]);
  const double speed = std::hypot(wc1, wc2);
  double lo = 1e300, hi = -1e300;
  for (int r = 0; r < 4; ++r) {
    const double s = (g.x[r] * wc1 + g.y[r] * wc2) / speed;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  // Shoelace over the counterclockwise corners.
  const std::array<int, 4> ccw = {0, 1, 3, 2};
  double area = 0;
  for (int a = 0; a < 4; ++a) {
    const int p = ccw[a], q = ccw[(a + 1) % 4];
    area += 0.5 * (g.x[p] * g.y[q] - g.x[q] * g.y[p]);
  }
  const double h_flow = hi - lo, h_rest = std::sqrt(area);
  const double tau_flow =
      stab.pspg_scale / std::hypot(2.0 * speed / h_flow, 4.0 * nu / (h_flow * h_flow));
  const double tau_rest = stab.pspg_scale * h_rest * h_rest / (4.0 * nu);
  // ElementSize::isotropic: h_K = sqrt(|K|) also for w != 0.
  const double tau_isotropic =
      stab.pspg_scale / std::hypot(2.0 * speed / h_rest, 4.0 * nu / (h_rest * h_rest));

  // A time step with StabilisationTimeScale::step adds its (2 / dt)^2 (Tezduyar & Osawa 2000).
  const double inverse_dt = 40.0;
  const double tau_step = stab.pspg_scale / std::sqrt(std::pow(2.0 * inverse_dt, 2) +
                                                      std::pow(2.0 * speed / h_flow, 2) +
                                                      std::pow(4.0 * nu / (h_flow * h_flow), 2));

  for (int moving = 0; moving < 4; ++moving) {
    Blocks b(1, 2);
    const MacroVelocity w =
        moving ? MacroVelocity{w1.data(), w2.data()} : MacroVelocity{zero.data(), zero.data()};
    Stabilisation s = stab;
    if (moving == 2) s.params.element_size = ElementSize::isotropic;
    if (moving == 3) s.inverse_time_step = inverse_dt;
    add_navier_stokes_blocks(g, w, nu, true, s, b.view(), 0);
    const double tau = std::array{tau_rest, tau_flow, tau_isotropic, tau_step}[moving];
    for_each_entry(2, [&](int, int, int k, std::size_t r, std::size_t) {
      EXPECT_NEAR(b.C.at(k, 0, r), tau * L.at(k, 0, r), 1e-14 * tau * max_abs(L))
          << std::array{"w = 0", "w != 0, streamline", "w != 0, isotropic",
                        "w != 0, streamline, time step"}[moving];
    });
  }
}

// F_p of the PCD approximation: nu L_p, N_p(w) and the SUPG term annihilate constants, so the
// sum of all entries of F_p is the Robin term alone, -int_{Gamma_in} (w.n) ds = U * |Gamma_in|
// for w = (U, 0) entering through the left edge, and nothing where the flow leaves (w.n > 0) or
// on edges that are not on the boundary. Only the diagonal of inflow nodes changes.
TEST(PressureConvectionDiffusion, InflowRobinTerm) {
  MacroGeometry g;
  g.level = 2;
  g.n = 5;
  const double width = 0.8, height = 0.5, U = 1.7, nu = 0.01;
  for (int j = 0; j < g.n; ++j)
    for (int i = 0; i < g.n; ++i) {
      g.x.push_back(width * i / (g.n - 1));
      g.y.push_back(height * j / (g.n - 1));
    }
  const std::vector<double> w1(25, U), w2(25, 0.0);
  const MacroVelocity w{w1.data(), w2.data()};
  const StabilisationParams stab;
  auto entry_sum = [](const BandedMatrix<double>& M) {
    double s = 0;
    for (int k = 0; k < accel::kBands; ++k)
      for (std::size_t r = 0; r < M.rows(); ++r) s += M.at(k, 0, r);
    return s;
  };
  BandedMatrix<double> plain(1, g.n);
  add_velocity_operator(g, w, nu, true, stab, plain, 0);
  // Edge order of mesh/macro_nodes.hpp: 0 bottom, 1 right, 2 top, 3 left.
  for (const auto& [edges, inflow_length] :
       std::vector<std::pair<std::array<bool, 4>, double>>{{{false, false, false, true}, height},
                                                           {{true, true, true, false}, 0.0},
                                                           {{true, true, true, true}, height}}) {
    BandedMatrix<double> Fp(1, g.n);
    add_pressure_convection_diffusion(g, w, nu, true, stab, edges, Fp, 0);
    EXPECT_NEAR(entry_sum(Fp), U * inflow_length, 1e-12);
    for (int k = 0; k < accel::kBands; ++k)
      for (std::size_t r = 0; r < Fp.rows(); ++r) {
        const bool inflow_diagonal = k == accel::band_index(0, 0) && r % g.n == 0 && edges[3];
        if (!inflow_diagonal) {
          EXPECT_DOUBLE_EQ(Fp.at(k, 0, r), plain.at(k, 0, r));
        }
      }
  }
}

namespace {

// A time step's part of the element residual: the time derivative c u - z in the SUPG and PSPG
// terms (flow/time_step_terms.hpp); c = 0: stationary.
struct TimeDerivative {
  double c = 0;
  std::vector<double> z1, z2;
};

// The stabilised residual of one macro, F(u, p) = K(u) [u; p] (type-0, no Dirichlet rows), with
// the Oseen blocks assembled at w = u; in a time step less S(u) z, so that the SUPG/PSPG terms
// carry S(u) (c u - z).
std::vector<double> residual(const MacroGeometry& g, const std::vector<double>& u1,
                             const std::vector<double>& u2, const std::vector<double>& p,
                             const Assembly& as, const TimeDerivative& time = {}) {
  Blocks b(1, g.n);
  add_navier_stokes_blocks(g, {u1.data(), u2.data()}, as.nu, true, as.stab, b.view(), 0, time.c);
  const std::size_t nn = u1.size();
  std::vector<double> f(3 * nn, 0.0);
  const std::vector<double> au1 = apply(b.A, 0, u1), au2 = apply(b.A, 0, u2),
                            b1p = apply(b.B1, 0, p), b2p = apply(b.B2, 0, p),
                            d1u = apply(b.D1, 0, u1), d2u = apply(b.D2, 0, u2),
                            cp = apply(b.C, 0, p);
  for (std::size_t r = 0; r < nn; ++r) {
    f[r] = au1[r] + b1p[r];
    f[nn + r] = au2[r] + b2p[r];
    f[2 * nn + r] = d1u[r] + d2u[r] + cp[r];
  }
  if (time.c > 0) {
    std::vector<double> s(3 * nn, 0.0);
    add_time_derivative_load(g, {u1.data(), u2.data()}, as.nu, true, as.stab,
                             {time.z1.data(), time.z2.data()}, s.data(), s.data() + nn,
                             s.data() + 2 * nn);
    for (std::size_t i = 0; i < f.size(); ++i) f[i] -= s[i];
  }
  return f;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

}  // namespace

// The Newton blocks are the derivative of the residual in u: J d = K(u) [d; 0] + N d must match
// the central difference (F(u + eps d) - F(u - eps d)) / (2 eps), tau_K and delta_K included
// (isotropic h_K), at mesh Peclet numbers ~1 where the stabilisation and its parameters' own
// derivative matter. Without the Newton blocks (Picard) the mismatch is the whole reaction term;
// a wrong sign or a missing term in any block shows far above the O(eps^2) difference error.
// The second pass is a time step (c = 5, random z): the derivative of tau_K and delta_K then also
// multiplies the time derivative c u - z in the element residual.
TEST_P(NavierStokesOperators, NewtonBlocksAreTheResidualDerivative) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  Assembly as;
  as.nu = 0.02;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (const double time_coefficient : {0.0, 5.0})
    for (int c = 0; c < std::min(mesh.num_cells(), 4); ++c) {
      const MacroGeometry g = refine_macro(mesh, {}, c, 2);
      const std::size_t nn = g.x.size();
      std::vector<double> u1(nn), u2(nn), p(nn), d1(nn), d2(nn);
      for (std::size_t r = 0; r < nn; ++r) {
        u1[r] = 1.0 + 0.3 * uniform(rng);
        u2[r] = 0.5 * uniform(rng);
        p[r] = uniform(rng);
        d1[r] = uniform(rng);
        d2[r] = uniform(rng);
      }
      TimeDerivative time{time_coefficient, std::vector<double>(nn), std::vector<double>(nn)};
      std::vector<double> dt1(nn), dt2(nn);  // c u - z at u
      for (std::size_t r = 0; r < nn; ++r) {
        time.z1[r] = time_coefficient * uniform(rng);
        time.z2[r] = time_coefficient * uniform(rng);
        dt1[r] = time_coefficient * u1[r] - time.z1[r];
        dt2[r] = time_coefficient * u2[r] - time.z2[r];
      }
      const double eps = 1e-6;
      auto shifted = [&](double s) {
        std::vector<double> a = u1, b = u2;
        for (std::size_t r = 0; r < nn; ++r) {
          a[r] += s * d1[r];
          b[r] += s * d2[r];
        }
        return residual(g, a, b, p, as, time);
      };
      const std::vector<double> plus = shifted(eps), minus = shifted(-eps);
      std::vector<double> fd(3 * nn);
      for (std::size_t i = 0; i < fd.size(); ++i) fd[i] = (plus[i] - minus[i]) / (2 * eps);

      // K(u) [d; 0]: the residual function's blocks applied to the direction.
      Blocks b(1, g.n);
      add_navier_stokes_blocks(g, {u1.data(), u2.data()}, as.nu, true, as.stab, b.view(), 0,
                               time_coefficient);
      std::vector<double> picard(3 * nn);
      const auto ad1 = apply(b.A, 0, d1), ad2 = apply(b.A, 0, d2), dd1 = apply(b.D1, 0, d1),
                 dd2 = apply(b.D2, 0, d2);
      for (std::size_t r = 0; r < nn; ++r) {
        picard[r] = ad1[r];
        picard[nn + r] = ad2[r];
        picard[2 * nn + r] = dd1[r] + dd2[r];
      }
      BandedMatrix<double> N11(1, g.n), N12(1, g.n), N21(1, g.n), N22(1, g.n), E1(1, g.n),
          E2(1, g.n);
      const MacroVelocity derivative{dt1.data(), dt2.data()};
      add_newton_blocks(g, {u1.data(), u2.data()}, p.data(), as.nu, as.stab, {}, {},
                        {&N11, &N12, &N21, &N22, &E1, &E2}, 0, nullptr,
                        time_coefficient > 0 ? &derivative : nullptr);
      std::vector<double> newton = picard;
      const auto n11 = apply(N11, 0, d1), n12 = apply(N12, 0, d2), n21 = apply(N21, 0, d1),
                 n22 = apply(N22, 0, d2), e1 = apply(E1, 0, d1), e2 = apply(E2, 0, d2);
      for (std::size_t r = 0; r < nn; ++r) {
        newton[r] += n11[r] + n12[r];
        newton[nn + r] += n21[r] + n22[r];
        newton[2 * nn + r] += e1[r] + e2[r];
      }
      const double picard_error = distance(picard, fd), newton_error = distance(newton, fd);
      EXPECT_LT(newton_error, 1e-6 * picard_error)
          << "macro " << c << ", c = " << time_coefficient;  // measured: ~1e-9
    }
}
