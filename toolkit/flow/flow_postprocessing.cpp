#include "flow/flow_postprocessing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fem/flow_functionals.hpp"
#include "fem/point_evaluation.hpp"
#include "fem/q1_element.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/macro_nodes.hpp"
#include "parallel/shared_nodes.hpp"

namespace quilt {
namespace {

std::size_t nodes_per_macro(int level) {
  const auto n = static_cast<std::size_t>(accel::nodes_per_side(level));
  return n * n;
}

/// Every rank's values at the same points (NaN: not found there) gathered; the first rank (in
/// rank order) that found a point decides.
std::vector<double> first_found(const std::vector<double>& found, const Communicator& comm) {
  std::vector<double> all(found.size() * comm.size());
  check_mpi(MPI_Allgather(found.data(), static_cast<int>(found.size()), MPI_DOUBLE, all.data(),
                          static_cast<int>(found.size()), MPI_DOUBLE, comm.handle()),
            "MPI_Allgather (point evaluation)");
  std::vector<double> values(found.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < found.size(); ++k)
    for (int r = 0; r < comm.size() && std::isnan(values[k]); ++r)
      values[k] = all[r * found.size() + k];
  return values;
}

/// f(a, b, nx, ny, length) for every fine element side on `part` of macro m: its end nodes a, b
/// (grid order), the unit normal out of the fluid and its length.
template <class SideFunction>
void for_each_part_side(const DistributedMesh& dm, const MacroGeometry& g, int m, int part,
                        SideFunction f) {
  const int n = g.n;
  const int cell = dm.macros[m];
  // Grid offset from an edge node to its inward neighbour, per local edge (macro_nodes.hpp).
  const std::array<std::ptrdiff_t, 4> inward{n, -1, -n, 1};
  for (int k = 0; k < 4; ++k) {
    if (dm.mesh.edge_part[dm.mesh.cell_edges[cell][k]] != part) continue;
    for (int q = 0; q + 1 < n; ++q) {
      const std::size_t a = edge_node(n, k, q), b = edge_node(n, k, q + 1);
      const double tx = g.x[b] - g.x[a], ty = g.y[b] - g.y[a];
      const double length = std::hypot(tx, ty);
      double nx = ty / length, ny = -tx / length;
      const auto inner = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(a) + inward[k]);
      if (nx * (g.x[inner] - g.x[a]) + ny * (g.y[inner] - g.y[a]) > 0) {
        nx = -nx;
        ny = -ny;
      }
      f(a, b, nx, ny, length);
    }
  }
}

}  // namespace

double kinetic_energy(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  double local = 0;
  for (int m = 0; m < dm.num_local(); ++m)
    local += quilt::kinetic_energy(refine_macro(dm.mesh, dm.charts, dm.macros[m], level),
                                   u1.data() + m * nn, u2.data() + m * nn);
  return comm.sum(local);
}

std::vector<double> evaluate_at_points(const DistributedMesh& dm, int level,
                                       const LevelVector& field, const std::vector<Point2>& points,
                                       const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  const double none = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> found(points.size(), none);
  for (int m = 0; m < dm.num_local(); ++m) {
    const MacroGeometry g = refine_macro(dm.mesh, dm.charts, dm.macros[m], level);
    // Every element lies in the box of the macro's nodes, and locate_point's slack (1e-12 of an
    // element's extent) in 1e-12 of the macro's: a point outside that is in none of its elements.
    const auto [x_lo, x_hi] = std::minmax_element(g.x.begin(), g.x.end());
    const auto [y_lo, y_hi] = std::minmax_element(g.y.begin(), g.y.end());
    const double slack = 1e-12 * std::max(*x_hi - *x_lo, *y_hi - *y_lo);
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (!std::isnan(found[k])) continue;
      const Point2 p = points[k];
      if (p.x < *x_lo - slack || p.x > *x_hi + slack || p.y < *y_lo - slack || p.y > *y_hi + slack)
        continue;
      if (const auto loc = locate_point(g, p))
        found[k] = evaluate_q1_field(g, field.data() + m * nn, *loc);
    }
  }
  return first_found(found, comm);
}

LevelVector vorticity(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  LevelVector omega(u1.size()), mass(u1.size());
  for (int m = 0; m < dm.num_local(); ++m) {
    const MacroGeometry g = refine_macro(dm.mesh, dm.charts, dm.macros[m], level);
    vorticity_load(g, u1.data() + m * nn, u2.data() + m * nn, omega.data() + m * nn);
    assemble_lumped_mass(g, mass.data() + m * nn);
  }
  const SharedNodes shared(dm, comm, level);
  shared.sum(omega.data());
  shared.sum(mass.data());
  for (std::size_t i = 0; i < omega.size(); ++i) omega[i] /= mass[i];
  return omega;
}

double divergence_l2(const DistributedMesh& dm, int level, const LevelVector& u1,
                     const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  double local = 0;
  for (int m = 0; m < dm.num_local(); ++m)
    local += divergence_l2_squared(refine_macro(dm.mesh, dm.charts, dm.macros[m], level),
                                   u1.data() + m * nn, u2.data() + m * nn);
  return std::sqrt(comm.sum(local));
}

}  // namespace quilt

namespace quilt {

BoundaryForce volume_force(const DistributedMesh& dm, int level, const LevelVector& residual1,
                           const LevelVector& residual2, int part, const Communicator& comm) {
  const int n = accel::nodes_per_side(level);
  const std::size_t nn = nodes_per_macro(level);
  std::vector<bool> selected(dm.mesh.part_names.size(), false);
  selected.at(part) = true;
  const SharedNodes shared(dm, comm, level);
  const auto& weight = shared.inverse_multiplicity();  // each global node once
  double fx = 0, fy = 0;
  for (int m = 0; m < dm.num_local(); ++m) {
    const auto mask = boundary_node_mask(dm.mesh, dm.macros[m], n, selected);
    for (std::size_t r = 0; r < nn; ++r)
      if (mask[r]) {
        fx -= residual1[m * nn + r] * weight[m * nn + r];
        fy -= residual2[m * nn + r] * weight[m * nn + r];
      }
  }
  const auto total = comm.sum(std::vector<double>{fx, fy});
  return {total[0], total[1]};
}

namespace {

/// The fine element sides of one boundary part on this rank's macros, with the part's boundary
/// mass matrix M_G (int phi_i phi_j ds) and its lumped form D (type-1 vectors, as the levels).
class PartSides {
 public:
  PartSides(const DistributedMesh& dm, int level, int part, const Communicator& comm)
      : dm_(&dm), part_(part), nn_(nodes_per_macro(level)), shared_(dm, comm, level) {
    for (int m = 0; m < dm.num_local(); ++m)
      geometry_.push_back(refine_macro(dm.mesh, dm.charts, dm.macros[m], level));
  }

  /// f(g, a, b, nx, ny, length) per side: its macro geometry g, its end nodes a, b as indices
  /// into a level vector, the unit normal out of the fluid and the length.
  template <class F>
  void for_each(F f) const {
    for (int m = 0; m < dm_->num_local(); ++m)
      for_each_part_side(*dm_, geometry_[m], m, part_,
                         [&](std::size_t a, std::size_t b, double nx, double ny, double length) {
                           f(geometry_[m], a, b, m * nn_ + a, m * nn_ + b, nx, ny, length);
                         });
  }
  /// v (type-0 sums over the sides) -> type-1.
  void sum(LevelVector& v) const { shared_.sum(v.data()); }

  /// Solves M_G p = t on the part's nodes (lumped > 0): Richardson iteration on D^{-1} M_G from
  /// the lumped solution. The spectrum of D^{-1} M_G lies in [1/3, 1] (element by element), so
  /// omega = 3/2 contracts by 1/2 per sweep; 40 sweeps reach round-off.
  void solve_mass(const LevelVector& t, const LevelVector& lumped, LevelVector& p) const {
    LevelVector Mp(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = lumped[i] > 0 ? t[i] / lumped[i] : 0.0;
    for (int sweep = 0; sweep < kMassSweeps; ++sweep) {
      std::fill(Mp.begin(), Mp.end(), 0.0);
      for_each([&](const MacroGeometry&, std::size_t, std::size_t, std::size_t a, std::size_t b,
                   double, double, double length) {
        Mp[a] += length * (p[a] / 3 + p[b] / 6);
        Mp[b] += length * (p[a] / 6 + p[b] / 3);
      });
      sum(Mp);
      for (std::size_t i = 0; i < p.size(); ++i)
        if (lumped[i] > 0) p[i] += 1.5 * (t[i] - Mp[i]) / lumped[i];
    }
  }

  /// The nodal field f, linear along each side, at points on the part (NaN where a rank has
  /// none): per point the nearest side (a point on a curved boundary lies off its chord by
  /// O(h^2)), accepted within a quarter of its length. Collective.
  std::vector<double> at_points(const LevelVector& f, const std::vector<Point2>& points,
                                const Communicator& comm) const {
    std::vector<double> found(points.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<double> nearest(points.size(), std::numeric_limits<double>::infinity());
    for_each([&](const MacroGeometry& g, std::size_t ga, std::size_t gb, std::size_t a,
                 std::size_t b, double, double, double length) {
      const double tx = g.x[gb] - g.x[ga], ty = g.y[gb] - g.y[ga];
      for (std::size_t k = 0; k < points.size(); ++k) {
        const double rx = points[k].x - g.x[ga], ry = points[k].y - g.y[ga];
        const double s = std::clamp((rx * tx + ry * ty) / (length * length), 0.0, 1.0);
        const double d = std::hypot(s * tx - rx, s * ty - ry);
        if (d > 0.25 * length || d >= nearest[k]) continue;
        nearest[k] = d;
        found[k] = (1 - s) * f[a] + s * f[b];
      }
    });
    return first_found(found, comm);
  }

 private:
  static constexpr int kMassSweeps = 40;
  const DistributedMesh* dm_;
  int part_;
  std::size_t nn_;
  SharedNodes shared_;
  std::vector<MacroGeometry> geometry_;
};

}  // namespace

std::vector<double> wall_pressure(const DistributedMesh& dm, int level,
                                  const LevelVector& residual1, const LevelVector& residual2,
                                  int part, const std::vector<Point2>& points,
                                  const Communicator& comm) {
  const PartSides sides(dm, level, part, comm);
  // N_i = int phi_i n ds and the lumped boundary mass int phi_i ds.
  LevelVector N1(residual1.size(), 0.0), N2(residual1.size(), 0.0), lumped(residual1.size(), 0.0);
  sides.for_each([&](const MacroGeometry&, std::size_t, std::size_t, std::size_t a, std::size_t b,
                     double nx, double ny, double length) {
    for (std::size_t i : {a, b}) {
      N1[i] += 0.5 * length * nx;
      N2[i] += 0.5 * length * ny;
      lumped[i] += 0.5 * length;
    }
  });
  for (LevelVector* v : {&N1, &N2, &lumped}) sides.sum(*v);
  // The traction's normal part, t_i = -r_i . N_i / |N_i| = int p phi_i ds.
  LevelVector t(residual1.size(), 0.0), p(residual1.size());
  for (std::size_t i = 0; i < t.size(); ++i)
    if (lumped[i] > 0)
      t[i] = -(residual1[i] * N1[i] + residual2[i] * N2[i]) / std::hypot(N1[i], N2[i]);
  sides.solve_mass(t, lumped, p);
  return sides.at_points(p, points, comm);
}

BoundaryForce surface_force(const DistributedMesh& dm, int level, const LevelVector& u1,
                            const LevelVector& u2, const LevelVector& p, double nu, int part,
                            const Communicator& comm) {
  const int n = accel::nodes_per_side(level);
  const std::size_t nn = nodes_per_macro(level);
  // Local edge k of a macro: its elements' side runs between element corners (a, b) (ccw), at
  // reference coordinate xi or eta fixed to +-1.
  constexpr int side_a[4] = {0, 1, 2, 3}, side_b[4] = {1, 2, 3, 0};  // ccw sides
  const double g = 1.0 / std::sqrt(3.0);
  double fx = 0, fy = 0;
  for (int m = 0; m < dm.num_local(); ++m) {
    const int cell = dm.macros[m];
    const MacroGeometry geo = refine_macro(dm.mesh, dm.charts, cell, level);
    for (int k = 0; k < 4; ++k) {
      if (dm.mesh.edge_part[dm.mesh.cell_edges[cell][k]] != part) continue;
      for (int e = 0; e + 1 < n; ++e) {
        const int ei = k == 1 ? n - 2 : (k == 3 ? 0 : e);
        const int ej = k == 2 ? n - 2 : (k == 0 ? 0 : e);
        std::array<double, 4> x{}, y{}, v1{}, v2{}, pe{};
        for (int a = 0; a < 4; ++a) {
          const std::size_t r = (ei + kQ1DI[a]) + static_cast<std::size_t>(ej + kQ1DJ[a]) * n;
          x[a] = geo.x[r];
          y[a] = geo.y[r];
          v1[a] = u1[m * nn + r];
          v2[a] = u2[m * nn + r];
          pe[a] = p[m * nn + r];
        }
        // The side from corner A to corner B; for a ccw element the outward normal of the
        // element (out of the fluid, into the body) is (dy, -dx)/|.|; the traction on the body
        // uses the opposite normal, pointing into the fluid.
        const int A = side_a[k], B = side_b[k];
        const double dx = x[B] - x[A], dy = y[B] - y[A];
        const double length = std::hypot(dx, dy);
        const double nx = -dy / length, ny = dx / length;  // into the fluid
        for (double t : {-g, g}) {
          // Reference coordinates of the Gauss point on the side.
          double xi = 0, eta = 0;
          switch (k) {
            case 0:
              xi = t;
              eta = -1;
              break;
            case 1:
              xi = 1;
              eta = t;
              break;
            case 2:
              xi = t;
              eta = 1;
              break;
            default:
              xi = -1;
              eta = t;
              break;
          }
          const Q1Point q = evaluate_q1(x, y, xi, eta);
          double pv = 0, u1x = 0, u1y = 0, u2x = 0, u2y = 0;
          for (int a = 0; a < 4; ++a) {
            pv += pe[a] * q.phi[a];
            u1x += v1[a] * q.dphi_dx[a];
            u1y += v1[a] * q.dphi_dy[a];
            u2x += v2[a] * q.dphi_dx[a];
            u2y += v2[a] * q.dphi_dy[a];
          }
          const double w = 0.5 * length;  // weight 1 per point times |side| / 2
          fx += w * (-pv * nx + nu * (u1x * nx + u1y * ny));
          fy += w * (-pv * ny + nu * (u2x * nx + u2y * ny));
        }
      }
    }
  }
  const auto total = comm.sum(std::vector<double>{fx, fy});
  return {total[0], total[1]};
}

double recirculation_length(const DistributedMesh& dm, int level, const LevelVector& u1, double x0,
                            double x1, double y0, int samples, const Communicator& comm) {
  std::vector<Point2> points(samples);
  for (int k = 0; k < samples; ++k) points[k] = {x0 + (x1 - x0) * k / (samples - 1.0), y0};
  const auto u = evaluate_at_points(dm, level, u1, points, comm);
  for (int k = 1; k < samples; ++k)
    if (u[k - 1] < 0 && u[k] >= 0) {
      const double s = u[k - 1] / (u[k - 1] - u[k]);
      return points[k - 1].x + s * (points[k].x - points[k - 1].x) - x0;
    }
  return 0.0;
}

}  // namespace quilt
