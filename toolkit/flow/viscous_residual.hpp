#pragma once
// The viscous part of the SUPG/PSPG element residual, -nu Laplace(u), reconstructed from a
// recovered velocity gradient (Jansen, Collis, Whiting & Shakib 1999, "A better consistency for
// low-order stabilized finite element methods", CMAME 174: 153-170; design.md §8):
//
//  1. G_h(u) = recovered nodal gradient of the Q1 velocity u_h, by the lumped L2 projection
//       G_i = sum_K int_K grad u_h phi_i / sum_K int_K phi_i,
//     summed over every macro holding node i (type-1: the same for every rank count);
//  2. on the domain boundary the projection sees one side of the node only and is first-order,
//     G(x_0) = G(x_0 + h/3 n) + O(h^2), which would leave an O(1) error in div G_h on the wall
//     elements, right where the wall pressure is sampled; there G is extrapolated linearly along
//     the macro's grid line normal to the boundary edge, G_0 = G_1 + (G_1 - G_2) |x_0 - x_1| /
//     |x_1 - x_2| (second order on smoothly graded grids), averaged over every macro edge that
//     extrapolates into the node;
//  3. Laplace_h u = div G_h elementwise, and S(u) of flow/navier_stokes_operators.hpp.
//
// For u quadratic on a uniform rectangular grid G_h = grad u exactly (interior nodes: the mean of
// the two neighbouring difference quotients; boundary nodes: the exact linear extrapolation),
// hence Laplace_h u = Laplace u.

#include <array>
#include <vector>

#include "flow/navier_stokes_operators.hpp"
#include "la/vector_ops.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// A recovered gradient on the finest level, d[2c + k] = d_k u_(c+1) (type-1, this rank's
/// macros, grid order, macro-major).
struct NodalGradient {
  std::array<LevelVector, 4> d;
  explicit NodalGradient(std::size_t size = 0) {
    for (auto& f : d) f.assign(size, 0.0);
  }
  MacroGradient macro(int m, std::size_t nn) const {
    return {
        {d[0].data() + m * nn, d[1].data() + m * nn, d[2].data() + m * nn, d[3].data() + m * nn}};
  }
};

/// Steps 1 and 2 of the header on the finest level of a hierarchy. Set up once (the boundary
/// node counts and the scratch storage); recover() allocates nothing.
class GradientRecovery {
 public:
  /// velocity: its finest level's geometry and shared nodes; lumped_mass: that level's summed
  /// lumped mass (type-1); boundary_edges[m][k]: edge k of local macro m on the boundary. All
  /// must outlive this object.
  GradientRecovery(const LevelHierarchy& velocity, const LevelVector& lumped_mass,
                   const std::vector<std::array<bool, 4>>& boundary_edges);

  /// G = G_h(u1, u2) (u type-1). Collective.
  void recover(const double* u1, const double* u2, NodalGradient& G) const;

 private:
  void project(const double* u1, const double* u2, NodalGradient& G) const;
  void extrapolate_to_boundary(NodalGradient& G) const;

  const LevelHierarchy* velocity_;
  const LevelVector* lumped_mass_;
  const std::vector<std::array<bool, 4>>* boundary_edges_;
  int level_;
  /// int (d phi_j / d x_k) phi_i on this rank's macros (type-0), k = x, y: the projection's
  /// right-hand sides are their products with u (geometry only: assembled once).
  std::array<accel::BandedMatrix<double>, 2> derivative_;
  LevelVector extrapolations_;     ///< per node: macro edges extrapolating into it (type-1)
  mutable NodalGradient scratch_;  ///< the extrapolated values, summed over those edges
};

/// S(u) of flow/navier_stokes_operators.hpp at a linearisation (w, nu, stabilisation), for the
/// operator K(w) and the momentum residual (flow/navier_stokes_system.hpp).
class ViscousResidualTerm {
 public:
  ViscousResidualTerm(const LevelHierarchy& velocity, const LevelVector& lumped_mass,
                      const std::vector<std::array<bool, 4>>& boundary_edges);

  /// The linearisation of add() (with convection false, w and the SUPG part ignored): S's
  /// blocks assembled at it.
  void linearise(const Linearisation& at);
  /// y1, y2, yp (type-0, this rank's macros) += S(u), u type-1. Collective (the recovery).
  void add(const double* u1, const double* u2, double* y1, double* y2, double* yp) const;

  const GradientRecovery& recovery() const { return recovery_; }

 private:
  const LevelHierarchy* velocity_;
  GradientRecovery recovery_;
  /// S's blocks at the last linearisation (finest level, this rank's macros): x, y, xx, xy, yx,
  /// yy; supg_, pspg_: whether the momentum (x, y) and the continuity ones are not zero. A pair
  /// that is zero is not stored (empty).
  std::array<accel::BandedMatrix<double>, 6> blocks_;
  bool supg_ = false, pspg_ = false;
  mutable NodalGradient gradient_;  ///< G_h(u) of the last add()
};

}  // namespace quilt
