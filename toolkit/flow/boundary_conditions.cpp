#include "flow/boundary_conditions.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "accel/banded_matrix.hpp"
#include "mesh/macro_geometry.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {

Point2 VelocityCondition::value(double, double y, double t) const {
  double factor = 1.0;
  if (modulation == Modulation::sine) factor = std::sin(std::numbers::pi * t / period);
  if (modulation == Modulation::ramp && t < period)
    factor = 0.5 * (1.0 - std::cos(std::numbers::pi * t / period));
  switch (kind) {
    case Kind::velocity:
      return {factor * a, factor * b};
    case Kind::parabolic: {
      const double width = c - b;
      return {factor * 4.0 * a * (y - b) * (c - y) / (width * width), 0.0};
    }
    default:
      return {0.0, 0.0};
  }
}

std::vector<VelocityCondition> parse_velocity_conditions(const CoarseMesh& mesh,
                                                         const std::vector<std::string>& specs) {
  std::vector<VelocityCondition> conditions;
  std::vector<int> seen(mesh.part_names.size(), 0);
  for (const std::string& spec : specs) {
    std::istringstream in(spec);
    std::string part, kind;
    in >> part >> kind;
    VelocityCondition c;
    c.part = mesh.part_id(part);
    auto fail = [&](const std::string& why) {
      throw std::invalid_argument("boundary condition '" + spec + "': " + why);
    };
    if (c.part < 0) fail("the mesh has no boundary part '" + part + "'");
    if (seen[c.part]++) fail("part '" + part + "' already has a condition");
    if (kind == "noslip") {
      c.kind = VelocityCondition::Kind::noslip;
    } else if (kind == "donothing") {
      c.kind = VelocityCondition::Kind::donothing;
    } else if (kind == "velocity") {
      c.kind = VelocityCondition::Kind::velocity;
      if (!(in >> c.a >> c.b)) fail("expected 'velocity UX UY'");
    } else if (kind == "parabolic") {
      c.kind = VelocityCondition::Kind::parabolic;
      if (!(in >> c.a >> c.b >> c.c) || !(c.c > c.b))
        fail("expected 'parabolic UMAX Y0 Y1', Y1 > Y0");
    } else {
      fail("unknown kind '" + kind +
           "' (noslip | velocity UX UY | parabolic UMAX Y0 Y1 | donothing; the velocity ones "
           "optionally followed by 'sin T' or 'ramp T')");
    }
    std::string extra;
    if (in >> extra) {
      if ((extra != "sin" && extra != "ramp") || !c.dirichlet() ||
          c.kind == VelocityCondition::Kind::noslip)
        fail("unexpected '" + extra +
             "' (a velocity or parabolic condition may end in 'sin T' or 'ramp T')");
      c.modulation = extra == "sin" ? VelocityCondition::Modulation::sine
                                    : VelocityCondition::Modulation::ramp;
      if (!(in >> c.period) || !(c.period > 0) || !std::isfinite(c.period))
        fail("expected '" + extra + " T' with a time T > 0");
      if (in >> extra) fail("unexpected '" + extra + "'");
    }
    conditions.push_back(c);
  }
  for (std::size_t p = 0; p < seen.size(); ++p)
    if (!seen[p])
      throw std::invalid_argument("boundary part '" + mesh.part_names[p] +
                                  "' has no condition (boundary.condition = '" +
                                  mesh.part_names[p] + " noslip', ...)");
  return conditions;
}

std::vector<bool> dirichlet_parts(const CoarseMesh& mesh,
                                  const std::vector<VelocityCondition>& conditions) {
  std::vector<bool> parts(mesh.part_names.size(), false);
  for (const auto& c : conditions) parts[c.part] = c.dirichlet();
  return parts;
}

VelocityBoundary velocity_boundary(const DistributedMesh& dm, int level,
                                   const std::vector<VelocityCondition>& conditions, double t) {
  const CoarseMesh& mesh = dm.mesh;
  const int n = accel::nodes_per_side(level);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  // Condition of each part, and its rank in the config order (lower wins at corners).
  std::vector<int> condition_of_part(mesh.part_names.size(), -1);
  for (std::size_t k = 0; k < conditions.size(); ++k)
    condition_of_part[conditions[k].part] = static_cast<int>(k);

  VelocityBoundary bc;
  bc.dirichlet.assign(nn * dm.num_local(), 0);
  bc.u1.assign(bc.dirichlet.size(), 0.0);
  bc.u2.assign(bc.dirichlet.size(), 0.0);
  for (const auto& c : conditions)
    if (!c.dirichlet()) bc.has_natural_outflow = true;

  for (int m = 0; m < dm.num_local(); ++m) {
    const int cell = dm.macros[m];
    const MacroGeometry g = refine_macro(mesh, dm.charts, cell, level);
    // For every node, the index of the condition that sets it (-1: none).
    std::vector<int> owner(nn, -1);
    auto claim = [&](std::size_t r, int k) {
      if (k >= 0 && conditions[k].dirichlet() && (owner[r] < 0 || k < owner[r])) owner[r] = k;
    };
    for (int e = 0; e < 4; ++e) {
      const int part = mesh.edge_part[mesh.cell_edges[cell][e]];
      if (part < 0) continue;
      for (int q = 1; q + 1 < n; ++q) claim(edge_node(n, e, q), condition_of_part[part]);
    }
    for (int c = 0; c < 4; ++c)
      for (int part : mesh.vertex_parts[mesh.cells[cell][c]])
        claim(corner_node(n, c), condition_of_part[part]);
    for (std::size_t r = 0; r < nn; ++r) {
      if (owner[r] < 0) continue;
      const Point2 u = conditions[owner[r]].value(g.x[r], g.y[r], t);
      bc.dirichlet[m * nn + r] = 1;
      bc.u1[m * nn + r] = u.x;
      bc.u2[m * nn + r] = u.y;
    }
  }
  return bc;
}

}  // namespace quilt
