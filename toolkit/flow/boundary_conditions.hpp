#pragma once
// Velocity boundary conditions bound to the mesh's boundary parts by name (design.md §3, §9):
//   "PART noslip"                      u = 0
//   "PART velocity UX UY"              u = (UX, UY)
//   "PART parabolic UMAX Y0 Y1"        u = (4 UMAX (y - Y0)(Y1 - y) / (Y1 - Y0)^2, 0)
//   "PART donothing"                   natural outflow nu du/dn - p n = 0 (no Dirichlet rows)
// A velocity or parabolic condition may end in "sin T" (times sin(pi t / T): DFG 2D-3) or
// "ramp T" (times a smooth ramp from 0 at t = 0 to 1 at t = T: the start of DFG 2D-2).
// A node on several Dirichlet parts (a corner) takes the value of the condition listed first,
// so a driven cavity lists its walls before the lid to keep the corners at rest.

#include <string>
#include <vector>

#include "mesh/coarse_mesh.hpp"
#include "parallel/distributed_mesh.hpp"

namespace quilt {

struct VelocityCondition {
  enum class Kind { noslip, velocity, parabolic, donothing };
  int part = -1;
  Kind kind = Kind::noslip;
  double a = 0, b = 0, c = 0;  ///< (UX, UY) or (UMAX, Y0, Y1)
  /// How the value changes in time: constant, times sin(pi t / T) ('... sin T'), or times the
  /// smooth ramp (1 - cos(pi t / T)) / 2 up to t = T and 1 after it ('... ramp T', a start-up
  /// without the jump from rest that an impulsive start is).
  enum class Modulation { none, sine, ramp };
  Modulation modulation = Modulation::none;
  double period = 0;  ///< T

  bool dirichlet() const { return kind != Kind::donothing; }
  /// Prescribed velocity at (x, y) and time t (zero for noslip and donothing).
  Point2 value(double x, double y, double t = 0) const;
};

/// Parses the "PART kind args" specs against the mesh's part names; every boundary part must
/// get exactly one condition. Throws std::invalid_argument naming the spec.
std::vector<VelocityCondition> parse_velocity_conditions(const CoarseMesh& mesh,
                                                         const std::vector<std::string>& specs);

/// Dirichlet velocity data of this rank's macros on `level`: mask (1 on Dirichlet nodes) and
/// values (u1, u2), grid order, macro-major.
struct VelocityBoundary {
  std::vector<char> dirichlet;
  std::vector<double> u1, u2;
  bool has_natural_outflow = false;  ///< some part is donothing (pressure then fixed by it)
};

VelocityBoundary velocity_boundary(const DistributedMesh& dm, int level,
                                   const std::vector<VelocityCondition>& conditions, double t = 0);

/// dirichlet_parts[p] for LevelHierarchy: true where part p carries a Dirichlet condition.
std::vector<bool> dirichlet_parts(const CoarseMesh& mesh,
                                  const std::vector<VelocityCondition>& conditions);

}  // namespace quilt
