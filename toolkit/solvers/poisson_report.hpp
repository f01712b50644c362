#pragma once
// The results document of a quilt-poisson run (design.md §9), built in the library like
// flow/flow_report.hpp's, so that a test can read it back against the structs it came from.

#include <cstdint>
#include <string>

#include "io/json.hpp"
#include "solvers/poisson_problem.hpp"

namespace quilt {

/// The solution's checksum as the results file and the log show it: 16 hex digits.
std::string checksum_text(std::uint64_t checksum);

/// The problem, `version`, mesh, levels, macros, ranks, dofs, solver, target, precision,
/// `converged`, iterations, residual history, L2/H1 errors, checksum and timings
/// (ResultsReport adds "status" before them and "config" after them).
Json poisson_results_json(const PoissonParams& params, const PoissonResult& r);

}  // namespace quilt
