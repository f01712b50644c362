#include "flow/flow_report.hpp"

#include <cmath>
#include <stdexcept>

#include "accel/local_solver.hpp"
#include "flow/flow_postprocessing.hpp"
#include "io/config.hpp"
#include "io/vtu_writer.hpp"
#include "parallel/distributed_mesh.hpp"

namespace quilt {
namespace {

/// Samples of u1 on [x0, x1] for the recirculation length: its end is found to (x1 - x0) / 4000
/// by the linear interpolation between them, below the discretisation error of L = 3..7.
constexpr int kRecirculationSamples = 4001;

/// (s_k, field(points_k)) of a profile of `field`.
Profile profile(const NavierStokesResult& r, const LevelVector& field, const std::vector<double>& s,
                const std::vector<Point2>& points, const Communicator& comm) {
  const std::vector<double> values = evaluate_at_points(r.mesh, r.level, field, points, comm);
  Profile pairs;
  for (std::size_t k = 0; k < s.size(); ++k) pairs.push_back({s[k], values[k]});
  return pairs;
}

CenterlineProfiles centerlines(const FlowPostprocessing& post, const NavierStokesResult& r,
                               const Communicator& comm) {
  const PostprocessingPoints at = postprocessing_points(post);
  return {profile(r, r.u1, post.centerline_y, at.centerline_u, comm),
          profile(r, r.u2, post.centerline_x, at.centerline_v, comm)};
}

FlowForces forces(const FlowPostprocessing& post, const NavierStokesResult& r, double nu,
                  const Communicator& comm) {
  const int part = r.mesh.mesh.part_id(post.force_part);
  const BoundaryForce volume =
      volume_force(r.mesh, r.level, r.momentum_residual1, r.momentum_residual2, part, comm);
  const BoundaryForce surface = surface_force(r.mesh, r.level, r.u1, r.u2, r.p, nu, part, comm);
  const double c = post.force_scale;
  return {post.force_part, c * volume.x, c * volume.y, c * surface.x, c * surface.y};
}

std::array<double, 2> nodal_point_pressures(const std::array<Point2, 2>& points,
                                            const NavierStokesResult& r, const Communicator& comm) {
  const auto p = evaluate_at_points(r.mesh, r.level, r.p, {points[0], points[1]}, comm);
  return {p[0], p[1]};
}

/// p at the two points: on the force part (a no-slip body) from the wall traction
/// (wall_pressure), elsewhere the Q1 pressure there.
std::array<double, 2> point_pressures(const FlowPostprocessing& post, const NavierStokesResult& r,
                                      const std::array<double, 2>& nodal,
                                      const Communicator& comm) {
  if (post.force_part.empty()) return nodal;
  const auto& points = *post.pressure_points;
  const auto wall =
      wall_pressure(r.mesh, r.level, r.momentum_residual1, r.momentum_residual2,
                    r.mesh.mesh.part_id(post.force_part), {points[0], points[1]}, comm);
  return {std::isnan(wall[0]) ? nodal[0] : wall[0], std::isnan(wall[1]) ? nodal[1] : wall[1]};
}

Json profile_json(const Profile& pairs) {
  Json a = Json::array();
  for (const auto& [s, v] : pairs) a.push_back(Json::array({s, v}));
  return a;
}

void put_run(Json& j, const FlowRun& run, const NavierStokesResult& r) {
  const NavierStokesParams& p = run.params;
  j["problem"] = "navier-stokes";
  j["version"] = Config::version();
  j["mesh"] = p.mesh_file;
  j["level"] = r.level;
  j["coarse_level"] = r.coarse_level;
  j["macros"] = r.mesh.mesh.num_cells();
  j["ranks"] = run.ranks;
  j["dofs"] = r.dofs;
  j["re"] = run.scale.reynolds(p.nu);
  j["nu"] = p.nu;
  j["stokes"] = p.stokes;
  j["target"] = accel::to_string(p.multigrid.local.target);
  j["precision"] = accel::to_string(p.multigrid.local.precision);
}

void put_iterations(Json& j, const NavierStokesResult& r) {
  j["converged"] = r.converged;
  j["nonlinear_iterations"] = static_cast<int>(r.steps.size()) - 1;
  Json per_step = Json::array(), residuals = Json::array();  // [] when empty, not null
  for (const auto& s : r.steps) {
    residuals.push_back(s.residual);
    if (s.linear_iterations > 0) per_step.push_back(s.linear_iterations);
  }
  Json& linear = j["linear_iterations"];
  linear["total"] = total_linear_iterations(r);
  linear["per_step"] = per_step;
  j["nonlinear_residuals"] = residuals;
  j["preconditioner_setups"] = r.preconditioner_setups;
}

void put_quantities(Json& j, const FlowQuantities& q) {
  j["kinetic_energy"] = q.kinetic_energy;
  j["divergence_l2"] = q.divergence_l2;
  if (q.centerlines) {
    j["centerline_u"] = profile_json(q.centerlines->u);
    j["centerline_v"] = profile_json(q.centerlines->v);
  }
  if (q.forces) {
    j["drag"] = q.forces->drag;
    j["lift"] = q.forces->lift;
    j["drag_surface"] = q.forces->drag_surface;
    j["lift_surface"] = q.forces->lift_surface;
  }
  if (q.pressure_difference) j["pressure_difference"] = *q.pressure_difference;
  if (q.pressure_difference_nodal) j["pressure_difference_nodal"] = *q.pressure_difference_nodal;
  if (q.point_pressures) {  // p at the two points, "front" and "back" of the DFG cylinder
    j["pressure_front"] = (*q.point_pressures)[0];
    j["pressure_back"] = (*q.point_pressures)[1];
  }
  if (q.recirculation_length) j["recirculation_length"] = *q.recirculation_length;
}

void put_timings(Json& j, const FlowTimings& timings) {
  Json& t = j["timings"];
  t["total"] = timings.total;
  t["setup"] = timings.setup;
  t["assembly"] = timings.assembly;
  t["linear"] = timings.linear;
  t["local_solve"] = timings.local_solve;
  t["coarse_solve"] = timings.coarse_solve;
  // The FEAST papers' ratios (design.md §9).
  const double r_acc = timings.linear > 0 ? timings.local_solve / timings.linear : 0.0;
  j["r_ass"] = timings.assembly / timings.total;
  j["r_lin"] = timings.linear / timings.total;
  j["r_acc"] = r_acc;
  j["s_max"] = 1.0 / (1.0 - r_acc);
}

}  // namespace

PostprocessingPoints postprocessing_points(const FlowPostprocessing& post) {
  PostprocessingPoints at;
  if (post.pressure_points) at.pressure = {(*post.pressure_points)[0], (*post.pressure_points)[1]};
  if (const auto& line = post.recirculation)
    at.recirculation = {{line->x0, line->y0}, {line->x1, line->y0}};
  if (post.centerlines) {
    for (double y : post.centerline_y) at.centerline_u.push_back({0.5, y});
    for (double x : post.centerline_x) at.centerline_v.push_back({x, 0.5});
  }
  return at;
}

std::string postprocessing_problem(const FlowPostprocessing& post, const CoarseMesh& mesh) {
  if (!post.force_part.empty() && mesh.part_id(post.force_part) < 0)
    return "the mesh has no boundary part '" + post.force_part + "'";
  return "";
}

FlowQuantities evaluate_series_quantities(const FlowPostprocessing& post,
                                          const NavierStokesResult& r, double nu,
                                          const Communicator& comm) {
  if (const std::string problem = postprocessing_problem(post, r.mesh.mesh); !problem.empty())
    throw std::invalid_argument("flow postprocessing: " + problem);
  FlowQuantities q;
  if (!post.force_part.empty()) q.forces = forces(post, r, nu, comm);
  if (post.pressure_points) {
    const auto nodal = nodal_point_pressures(*post.pressure_points, r, comm);
    q.point_pressures = point_pressures(post, r, nodal, comm);
    q.pressure_difference = (*q.point_pressures)[0] - (*q.point_pressures)[1];
    q.pressure_difference_nodal = nodal[0] - nodal[1];
  }
  return q;
}

FlowQuantities evaluate_flow_quantities(const FlowPostprocessing& post, const NavierStokesResult& r,
                                        double nu, const Communicator& comm) {
  FlowQuantities q = evaluate_series_quantities(post, r, nu, comm);
  q.kinetic_energy = kinetic_energy(r.mesh, r.level, r.u1, r.u2, comm);
  q.divergence_l2 = divergence_l2(r.mesh, r.level, r.u1, r.u2, comm);
  if (post.centerlines) q.centerlines = centerlines(post, r, comm);
  if (const auto& line = post.recirculation)
    q.recirculation_length = recirculation_length(r.mesh, r.level, r.u1, line->x0, line->x1,
                                                  line->y0, kRecirculationSamples, comm);
  return q;
}

int total_linear_iterations(const NavierStokesResult& r) {
  int total = 0;
  for (const auto& s : r.steps) total += s.linear_iterations;
  return total;
}

Json flow_results_json(const FlowRun& run, const NavierStokesResult& r, const FlowQuantities& q) {
  Json j = Json::object();
  put_run(j, run, r);
  put_iterations(j, r);
  put_quantities(j, q);
  put_timings(j, r.timings);
  return j;
}

void write_flow_vtu(const std::string& directory, const std::string& name,
                    const NavierStokesResult& r, const Communicator& comm) {
  const std::vector<MacroGeometry> geometry = refine_local_macros(r.mesh, r.level);
  const LevelVector omega = vorticity(r.mesh, r.level, r.u1, r.u2, comm);
  write_vtu(directory, name,
            {geometry,
             r.mesh.macros,
             {{"velocity", r.u1, r.u2}},
             {{"pressure", r.p}, {"vorticity", omega}}},
            comm);
}

}  // namespace quilt
