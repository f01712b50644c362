#pragma once
// The --results document of a run, whether it succeeds or not (design.md §9, §10). Once the
// output paths were checked, a run that fails (a solver error, no convergence, a bad key found
// after the check, a --vtu directory that cannot be written) still leaves a results file, so that
// a batch of runs can be evaluated from the files alone:
//   {"status": "failed", "error": MESSAGE, <what is known>, "config": {...}}
// where <what is known> is the results written before the failure, or else the problem, the
// version and "converged": false. A successful run writes {"status": "ok", <results>, "config"}.
// A results path found unusable is never written, not even for the error.

#include <optional>
#include <string>

#include "io/config.hpp"
#include "io/json.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// The "config" section: every key of `config` with its value as the type the key was declared
/// with (a list as an array of strings), null when unset. --help and --version are left out:
/// they end the program before any run.
Json config_json(const Config& config);

class ResultsReport {
 public:
  /// Collective: check_output_options(config, comm); then keeps what a failure document needs:
  /// the --results path, config_json(config) and `problem` ("poisson", "navier-stokes").
  void check_output(const Config& config, const std::string& problem, const Communicator& comm);

  /// Collective: writes document(results) to --results, if it was given (write_results).
  /// `results` (the run's fields) become the body of a failure document written after this.
  void write(const Json& results, const Communicator& comm);

  /// {"status": "ok", results..., "config": ...}.
  Json document(const Json& results) const;
  /// {"status": "failed", "error": message, <the results written, or the problem, version and
  /// "converged": false>, "config": ...}.
  Json failure_document(const std::string& message) const;

  /// Not collective, never throws: on rank 0, once check_output passed, writes
  /// failure_document(message) to --results (write_results_file), unless writing the results
  /// there failed before. Returns "" or, when that write failed, why.
  std::string write_failure(const std::string& message) const noexcept;

 private:
  std::optional<std::string> path_;  ///< --results, on every rank
  bool reports_failure_ = false;     ///< rank 0, with a path that took (or can take) a file
  std::string problem_;
  Json config_, results_;
};

}  // namespace quilt
