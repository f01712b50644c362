#pragma once
// The local projection stabilisation of the pressure (PressureStabilisation::local_projection;
// Becker & Braack 2001, "A finite element pressure gradient stabilization for the Stokes
// equations based on local projections", Calcolo 38: 173-199; design.md §8):
//
//   s(p, q) = sum_K tau_K (kappa grad p, kappa grad q)_K,   kappa = I - pi_P,
//
// pi_P the mean over the patch P of 2x2 elements of K (an element of the next coarser level, so
// the patches never cross a macro edge). s vanishes on pressures linear on each patch: unlike
// the PSPG term tau_K (grad p, grad q)_K it is consistent to O(h^2 tau) for smooth p and imposes
// no natural condition dp/dn = 0 on walls. Its coupling reaches two nodes in each direction,
// outside the 9 bands, so the operator carries it as C (the 9-band tau_K (grad p, grad q)_K)
// less a rank-two correction per patch (LocalProjectionPatch), applied matrix-free; the
// preconditioners keep C, which equals s on the checkerboard modes that need the stabilisation.
//
// Newton: tau_K depends on the velocity at the element centre, so the Jacobian holds
// sum_K (d tau_K / d w_K . d w_K) (kappa grad p_k, kappa grad psi)_K. It couples a velocity to
// pressures two nodes away as well and is applied matrix-free too (add_jacobian).

#include <vector>

#include "flow/navier_stokes_operators.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

class LocalProjectionTerm {
 public:
  /// The patches of the finest level of `velocity` (which must outlive this object; its
  /// finest level must be >= 1, so that every macro has patches).
  explicit LocalProjectionTerm(const LevelHierarchy& velocity);

  /// The numbers of every patch at the linearisation `at`.
  void linearise(const Linearisation& at);
  /// yp (type-0, this rank's macros) -= the patch-mean part of s: C p + this = s(p, .).
  void subtract_patch_means(const double* p, double* yp) const;

  /// The Newton part at the pressure p (finest level, type-1) and the velocity of the last
  /// linearise() (without convection tau_K does not depend on it, and there is none).
  void linearise_jacobian(const double* p);
  /// yp (type-0) += the velocity derivative of s(p_k, .) applied to u (type-1).
  void add_jacobian(const double* u1, const double* u2, double* yp) const;

 private:
  const LevelHierarchy* velocity_;
  int per_side_;  ///< patches per macro side
  std::vector<LocalProjectionPatch> patches_;
  Linearisation at_;                              ///< of linearise()
  std::vector<LocalProjectionElement> elements_;  ///< empty: no Newton part
};

}  // namespace quilt
