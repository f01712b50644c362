#pragma once
// Stabilised equal-order Q1/Q1 discretisation of the stationary incompressible Navier-Stokes
// equations on one macro (design.md §4, §8), linearised at a given velocity w (Oseen / Picard):
//
//   -nu Laplace(u) + (w.grad) u + grad p = f,   div u = 0.
//
// Equation-wise numbering [u1; u2; p] with the block system (all blocks 9-band, type-0):
//
//   [ A   0   B1 ] [u1]   [f1]
//   [ 0   A   B2 ] [u2] = [f2]
//   [ D1  D2  C  ] [p ]   [g ]
//
// A   = nu L + N(w) + SUPG:  A_ij = nu (grad phi_j, grad phi_i) + ((w.grad) phi_j, phi_i)
//                                  + sum_K delta_K ((w.grad) phi_j, (w.grad) phi_i)_K
//       (gradient form of the viscous term: its natural boundary condition is the do-nothing
//       condition nu du/dn - p n = 0, so A11 = A22 = A and A12 = A21 = 0);
// B1  = -(phi_j, d/dx phi_i) + sum_K delta_K (d/dx phi_j, (w.grad) phi_i)_K   (B2 with d/dy):
//       the weak gradient plus the SUPG pressure term;
// D1  = (d/dx phi_j, psi_i) + sum_K tau_K ((w.grad) phi_j, d/dx psi_i)_K      (D2 with d/dy):
//       the divergence plus the PSPG convection term (without stabilisation D = -B^T);
// C   = sum_K tau_K (grad phi_j, grad psi_i)_K: the PSPG pressure Laplacian;
// f   = (f, phi_i) + sum_K delta_K (f, (w.grad) phi_i)_K,  g = sum_K tau_K (f, grad psi_i)_K.
// With PressureStabilisation::local_projection the tau_K terms of D and g vanish and the operator
// subtracts C's patch means (flow/local_projection_term.hpp).
//
// The element residual R = -nu Laplace(u) + (w.grad) u + grad p - f of the SUPG and PSPG terms
// has a viscous part that no 9-band block holds: Laplace(u_h) of a Q1 function is zero on
// rectangles (and not a consistent approximation of Laplace(u) on any quadrilateral). Dropping
// it (ViscousResidual::dropped, the usual Q1 simplification) leaves the stabilised equations
// inconsistent at O(tau_K nu Laplace u), and the PSPG term then imposes the spurious natural
// condition dp/dn = 0 on walls, where the exact solution has dp/dn = nu Laplace(u).n: DFG 2D-1's
// pressure difference on the cylinder converges at first order (design.md §8). With
// ViscousResidual::reconstructed it is -nu div G_h, where G_h is a recovered nodal velocity
// gradient (Jansen, Collis, Whiting & Shakib 1999; flow/viscous_residual.hpp), and enters as
//   S(u)_i   = sum_K delta_K (-nu div G_h(u), (w.grad) phi_i)_K       (momentum rows),
//   S(u)_p,i = sum_K tau_K (-nu div G_h(u), grad psi_i)_K              (continuity rows),
// linear in u: band matrices acting on G_h(u) (ViscousResidualBlocks), beside the blocks.
//
// Stabilisation parameters per element K (Tezduyar & Osawa 2000; mesh-dependent scaling as in
// Apel, Knopp & Lube 2008): with |w|_K the velocity magnitude at the element centre and h_K the
// element length (sqrt(area) by default, or the extent in the flow direction: ElementSize),
//   tau_K   = pspg_scale * ((2 / dt)^2 + (2 |w|_K / h_K)^2 + (4 nu / h_K^2)^2)^{-1/2}
//   delta_K = supg_scale * ((2 / dt)^2 + (2 |w|_K / h_K)^2 + (4 nu / h_K^2)^2)^{-1/2}
// tau_K stays positive for w = 0, so the Stokes case is pressure-stabilised too. The transient
// term 2 / dt (Tezduyar & Osawa 2000; Shakib & Hughes 1991) is there only in a time step with
// StabilisationTimeScale::step; the default leaves it out, so that the spatial discretisation
// does not change with dt (with it, tau_K -> dt / 2 as dt -> 0 and the PSPG stabilisation fades,
// Bochev, Gunzburger & Shadid 2004; the temporal-order test then sees an O(1) difference
// between step sizes). Either way the PSPG block of a time step is part of the PCD pressure
// operator (add_stabilised_pressure_laplacian).

#include <array>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/macro_geometry.hpp"

namespace quilt {

/// The element length h_K in tau_K and delta_K.
///  isotropic:  sqrt(|K|). tau_K and delta_K then depend on w only through |w|_K, smoothly, and
///              the fixed-point iteration contracts (measured on the DFG 2D-1 mesh, L = 3: 19
///              steps to 1e-10).
///  streamline: the extent of K along w (Mizukami 1985). Sharper on stretched elements, but
///              h_K jumps when w turns, and near stagnation points (w ~ 0, direction undefined)
///              the fixed-point iteration falls into a period-2 cycle (DFG 2D-1, L = 3:
///              residual alternating 1.3e-5 / 1.6e-5 from step 10 on).
enum class ElementSize { isotropic, streamline };

/// The viscous part -nu Laplace(u) of the SUPG/PSPG element residual (header comment).
enum class ViscousResidual { dropped, reconstructed };

/// The pressure stabilisation of Q1/Q1 (design.md §8, "The pressure difference"):
///  pspg:             residual-based, tau_K (R, grad q)_K with the whole momentum residual R
///                    (Hughes, Franca & Balestra 1986): C, the PSPG parts of D and of the load;
///  local_projection: sum_K tau_K (kappa grad p, kappa grad q)_K with kappa = I - pi_P the
///                    fluctuation about the mean over the 2x2-element patch P of K (Becker &
///                    Braack 2001): C less its patch means (flow/local_projection_term.hpp), D
///                    and the load pure Galerkin. It vanishes on pressures linear on a patch, so
///                    it imposes no condition on dp/dn at walls.
enum class PressureStabilisation { pspg, local_projection };

/// Whether tau_K and delta_K of a time step carry the step's time scale 2 / dt (header):
/// measured on DFG 2D-3 (fs-theta, dt = 0.01, L = 3 and 4) in docs/benchmarks.md.
enum class StabilisationTimeScale { step, none };

struct StabilisationParams {
  double supg_scale = 1.0;  ///< multiplies delta_K; 0 switches SUPG off
  double pspg_scale = 1.0;  ///< multiplies tau_K; must be > 0 for Q1/Q1 (inf-sup)
  ElementSize element_size = ElementSize::isotropic;
  ViscousResidual viscous_residual = ViscousResidual::dropped;
  PressureStabilisation pressure = PressureStabilisation::pspg;
  StabilisationTimeScale time_scale = StabilisationTimeScale::none;
};

/// The stabilisation of one solve: the keys, and the time scale 1 / dt that tau_K and delta_K
/// carry in a time step with StabilisationTimeScale::step (header; flow/time_step_terms.hpp).
struct Stabilisation {
  StabilisationParams params;
  double inverse_time_step = 0.0;  ///< 0: a stationary solve, or time_scale = none
  Stabilisation() = default;
  /// Implicit on purpose: the keys alone are a stationary solve's stabilisation.
  Stabilisation(const StabilisationParams& keys, double inverse_dt = 0.0)  // NOLINT
      : params(keys), inverse_time_step(inverse_dt) {}
};

/// Nodal values of one macro (n*n each, grid order): the linearisation velocity w.
struct MacroVelocity {
  const double* u1;
  const double* u2;
};

/// What the finest level's matrix-free terms (flow/viscous_residual.hpp,
/// flow/local_projection_term.hpp) keep of a linearisation: w (type-1, by pointer, valid until
/// the next one), nu, whether there is convection (without it w is ignored), the stabilisation.
struct Linearisation {
  const double* w1 = nullptr;
  const double* w2 = nullptr;
  double nu = 0;
  bool convection = false;
  Stabilisation stab;
  /// w on the macro whose values start at `offset`.
  MacroVelocity macro(std::size_t offset) const { return {w1 + offset, w2 + offset}; }
};

/// Nodal values of one macro (n*n each, grid order) of a recovered velocity gradient
/// G_h ~ grad u_h: d[2c + k] = d_k u_(c+1), i.e. {du1/dx, du1/dy, du2/dx, du2/dy}.
struct MacroGradient {
  std::array<const double*, 4> d;
};

/// The blocks of one macro, each a slot m of a batch of BandedMatrix<double> (n x n grid).
struct NavierStokesBlocks {
  accel::BandedMatrix<double>* A;  ///< nu L + N(w) + SUPG (both velocity components)
  accel::BandedMatrix<double>* B1;
  accel::BandedMatrix<double>* B2;
  accel::BandedMatrix<double>* D1;
  accel::BandedMatrix<double>* D2;
  accel::BandedMatrix<double>* C;
  /// N(w) + SUPG alone (A without its diffusion), the part the local multigrid rediscretises on
  /// its coarse levels (add_convection_operator's, bitwise), from the same element pass; null:
  /// not wanted.
  accel::BandedMatrix<double>* convection_part = nullptr;
};

/// Adds the blocks of macro `m` (geometry g, linearisation velocity w, viscosity nu) into
/// slot m of every block matrix. Pass w = zero velocity (or supg/convection off) for Stokes:
/// with `convection` false, N(w) and every w-dependent stabilisation term are omitted.
/// time_coefficient c > 0 (a time step's c of the discrete derivative c u - z, flow/
/// time_step_terms.hpp) adds the time derivative's part of the SUPG and PSPG residuals,
/// c delta_K (u, (w.grad) v)_K to A and c tau_K (u, grad q)_K to D; the Galerkin mass is not
/// part of these blocks (it is lumped, add_lumped_mass).
void add_navier_stokes_blocks(const MacroGeometry& g, const MacroVelocity& w, double nu,
                              bool convection, const Stabilisation& stab,
                              const NavierStokesBlocks& blocks, int m,
                              double time_coefficient = 0.0);

/// Only A (= nu L + N(w) + SUPG) of macro m, for the coarse levels of the velocity multigrid;
/// with `convection_part`, add_convection_operator's part into it from the same element pass.
void add_velocity_operator(const MacroGeometry& g, const MacroVelocity& w, double nu,
                           bool convection, const Stabilisation& stab,
                           accel::BandedMatrix<double>& A, int m, double time_coefficient = 0.0,
                           accel::BandedMatrix<double>* convection_part = nullptr);

/// Only the convection and SUPG part N(w) + SUPG of A (delta_K still depends on nu): the part
/// the local multigrid rediscretises on its coarse levels (solvers/local_levels.hpp).
void add_convection_operator(const MacroGeometry& g, const MacroVelocity& w, double nu,
                             const Stabilisation& stab, accel::BandedMatrix<double>& C, int m,
                             double time_coefficient = 0.0);

/// The pressure convection-diffusion operator F_p of macro m for the PCD Schur complement
/// approximation (flow/pressure_schur.hpp): the operator of add_velocity_operator on the
/// pressure space, plus, with `convection`, the inflow Robin term (add_inflow_robin_term).
/// The pressure and velocity spaces are both Q1 on one grid, so the first part is the velocity
/// operator itself: the assembly copies it from A rather than assembles it twice.
void add_pressure_convection_diffusion(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                       bool convection, const Stabilisation& stab,
                                       const std::array<bool, 4>& boundary_edge,
                                       accel::BandedMatrix<double>& Fp, int m,
                                       double time_coefficient = 0.0);

/// The Robin term -int_{Gamma_in} (w.n) p q ds of F_p on the inflow part of macro m's boundary,
/// where w.n < 0, with the lumped (trapezoidal) segment mass. Elman & Tuminaro (2009) derive it
/// from the commutator: the natural condition of F_p at an inflow boundary must be
/// nu dp/dn - (w.n) p = 0, and without it the PCD approximation degrades with the Reynolds number
/// (measured: GMRES on the exact Schur complement of a channel flow at mesh Peclet ~ 2 needs 133
/// iterations with the plain natural condition and 59 with the Robin term, n_p = 561).
/// boundary_edge[k]: local edge k of the macro lies on the domain boundary (edge order of
/// mesh/macro_nodes.hpp).
void add_inflow_robin_term(const MacroGeometry& g, const MacroVelocity& w,
                           const std::array<bool, 4>& boundary_edge,
                           accel::BandedMatrix<double>& Fp, int m);

/// The Newton part of the Jacobian of one macro (type-0 blocks, slot m): the derivative of the
/// stabilised residual in the velocity u beyond the Oseen blocks, at (u_k, p_k) = (w, p). For the
/// trial function phi_t e_j (j = 1, 2) and the test functions phi_r (momentum row i) and psi_r
/// (continuity), with R = d_t u - nu div G + (w.grad) w + grad p - f the element residual (G the
/// recovered gradient of w, G_h(u_k); `viscous` null: the viscous part dropped, as
/// ViscousResidual::dropped does in the Oseen blocks; d_t u the Q1 interpolant of a time step's
/// nodal c u_k - z, `time_derivative`, null: stationary):
///   N_ij = ((phi_t e_j . grad) u_i, phi_r + delta_K (w.grad) phi_r)
///          + delta_K (R_i, phi_t d_j phi_r) + (d delta_K / d u_tj) (R_i, (w.grad) phi_r),
///   E_j  = tau_K (phi_t sum_i d_j u_i, d_i psi_r) + (d tau_K / d u_tj) (R, grad psi_r):
/// the reaction term, the linearised SUPG test function, the linearised PSPG convection, and the
/// derivative of tau_K and delta_K through the centre velocity (exact for the isotropic h_K).
/// The Jacobian is then [A + N11, N12, B1; N21, A + N22, B2; D1 + E1, D2 + E2, C] (+ S with the
/// reconstructed viscous residual: S is linear in u, so it is its own derivative). All terms at
/// 2x2 Gauss, f included (the load uses 3x3: with a body force the Jacobian is exact up to that
/// quadrature difference).
struct NewtonBlocks {
  accel::BandedMatrix<double>* N11;
  accel::BandedMatrix<double>* N12;
  accel::BandedMatrix<double>* N21;
  accel::BandedMatrix<double>* N22;
  accel::BandedMatrix<double>* E1;
  accel::BandedMatrix<double>* E2;
};
void add_newton_blocks(const MacroGeometry& g, const MacroVelocity& w, const double* p, double nu,
                       const Stabilisation& stab, const ScalarFunction& f1,
                       const ScalarFunction& f2, const NewtonBlocks& blocks, int m,
                       const MacroGradient* viscous = nullptr,
                       const MacroVelocity* time_derivative = nullptr);

/// A += the pressure Laplacian with the coefficient 1 + weight tau_K on macro m, tau_K that of
/// the blocks: L_p + weight C, C the PSPG block (add_navier_stokes_blocks). In a time step the
/// Schur complement is S = C + D A^{-1} B ~ C + A_p F_p^{-1} M_p, and with F_p ~ c M_p the
/// identity [A_p + C M_p^{-1} F_p] F_p^{-1} M_p = A_p F_p^{-1} M_p + C turns into PCD with
/// A_p + c C in place of A_p (flow/pressure_schur.hpp).
void add_stabilised_pressure_laplacian(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                       bool convection, const Stabilisation& stab, double weight,
                                       accel::BandedMatrix<double>& A, int m);

/// y += S z on macro m (type-0, n*n values each): the known part z of a time step's discrete
/// derivative c u - z (flow/time_step_terms.hpp) in the SUPG (y1, y2) and PSPG (yp) residuals,
/// delta_K (z_h, (w.grad) phi_i)_K and tau_K (z_h, grad psi_i)_K, z_h the Q1 interpolant of the
/// nodal z, at 2x2 Gauss with the blocks' tau_K, delta_K: with the time_coefficient terms of
/// the blocks, the residuals then carry S (c u - z) exactly.
void add_time_derivative_load(const MacroGeometry& g, const MacroVelocity& w, double nu,
                              bool convection, const Stabilisation& stab, const MacroVelocity& z,
                              double* y1, double* y2, double* yp);

/// S(u) of the header at a linearisation as band matrices acting on the recovered gradient
/// G = G_h(u) (type-0, macros of the finest level): the viscous part of the SUPG residual,
/// delta_K (-nu div G_c, (w.grad) phi_i)_K for component c, is x G_c1 + y G_c2 with
/// x(i, j) = -nu sum_K delta_K (d_x phi_j, (w.grad) phi_i)_K and y likewise with d_y phi_j; that
/// of the PSPG residual, tau_K (-nu div G_h, grad psi_i)_K, is xx G_11 + xy G_12 + yx G_21 +
/// yy G_22 with xy(i, j) = -nu sum_K tau_K (d_y phi_j, d_x psi_i)_K and so on (2x2 Gauss, as the
/// blocks). S is linear in u and its coefficients depend on w only: a Krylov solve applies them
/// as band products instead of an element loop per product.
struct ViscousResidualBlocks {
  accel::BandedMatrix<double>* x;
  accel::BandedMatrix<double>* y;
  accel::BandedMatrix<double>* xx;
  accel::BandedMatrix<double>* xy;
  accel::BandedMatrix<double>* yx;
  accel::BandedMatrix<double>* yy;
};

/// Adds ViscousResidualBlocks at the linearisation (w, nu, stab) into macro m of each block; a
/// null pair (x, y: the SUPG rows; xx .. yy: the PSPG rows) is left out.
void add_viscous_residual_blocks(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                 bool convection, const Stabilisation& stab,
                                 const ViscousResidualBlocks& blocks, int m);

/// The numbers of one 2x2-element patch P of the local projection stabilisation
/// (PressureStabilisation::local_projection), for its nine nodes k (grid order in P):
/// mean[2k + c] = (1/|P|) int_P d_c psi_k, weighted[2k + c] = sum_{K in P} tau_K int_K d_c psi_k,
/// and weighted_area = sum_{K in P} tau_K |K|. With g(p) = mean . p, the patch mean of grad p,
///   sum_K tau_K (grad p - g(p), grad psi_k - g(psi_k))_K
///     = (C p)_k - mean_k . (weighted . p) - weighted_k . g(p) + weighted_area mean_k . g(p).
struct LocalProjectionPatch {
  std::array<double, 18> mean;
  std::array<double, 18> weighted;
  double weighted_area;
};

/// The patches of macro m (((n-1)/2)^2 of them, patch row-major; n - 1 even), at the
/// linearisation w with the tau_K of add_navier_stokes_blocks.
void assemble_local_projection(const MacroGeometry& g, const MacroVelocity& w, double nu,
                               bool convection, const Stabilisation& stab,
                               LocalProjectionPatch* patches);

/// One element K of a local projection patch, for the Newton part of the Jacobian: d tau_K / d w
/// (w the centre velocity) and moment[k] = (kappa grad p, kappa grad psi_k)_K at the Newton
/// pressure p, for the patch's nine nodes k. The derivative of s(p, psi_k) in the velocity u is
/// then sum_K (dtau . d w_K / d u) moment[k], d w_K / d u_vertex = 1/4.
struct LocalProjectionElement {
  std::array<double, 2> dtau;
  std::array<double, 9> moment;
};

/// The elements of macro m (four per patch in patch row-major order, element e of a patch at
/// (e & 1, e >> 1) in it) at the Newton linearisation (w, p); patches: the macro's patches of
/// assemble_local_projection at the same w (their means of grad psi_k).
void assemble_local_projection_jacobian(const MacroGeometry& g, const MacroVelocity& w,
                                        const double* p, double nu, const Stabilisation& stab,
                                        const LocalProjectionPatch* patches,
                                        LocalProjectionElement* elements);

/// Right-hand sides of macro m for a body force f = (f1, f2), type-0 (n*n values each,
/// overwritten): momentum (f, phi_i) + SUPG term, continuity PSPG term.
void assemble_navier_stokes_load(const MacroGeometry& g, const MacroVelocity& w, double nu,
                                 bool convection, const Stabilisation& stab,
                                 const ScalarFunction& f1, const ScalarFunction& f2, double* rhs1,
                                 double* rhs2, double* rhs_p);

}  // namespace quilt
