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
// Newton: tau_K depends on the velocity at the element centre; its derivative in s would couple
// a velocity to pressures two nodes away and is left out of the Jacobian (the only part of the
// Jacobian that is: the Newton steps converge fast-linearly, not quadratically).

#include <vector>

#include "flow/navier_stokes_operators.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

class LocalProjectionTerm {
 public:
  /// The patches of the finest level of `velocity` (which must outlive this object; its
  /// finest level must be >= 1, so that every macro has patches).
  explicit LocalProjectionTerm(const LevelHierarchy& velocity);

  /// The numbers of every patch at the linearisation w (finest level, type-1), nu, stab.
  void linearise(const double* w1, const double* w2, double nu, bool convection,
                 const Stabilisation& stab);
  /// yp (type-0, this rank's macros) -= the patch-mean part of s: C p + this = s(p, .).
  void subtract_patch_means(const double* p, double* yp) const;

 private:
  const LevelHierarchy* velocity_;
  int per_side_;  ///< patches per macro side
  std::vector<LocalProjectionPatch> patches_;
};

}  // namespace quilt
