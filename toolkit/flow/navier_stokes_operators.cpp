#include "flow/navier_stokes_operators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "fem/q1_element.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

using Element4 = std::array<double, 4>;
using ElementMatrix = std::array<Element4, 4>;

/// Band of the coupling local vertex a -> local vertex b (same for every element).
constexpr std::array<std::array<int, 4>, 4> kElementBand = [] {
  std::array<std::array<int, 4>, 4> k{};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      k[a][b] = accel::band_index(kQ1DI[b] - kQ1DI[a], kQ1DJ[b] - kQ1DJ[a]);
  return k;
}();

std::size_t node_index(int n, int i, int j, int a) {
  return static_cast<std::size_t>(i + kQ1DI[a]) + static_cast<std::size_t>(j + kQ1DJ[a]) * n;
}

/// One row of an element matrix (the 4 trial functions) in one vector register (GCC/Clang vector
/// extension, 32 bytes: one AVX register, two SSE ones): the trial-function loop of the element
/// kernel as lane-wise operations. Each lane does the scalar form's IEEE operations in its order
/// (-ffp-contract=off), so the entries are bitwise those of the scalar loop.
/// Without AVX (QUILT_NATIVE=OFF) GCC warns that returning one changes the ABI; the functions that
/// pass TrialRows are internal to this file, on no ABI boundary.
typedef double TrialRow __attribute__((vector_size(32)));
#pragma GCC diagnostic ignored "-Wpsabi"

TrialRow as_row(const Element4& v) {
  return TrialRow{v[0], v[1], v[2], v[3]};
}

/// Row r of an element matrix, e[b] = a(phi_b, phi_r) (a TrialRow or an Element4), into the row of
/// vertex r of element (i, j) in macro m.
template <class Row>
void scatter_row(const Row& e, int r, int i, int j, BandedMatrix<double>& M, int m) {
  const std::size_t row = node_index(M.n, i, j, r);
  for (int b = 0; b < 4; ++b) M.at(kElementBand[r][b], m, row) += e[b];
}

/// E(a, b) = a(phi_b, phi_a) of element (i, j) into the rows of its four vertices in macro m.
void scatter(const ElementMatrix& e, int i, int j, BandedMatrix<double>& M, int m) {
  for (int a = 0; a < 4; ++a) scatter_row(e[a], a, i, j, M, m);
}

/// Corners and, with convection, the nodal linearisation velocity of element (i, j).
struct ElementData {
  Element4 x{}, y{}, w1{}, w2{};
};

void gather(const MacroGeometry& g, const MacroVelocity& w, bool convection, int i, int j,
            ElementData& d) {
  for (int a = 0; a < 4; ++a) {
    const std::size_t r = node_index(g.n, i, j, a);
    d.x[a] = g.x[r];
    d.y[a] = g.y[r];
    d.w1[a] = convection ? w.u1[r] : 0.0;
    d.w2[a] = convection ? w.u2[r] : 0.0;
  }
}

struct ElementStabilisation {
  double tau = 0.0;  ///< PSPG parameter tau_K: the weight of the pressure term C
  /// tau_K where the pressure rows carry the whole residual (PressureStabilisation::pspg), 0 with
  /// local projection, whose pressure term is C alone (less its patch means).
  double pspg = 0.0;
  double delta = 0.0;  ///< SUPG parameter delta_K (0 without convection)
  /// d tau_K / d w_j and d delta_K / d w_j with w the centre velocity, h_K held fixed (exact
  /// for the isotropic h_K; the streamline h_K's dependence on the direction of w is left out).
  std::array<double, 2> dtau{}, ddelta{};
  std::array<double, 2> dpspg{};  ///< d pspg / d w_j: dtau, or 0 with local projection
};

/// tau_K and delta_K of the header (Tezduyar & Osawa 2000; Apel, Knopp & Lube 2008):
/// ((2|w|_K/h_K)^2 + (4 nu/h_K^2)^2)^{-1/2}, scaled. |w|_K is the Q1 interpolant at the centre
/// (the mean of the vertex values); h_K is sqrt(|K|) or, with ElementSize::streamline, the extent
/// of K along w/|w|, i.e. max - min of the corners' projections onto the streamline direction
/// (Mizukami 1985; sqrt(|K|) where w = 0).
ElementStabilisation element_stabilisation(const ElementData& d, double nu, bool convection,
                                           const Stabilisation& stab) {
  double wc1 = 0.0, wc2 = 0.0;
  if (convection) {
    wc1 = 0.25 * (d.w1[0] + d.w1[1] + d.w1[2] + d.w1[3]);
    wc2 = 0.25 * (d.w2[0] + d.w2[1] + d.w2[2] + d.w2[3]);
  }
  // Not std::hypot: its overflow guard cost 2 % of a transient run, and speeds are far from it.
  const double speed = std::sqrt(wc1 * wc1 + wc2 * wc2);
  double h = 0.0;
  if (speed > 0.0 && stab.params.element_size == ElementSize::streamline) {
    const double s1 = wc1 / speed, s2 = wc2 / speed;
    double lo = d.x[0] * s1 + d.y[0] * s2, hi = lo;
    for (int a = 1; a < 4; ++a) {
      const double s = d.x[a] * s1 + d.y[a] * s2;
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    h = hi - lo;
  } else {
    // Area of the straight-edged quadrilateral: half the cross product of its diagonals.
    const double area =
        0.5 * ((d.x[2] - d.x[0]) * (d.y[3] - d.y[1]) - (d.x[3] - d.x[1]) * (d.y[2] - d.y[0]));
    h = std::sqrt(area);
  }
  const double transient = 2.0 * stab.inverse_time_step;
  const double advective = 2.0 * speed / h;
  const double diffusive = 4.0 * nu / (h * h);
  const double scale =
      1.0 / std::sqrt(transient * transient + advective * advective + diffusive * diffusive);
  // d scale / d w_j = -scale^3 (2 |w| / h) (2 / h) w_j / |w| = -4 scale^3 w_j / h^2.
  const double dscale = -4.0 * scale * scale * scale / (h * h);
  const double supg = convection ? stab.params.supg_scale : 0.0;
  const double tau = stab.params.pspg_scale * scale;
  const bool residual = stab.params.pressure == PressureStabilisation::pspg;
  const double dtau = stab.params.pspg_scale * dscale;
  const double dpspg = residual ? dtau : 0.0;
  return {tau,
          residual ? tau : 0.0,
          supg * scale,
          {dtau * wc1, dtau * wc2},
          {supg * dscale * wc1, supg * dscale * wc2},
          {dpspg * wc1, dpspg * wc2}};
}

/// Values at one quadrature point shared by every block: the Q1 basis, the weight w det J and
/// conv[b] = (w.grad) phi_b with w the Q1 interpolant of the nodal linearisation velocity.
struct FlowPoint {
  Q1Point q;
  double weight;
  Element4 conv;
};

FlowPoint flow_point(const ElementData& d, const GaussPoint& gp) {
  FlowPoint f{evaluate_q1(d.x, d.y, gp), 0.0, {}};
  f.weight = gp.weight * f.q.det_j;
  double w1 = 0.0, w2 = 0.0;
  for (int a = 0; a < 4; ++a) {
    w1 += f.q.phi[a] * d.w1[a];
    w2 += f.q.phi[a] * d.w2[a];
  }
  for (int b = 0; b < 4; ++b) f.conv[b] = w1 * f.q.dphi_dx[b] + w2 * f.q.dphi_dy[b];
  return f;
}

/// The recovered gradient G_h at the four vertices of element (i, j): ge[f][a] = G.d[f] there.
using ElementGradient = std::array<Element4, 4>;

void gather_gradient(const MacroGradient& G, int n, int i, int j, ElementGradient& ge) {
  for (int a = 0; a < 4; ++a) {
    const std::size_t r = node_index(n, i, j, a);
    for (int f = 0; f < 4; ++f) ge[f][a] = G.d[f][r];
  }
}

/// The viscous part of the element residual at a point, -nu Laplace_h u_c = -nu (d_x G_c1 +
/// d_y G_c2) with G_ck the Q1 interpolant of the recovered d_k u_c (Jansen et al. 1999).
std::array<double, 2> viscous_part(const ElementGradient& ge, const Q1Point& q, double nu) {
  std::array<double, 2> v{};
  for (int c = 0; c < 2; ++c) {
    double laplace = 0.0;
    for (int a = 0; a < 4; ++a)
      laplace += ge[2 * c][a] * q.dphi_dx[a] + ge[2 * c + 1][a] * q.dphi_dy[a];
    v[c] = -nu * laplace;
  }
  return v;
}

/// The element loop of the entry points. With `kPressure` false only A is built (coarse
/// velocity levels), with `diffusion` false only its convection and SUPG part N(w) + SUPG;
/// otherwise all six blocks come from one pass over the elements and one evaluation of the basis
/// per Gauss point. With `kPart`, blocks.convection_part gets N(w) + SUPG in the same pass, as a
/// `diffusion` false pass computes it. 2x2 Gauss integrates the det J-weighted integrands of B,
/// D and N(w) exactly on any element (degree <= 3 in each reference variable, since
/// det J grad phi is bilinear), and every block exactly on parallelograms.
///
/// kPart is a template parameter, not a run-time test of the pointer: GCC 12.2 with AVX-512
/// (-march=native on an AVX-512 AMD EPYC, or -march=icelake-server) vectorised the accumulation
/// under a run-time `if (part)` wrongly, and the convection part came out wrong while A was
/// right (NavierStokesAssembly.OneElementPassGivesTheSeparateAssemblersLevelsBitwise; clang 14
/// and GCC without AVX-512 were right).
template <bool kPressure, bool kPart>
void element_pass(const MacroGeometry& g, const MacroVelocity& w, double nu, bool convection,
                  const Stabilisation& stab, const NavierStokesBlocks& blocks, int m,
                  double time_coefficient, bool diffusion) {
  const double nu_a = diffusion ? nu : 0.0;  // the viscosity in A (delta_K keeps nu)
  const int n = g.n;
  const auto rule = gauss2x2();
  ElementData d;
  std::array<FlowPoint, 4> points;
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, convection, i, j, d);
      const ElementStabilisation s = element_stabilisation(d, nu, convection, stab);
      for (std::size_t q = 0; q < rule.size(); ++q) points[q] = flow_point(d, rule[q]);
      // Test function by test function, the Gauss points summed in their order for each: every
      // entry is the same sum as point by point, and a row's 7 sums stay in registers (point by
      // point, the 28 rows of the 7 element matrices spilled to the stack: the pass 1.2 times
      // slower at n = 257, the cavity's assembly at L = 8 1.12-1.17; docs/benchmarks.md).
      for (int r = 0; r < 4; ++r) {  // test function phi_r / psi_r
        TrialRow a{}, b1{}, b2{}, d1{}, d2{}, c{}, transport{};
        for (const FlowPoint& f : points) {
          const auto& phi = f.q.phi;
          const auto& dx = f.q.dphi_dx;
          const auto& dy = f.q.dphi_dy;
          const auto& conv = f.conv;
          // Trial functions phi_t in the lanes: phi_t, its gradient, (w.grad) phi_t, and the
          // transported trial function (w.grad) phi_t + c phi_t of the SUPG and PSPG residuals.
          const TrialRow phi_t = as_row(phi), dx_t = as_row(dx), dy_t = as_row(dy);
          const TrialRow conv_t = as_row(conv), transported = conv_t + time_coefficient * phi_t;
          const TrialRow grad_grad = dx[r] * dx_t + dy[r] * dy_t;
          // Galerkin nu (grad u, grad v) + ((w.grad) u, v) and the SUPG streamline diffusion
          // delta_K ((w.grad) u, (w.grad) v)_K (Brooks & Hughes 1982), with the time derivative
          // c u in the SUPG residual: c delta_K (u, (w.grad) v)_K.
          const TrialRow galerkin = conv_t * phi[r], streamline = s.delta * transported * conv[r];
          a += f.weight * (nu_a * grad_grad + galerkin + streamline);
          // The entry of a pass with `diffusion` false, 0 * grad_grad included: bitwise its.
          if constexpr (kPart) transport += f.weight * (0.0 * grad_grad + galerkin + streamline);
          if constexpr (kPressure) {
            // Weak gradient -(p, div v) and the pressure part of the SUPG residual,
            // delta_K (grad p, (w.grad) v)_K.
            b1 += f.weight * (-phi_t * dx[r] + s.delta * dx_t * conv[r]);
            b2 += f.weight * (-phi_t * dy[r] + s.delta * dy_t * conv[r]);
            // Divergence (div u, q) and the convective part of the PSPG residual
            // tau_K ((w.grad) u, grad q)_K (Hughes, Franca & Balestra 1986; Tezduyar 1992),
            // with the time derivative c tau_K (u, grad q)_K.
            d1 += f.weight * (dx_t * phi[r] + s.pspg * transported * dx[r]);
            d2 += f.weight * (dy_t * phi[r] + s.pspg * transported * dy[r]);
            // Pressure part of the PSPG residual: tau_K (grad p, grad q)_K.
            c += f.weight * s.tau * grad_grad;
          }
        }
        scatter_row(a, r, i, j, *blocks.A, m);
        if constexpr (kPart) scatter_row(transport, r, i, j, *blocks.convection_part, m);
        if constexpr (kPressure) {
          scatter_row(b1, r, i, j, *blocks.B1, m);
          scatter_row(b2, r, i, j, *blocks.B2, m);
          scatter_row(d1, r, i, j, *blocks.D1, m);
          scatter_row(d2, r, i, j, *blocks.D2, m);
          scatter_row(c, r, i, j, *blocks.C, m);
        }
      }
    }
}

/// element_pass with kPart = whether blocks has a convection part.
template <bool kPressure>
void assemble_blocks(const MacroGeometry& g, const MacroVelocity& w, double nu, bool convection,
                     const Stabilisation& stab, const NavierStokesBlocks& blocks, int m,
                     double time_coefficient, bool diffusion = true) {
  if (!blocks.convection_part) {
    element_pass<kPressure, false>(g, w, nu, convection, stab, blocks, m, time_coefficient,
                                   diffusion);
    return;
  }
  if (!convection)
    throw std::invalid_argument("assemble_blocks: a convection part of an operator without one");
  element_pass<kPressure, true>(g, w, nu, convection, stab, blocks, m, time_coefficient, diffusion);
}

}  // namespace

void add_navier_stokes_blocks(const MacroGeometry& g, const MacroVelocity& w, double nu,
                              bool convection, const Stabilisation& stab,
                              const NavierStokesBlocks& blocks, int m, double time_coefficient) {
  assemble_blocks<true>(g, w, nu, convection, stab, blocks, m, time_coefficient);
}

void add_velocity_operator(const MacroGeometry& g, const MacroVelocity& w, double nu,
                           bool convection, const Stabilisation& stab,
                           accel::BandedMatrix<double>& A, int m, double time_coefficient,
                           accel::BandedMatrix<double>* convection_part) {
  const NavierStokesBlocks blocks{&A, nullptr, nullptr, nullptr, nullptr, nullptr, convection_part};
  assemble_blocks<false>(g, w, nu, convection, stab, blocks, m, time_coefficient);
}

void add_convection_operator(const MacroGeometry& g, const MacroVelocity& w, double nu,
                             const Stabilisation& stab, accel::BandedMatrix<double>& C, int m,
                             double time_coefficient) {
  const NavierStokesBlocks blocks{&C, nullptr, nullptr, nullptr, nullptr, nullptr};
  assemble_blocks<false>(g, w, nu, true, stab, blocks, m, time_coefficient, false);
}

void add_pressure_convection_diffusion(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                       bool convection, const Stabilisation& stab,
                                       const std::array<bool, 4>& boundary_edge,
                                       accel::BandedMatrix<double>& Fp, int m,
                                       double time_coefficient) {
  add_velocity_operator(g, w, nu, convection, stab, Fp, m, time_coefficient);
  if (convection) add_inflow_robin_term(g, w, boundary_edge, Fp, m);
}

void add_inflow_robin_term(const MacroGeometry& g, const MacroVelocity& w,
                           const std::array<bool, 4>& boundary_edge,
                           accel::BandedMatrix<double>& Fp, int m) {
  const int n = g.n;
  // Grid offset from an edge node to its inward neighbour, per local edge (macro_nodes.hpp).
  const std::array<std::ptrdiff_t, 4> inward{n, -1, -n, 1};
  const int diagonal = accel::band_index(0, 0);
  for (int k = 0; k < 4; ++k) {
    if (!boundary_edge[k]) continue;
    for (int q = 0; q + 1 < n; ++q) {
      const std::size_t a = edge_node(n, k, q), b = edge_node(n, k, q + 1);
      const double tx = g.x[b] - g.x[a], ty = g.y[b] - g.y[a];
      const double length = std::hypot(tx, ty);
      // Outward unit normal: perpendicular to the segment, away from the inward neighbour.
      double nx = ty / length, ny = -tx / length;
      const std::size_t inner =
          static_cast<std::size_t>(static_cast<std::ptrdiff_t>(a) + inward[k]);
      if (nx * (g.x[inner] - g.x[a]) + ny * (g.y[inner] - g.y[a]) > 0) {
        nx = -nx;
        ny = -ny;
      }
      const double wn =
          0.5 * ((w.u1[a] + w.u1[b]) * nx + (w.u2[a] + w.u2[b]) * ny);  // midpoint w.n
      if (wn >= 0) continue;
      // -(w.n) (p, q)_segment with the lumped (trapezoidal) segment mass.
      Fp.at(diagonal, m, a) -= 0.5 * wn * length;
      Fp.at(diagonal, m, b) -= 0.5 * wn * length;
    }
  }
}

void add_viscous_residual_blocks(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                 bool convection, const Stabilisation& stab,
                                 const ViscousResidualBlocks& blocks, int m) {
  const int n = g.n;
  const auto rule = gauss2x2();
  ElementData d;
  std::array<FlowPoint, 4> points;
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, convection, i, j, d);
      const ElementStabilisation s = element_stabilisation(d, nu, convection, stab);
      for (std::size_t q = 0; q < rule.size(); ++q) points[q] = flow_point(d, rule[q]);
      for (int r = 0; r < 4; ++r) {  // test function phi_r / psi_r
        TrialRow x{}, y{}, xx{}, xy{}, yx{}, yy{};
        for (const FlowPoint& f : points) {
          // -nu times the trial functions' derivatives: -nu div G_h = sum_t -nu (G_c1,t d_x phi_t
          // + G_c2,t d_y phi_t).
          const TrialRow dx_t = -nu * as_row(f.q.dphi_dx), dy_t = -nu * as_row(f.q.dphi_dy);
          const double supg = f.weight * s.delta * f.conv[r];
          const double pspg_x = f.weight * s.pspg * f.q.dphi_dx[r];
          const double pspg_y = f.weight * s.pspg * f.q.dphi_dy[r];
          x += supg * dx_t;
          y += supg * dy_t;
          xx += pspg_x * dx_t;
          xy += pspg_x * dy_t;
          yx += pspg_y * dx_t;
          yy += pspg_y * dy_t;
        }
        if (blocks.x) {
          scatter_row(x, r, i, j, *blocks.x, m);
          scatter_row(y, r, i, j, *blocks.y, m);
        }
        if (blocks.xx) {
          scatter_row(xx, r, i, j, *blocks.xx, m);
          scatter_row(xy, r, i, j, *blocks.xy, m);
          scatter_row(yx, r, i, j, *blocks.yx, m);
          scatter_row(yy, r, i, j, *blocks.yy, m);
        }
      }
    }
}

void assemble_local_projection(const MacroGeometry& g, const MacroVelocity& w, double nu,
                               bool convection, const Stabilisation& stab,
                               LocalProjectionPatch* patches) {
  const int n = g.n;
  const int per_side = (n - 1) / 2;
  const auto rule = gauss2x2();
  ElementData d;
  for (int pj = 0; pj < per_side; ++pj)
    for (int pi = 0; pi < per_side; ++pi) {
      LocalProjectionPatch& P = patches[pj * per_side + pi];
      P = {};
      double area = 0.0;
      for (int e = 0; e < 4; ++e) {
        const int i = 2 * pi + (e & 1), j = 2 * pj + (e >> 1);
        gather(g, w, convection, i, j, d);
        const double tau = element_stabilisation(d, nu, convection, stab).tau;
        for (const auto& gp : rule) {
          const Q1Point q = evaluate_q1(d.x, d.y, gp);
          const double dv = gp.weight * q.det_j;
          area += dv;
          P.weighted_area += tau * dv;
          for (int a = 0; a < 4; ++a) {
            const int k = (i - 2 * pi + kQ1DI[a]) + 3 * (j - 2 * pj + kQ1DJ[a]);
            P.mean[2 * k] += dv * q.dphi_dx[a];
            P.mean[2 * k + 1] += dv * q.dphi_dy[a];
            P.weighted[2 * k] += tau * dv * q.dphi_dx[a];
            P.weighted[2 * k + 1] += tau * dv * q.dphi_dy[a];
          }
        }
      }
      for (double& v : P.mean) v /= area;
    }
}

void assemble_local_projection_jacobian(const MacroGeometry& g, const MacroVelocity& w,
                                        const double* p, double nu, const Stabilisation& stab,
                                        const LocalProjectionPatch* patches,
                                        LocalProjectionElement* elements) {
  const int n = g.n;
  const int per_side = (n - 1) / 2;
  const auto rule = gauss2x2();
  ElementData d;
  for (int pj = 0; pj < per_side; ++pj)
    for (int pi = 0; pi < per_side; ++pi) {
      const LocalProjectionPatch& P = patches[pj * per_side + pi];
      const std::size_t corner = static_cast<std::size_t>(2 * pi) + 2 * pj * n;
      std::array<double, 2> mean_p{};  // the patch mean of grad p: mean . p
      for (int k = 0; k < 9; ++k)
        for (int c = 0; c < 2; ++c)
          mean_p[c] += P.mean[2 * k + c] * p[corner + k % 3 + (k / 3) * n];
      for (int e = 0; e < 4; ++e) {
        const int i = 2 * pi + (e & 1), j = 2 * pj + (e >> 1);
        LocalProjectionElement& E = elements[4 * (pj * per_side + pi) + e];
        E = {};
        gather(g, w, true, i, j, d);
        E.dtau = element_stabilisation(d, nu, true, stab).dtau;
        // (kappa grad p, kappa grad psi_k)_K = (grad p - mean_p, grad psi_k)_K
        //                                       - mean_k . int_K (grad p - mean_p).
        std::array<double, 2> fluctuation{};
        for (const auto& gp : rule) {
          const Q1Point q = evaluate_q1(d.x, d.y, gp);
          const double dv = gp.weight * q.det_j;
          double f1 = -mean_p[0], f2 = -mean_p[1];
          for (int a = 0; a < 4; ++a) {
            const double pa = p[node_index(n, i, j, a)];
            f1 += pa * q.dphi_dx[a];
            f2 += pa * q.dphi_dy[a];
          }
          fluctuation[0] += dv * f1;
          fluctuation[1] += dv * f2;
          for (int a = 0; a < 4; ++a) {
            const int k = (i - 2 * pi + kQ1DI[a]) + 3 * (j - 2 * pj + kQ1DJ[a]);
            E.moment[k] += dv * (f1 * q.dphi_dx[a] + f2 * q.dphi_dy[a]);
          }
        }
        for (int k = 0; k < 9; ++k)
          E.moment[k] -= P.mean[2 * k] * fluctuation[0] + P.mean[2 * k + 1] * fluctuation[1];
      }
    }
}

/// What the Newton blocks need at one Gauss point: the shared values, the velocity gradient
/// grad_u[c][k] = d_k u_c, the residual R, and the basis weighted for the Galerkin and the PSPG
/// parts.
struct NewtonPoint {
  FlowPoint f;
  double grad_u[2][2];
  double residual[2];
  TrialRow weighted_phi, pspg_phi;
};

NewtonPoint newton_point(const ElementData& d, const GaussPoint& gp, const Element4& pe,
                         const std::array<Element4, 2>& de, const ElementGradient* ge,
                         const ElementStabilisation& s, double nu, const ScalarFunction& f1,
                         const ScalarFunction& f2) {
  NewtonPoint np{flow_point(d, gp), {}, {}, {}, {}};
  const FlowPoint& f = np.f;
  const auto& phi = f.q.phi;
  const std::array<const Element4*, 2> dphi{&f.q.dphi_dx, &f.q.dphi_dy};
  // The velocity w and the residual R at the Gauss point.
  double wq[2] = {}, grad_p[2] = {}, dq[2] = {};
  for (int a = 0; a < 4; ++a) {
    const double ua[2] = {d.w1[a], d.w2[a]};
    for (int c = 0; c < 2; ++c) {
      wq[c] += phi[a] * ua[c];
      dq[c] += phi[a] * de[c][a];
      grad_p[c] += (*dphi[c])[a] * pe[a];
      for (int k = 0; k < 2; ++k) np.grad_u[c][k] += (*dphi[k])[a] * ua[c];
    }
  }
  const double force[2] = {f1 ? f1(f.q.x, f.q.y) : 0.0, f2 ? f2(f.q.x, f.q.y) : 0.0};
  const auto visc = ge ? viscous_part(*ge, f.q, nu) : std::array<double, 2>{};
  for (int c = 0; c < 2; ++c)
    np.residual[c] =
        dq[c] + visc[c] + wq[0] * np.grad_u[c][0] + wq[1] * np.grad_u[c][1] + grad_p[c] - force[c];
  // The trial functions phi_t e_k in the lanes (TrialRow): what they multiply depends on r, k
  // and c alone.
  np.weighted_phi = f.weight * as_row(phi);
  np.pspg_phi = f.weight * s.pspg * as_row(phi);
  return np;
}

void add_newton_blocks(const MacroGeometry& g, const MacroVelocity& w, const double* p, double nu,
                       const Stabilisation& stab, const ScalarFunction& f1,
                       const ScalarFunction& f2, const NewtonBlocks& blocks, int m,
                       const MacroGradient* viscous, const MacroVelocity* time_derivative) {
  const int n = g.n;
  const auto rule = gauss2x2();
  ElementData d;
  ElementGradient ge{};
  Element4 pe{};
  std::array<Element4, 2> de{};  // the time derivative at the element's vertices
  std::array<NewtonPoint, 4> points;
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, true, i, j, d);
      for (int a = 0; a < 4; ++a) {
        const std::size_t node = node_index(n, i, j, a);
        pe[a] = p[node];
        if (time_derivative) {
          de[0][a] = time_derivative->u1[node];
          de[1][a] = time_derivative->u2[node];
        }
      }
      if (viscous) gather_gradient(*viscous, n, i, j, ge);
      const ElementStabilisation s = element_stabilisation(d, nu, true, stab);
      for (std::size_t q = 0; q < rule.size(); ++q)
        points[q] = newton_point(d, rule[q], pe, de, viscous ? &ge : nullptr, s, nu, f1, f2);
      // Test function by test function, the Gauss points summed in their order for each (as in
      // element_pass).
      for (int r = 0; r < 4; ++r) {
        std::array<std::array<TrialRow, 2>, 2> nb{};  // nb[c][k]: row r of N_(c+1)(k+1)
        std::array<TrialRow, 2> eb{};
        // int_K R_c (w.grad) phi_r and int_K R . grad psi_r: what d delta_K and d tau_K multiply.
        std::array<double, 2> supg_moment{};
        double pspg_moment = 0.0;
        for (const NewtonPoint& np : points) {
          const FlowPoint& f = np.f;
          const std::array<const Element4*, 2> dphi{&f.q.dphi_dx, &f.q.dphi_dy};
          for (int c = 0; c < 2; ++c) supg_moment[c] += f.weight * np.residual[c] * f.conv[r];
          pspg_moment +=
              f.weight * (np.residual[0] * f.q.dphi_dx[r] + np.residual[1] * f.q.dphi_dy[r]);
          const double test = f.q.phi[r] + s.delta * f.conv[r];
          for (int k = 0; k < 2; ++k) {
            const double dk_r = (*dphi[k])[r];
            for (int c = 0; c < 2; ++c)
              nb[c][k] +=
                  np.weighted_phi * (np.grad_u[c][k] * test + s.delta * np.residual[c] * dk_r);
            eb[k] +=
                np.pspg_phi * (np.grad_u[0][k] * f.q.dphi_dx[r] + np.grad_u[1][k] * f.q.dphi_dy[r]);
          }
        }
        // The derivative of delta_K and tau_K themselves: w_K is the vertex mean, d w_K / d u_t =
        // 1/4.
        for (int k = 0; k < 2; ++k) {
          for (int c = 0; c < 2; ++c) nb[c][k] += 0.25 * s.ddelta[k] * supg_moment[c];
          eb[k] += 0.25 * s.dpspg[k] * pspg_moment;
        }
        scatter_row(nb[0][0], r, i, j, *blocks.N11, m);
        scatter_row(nb[0][1], r, i, j, *blocks.N12, m);
        scatter_row(nb[1][0], r, i, j, *blocks.N21, m);
        scatter_row(nb[1][1], r, i, j, *blocks.N22, m);
        scatter_row(eb[0], r, i, j, *blocks.E1, m);
        scatter_row(eb[1], r, i, j, *blocks.E2, m);
      }
    }
}

void assemble_navier_stokes_load(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                 bool convection, const Stabilisation& stab,
                                 const ScalarFunction& f1, const ScalarFunction& f2, double* rhs1,
                                 double* rhs2, double* rhs_p) {
  const int n = g.n;
  const std::size_t nodes = static_cast<std::size_t>(n) * n;
  std::fill(rhs1, rhs1 + nodes, 0.0);
  std::fill(rhs2, rhs2 + nodes, 0.0);
  std::fill(rhs_p, rhs_p + nodes, 0.0);
  // 3x3 Gauss as for the scalar load: f is a general function, not a Q1 interpolant.
  const auto rule = gauss3x3();
  ElementData d;
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, convection, i, j, d);
      // The same tau_K, delta_K as the operators, so that the stabilised system stays consistent
      // (the exact solution annihilates every residual term element by element).
      const ElementStabilisation s = element_stabilisation(d, nu, convection, stab);
      for (const auto& gp : rule) {
        const FlowPoint f = flow_point(d, gp);
        const double fx = f1(f.q.x, f.q.y), fy = f2(f.q.x, f.q.y);
        for (int a = 0; a < 4; ++a) {
          const std::size_t r = node_index(n, i, j, a);
          // (f, v + delta_K (w.grad) v): Galerkin plus SUPG; tau_K (f, grad q): PSPG.
          const double test = f.q.phi[a] + s.delta * f.conv[a];
          rhs1[r] += f.weight * fx * test;
          rhs2[r] += f.weight * fy * test;
          rhs_p[r] += f.weight * s.pspg * (fx * f.q.dphi_dx[a] + fy * f.q.dphi_dy[a]);
        }
      }
    }
}

void add_stabilised_pressure_laplacian(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                       bool convection, const Stabilisation& stab, double weight,
                                       accel::BandedMatrix<double>& A, int m) {
  const int n = g.n;
  const auto rule = gauss2x2();
  ElementData d;
  ElementMatrix a{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, convection, i, j, d);
      const double coefficient = 1.0 + weight * element_stabilisation(d, nu, convection, stab).tau;
      a = {};
      for (const auto& gp : rule) {
        const Q1Point q = evaluate_q1(d.x, d.y, gp);
        const double dv = gp.weight * q.det_j * coefficient;
        for (int r = 0; r < 4; ++r)
          for (int t = 0; t < 4; ++t)
            a[r][t] += dv * (q.dphi_dx[r] * q.dphi_dx[t] + q.dphi_dy[r] * q.dphi_dy[t]);
      }
      scatter(a, i, j, A, m);
    }
}

void add_time_derivative_load(const MacroGeometry& g, const MacroVelocity& w, double nu,
                              bool convection, const Stabilisation& stab, const MacroVelocity& z,
                              double* y1, double* y2, double* yp) {
  const int n = g.n;
  const auto rule = gauss2x2();  // as the blocks: S (c v) - S z is then exactly S (c v - z)
  ElementData d;
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      gather(g, w, convection, i, j, d);
      const ElementStabilisation s = element_stabilisation(d, nu, convection, stab);
      std::array<double, 4> z1{}, z2{};
      for (int a = 0; a < 4; ++a) {
        const std::size_t r = node_index(n, i, j, a);
        z1[a] = z.u1[r];
        z2[a] = z.u2[r];
      }
      Element4 e1{}, e2{}, ep{};
      for (const auto& gp : rule) {
        const FlowPoint f = flow_point(d, gp);
        double zq1 = 0.0, zq2 = 0.0;
        for (int a = 0; a < 4; ++a) {
          zq1 += f.q.phi[a] * z1[a];
          zq2 += f.q.phi[a] * z2[a];
        }
        for (int r = 0; r < 4; ++r) {
          e1[r] += f.weight * s.delta * zq1 * f.conv[r];
          e2[r] += f.weight * s.delta * zq2 * f.conv[r];
          ep[r] += f.weight * s.pspg * (zq1 * f.q.dphi_dx[r] + zq2 * f.q.dphi_dy[r]);
        }
      }
      for (int a = 0; a < 4; ++a) {
        const std::size_t r = node_index(n, i, j, a);
        y1[r] += e1[a];
        y2[r] += e2[a];
        yp[r] += ep[a];
      }
    }
}

}  // namespace quilt
