#include "io/results_report.hpp"

#include <exception>
#include <variant>

#include "io/output.hpp"

namespace quilt {
namespace {

/// `head` followed by the members of `body` and then "config".
Json with_body(Json head, const Json& body, const Json& config) {
  for (const auto& [key, value] : body.items()) head[key] = value;
  head["config"] = config;
  return head;
}

}  // namespace

Json config_json(const Config& config) {
  Json section = Json::object();
  for (const auto& [key, value] : config.typed_settings()) {
    if (key == "help" || key == "version") continue;
    section[key] = value ? std::visit([](const auto& v) { return Json(v); }, *value) : Json();
  }
  return section;
}

void ResultsReport::check_output(const Config& config, const std::string& problem,
                                 const Communicator& comm) {
  check_output_options(config, comm);
  problem_ = problem;
  config_ = config_json(config);
  if (config.has("results")) path_ = config.get<std::string>("results");
  reports_failure_ = path_ && comm.rank() == 0;  // armed last: a failure document is whole
}

void ResultsReport::write(const Json& results, const Communicator& comm) {
  if (!path_) return;
  const bool reports_failure = reports_failure_;
  // A path that could not take the results is not written again for the error.
  reports_failure_ = false;
  write_results(*path_, document(results), comm);
  reports_failure_ = reports_failure;
  results_ = results;
}

Json ResultsReport::document(const Json& results) const {
  return with_body({{"status", "ok"}}, results, config_);
}

Json ResultsReport::failure_document(const std::string& message) const {
  const Json known =
      results_.is_null()
          ? Json{{"problem", problem_}, {"version", Config::version()}, {"converged", false}}
          : results_;
  return with_body({{"status", "failed"}, {"error", message}}, known, config_);
}

std::string ResultsReport::write_failure(const std::string& message) const noexcept {
  if (!reports_failure_) return "";
  try {
    write_results_file(*path_, failure_document(message));
    return "";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace quilt
