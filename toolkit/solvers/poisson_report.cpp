#include "solvers/poisson_report.hpp"

#include <cstdio>

#include "io/config.hpp"

namespace quilt {
namespace {

void put_run(Json& j, const PoissonParams& params, const PoissonResult& r) {
  j["problem"] = "poisson";
  j["version"] = Config::version();
  j["solution"] = params.solution;
  j["mesh"] = params.mesh_file;
  j["level"] = r.level;
  j["coarse_level"] = r.coarse_level;
  j["macros"] = r.macros;
  j["ranks"] = r.ranks;
  j["dofs"] = r.dofs;
  j["solver"] = params.solver;
  j["description"] = r.description;
  j["target"] = accel::to_string(params.multigrid.local.target);
  j["precision"] = accel::to_string(params.multigrid.local.precision);
}

void put_solve(Json& j, const PoissonResult& r) {
  j["converged"] = r.solve.converged;
  j["iterations"] = r.solve.iterations;
  j["final_relative_residual"] = r.solve.relative_residual();
  j["residual_history"] = r.solve.history;
  j["l2_error"] = r.l2_error;
  j["h1_error"] = r.h1_error;
  j["checksum"] = checksum_text(r.checksum);
}

void put_timings(Json& j, const PoissonTimings& timings) {
  Json& t = j["timings"];
  t["total"] = timings.total;
  t["setup"] = timings.setup;
  t["rhs"] = timings.rhs;
  t["solve"] = timings.solve;
  t["local_solve"] = timings.local_solve;
  t["coarse_solve"] = timings.coarse_solve;
}

}  // namespace

std::string checksum_text(std::uint64_t checksum) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(checksum));
  return text;
}

Json poisson_results_json(const PoissonParams& params, const PoissonResult& r) {
  Json j = Json::object();
  put_run(j, params, r);
  put_solve(j, r);
  put_timings(j, r.timings);
  return j;
}

}  // namespace quilt
