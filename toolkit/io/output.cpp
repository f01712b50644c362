#include "io/output.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>

namespace quilt {
namespace {

namespace fs = std::filesystem;

/// The path without trailing separators ("out/" -> "out"), so that parent_path() is its parent.
fs::path without_trailing_separator(const std::string& path) {
  fs::path p = path;
  while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

std::string writable_directory_problem(const fs::path& directory) {
  std::error_code ec;
  const fs::file_status status = fs::status(directory, ec);
  const std::string quoted = std::string("'").append(directory.string()).append("'");
  if (!fs::exists(status)) return "directory " + quoted + " does not exist";
  if (!fs::is_directory(status)) return quoted + " is not a directory";
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    return "directory " + quoted + " is not writable: " + std::strerror(errno);
  return "";
}

fs::path parent_directory(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::atomic<ResultsState> g_results_state{ResultsState::none};
static_assert(std::atomic<ResultsState>::is_always_lock_free, "a signal handler reads it");

}  // namespace

void collective_output_step(bool here, const std::function<void()>& step, const Communicator& comm,
                            const std::function<std::string(int)>& others) {
  std::string error;
  if (here) {
    try {
      step();
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error";
    }
  }
  // The lowest failing rank r as size - r, the largest such value (0: no rank failed).
  const double first =
      comm.max(error.empty() ? 0.0 : static_cast<double>(comm.size() - comm.rank()));
  if (first == 0.0) return;
  if (!error.empty()) throw IoError(error);
  throw IoError(others(comm.size() - static_cast<int>(first)));
}

std::string output_file_problem(const std::string& path) {
  if (path.empty()) return "the path is empty";
  fs::path target = without_trailing_separator(path);
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(target, ec))) {  // written where the link points
    const fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) return "is a directory";
  if (fs::exists(status) && !fs::is_regular_file(status))  // a device or FIFO: written in place
    return ::access(target.c_str(), W_OK) == 0
               ? ""
               : std::string("not writable: ") + std::strerror(errno);
  return writable_directory_problem(parent_directory(target));
}

std::string output_directory_problem(const std::string& directory) {
  if (directory.empty()) return "the path is empty";
  const fs::path path = without_trailing_separator(directory);
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_directory(status)) return "exists and is not a directory";
  if (fs::exists(status)) return writable_directory_problem(path);
  const std::string parent = writable_directory_problem(parent_directory(path));
  return parent.empty() ? "" : "cannot be created: parent " + parent;
}

void check_output_options(const Config& config, const Communicator& comm) {
  const auto check = [&config](const char* option, const std::string& problem) {
    if (!problem.empty())
      throw IoError(std::string("--") + option + " '" + config.get<std::string>(option) +
                    "': " + problem);
  };
  collective_output_step(
      true,
      [&] {
        if (config.has("results") && comm.rank() == 0) {
          check("results", output_file_problem(config.get<std::string>("results")));
          g_results_state = ResultsState::pending;
        }
        if (config.has("vtu"))
          check("vtu", output_directory_problem(config.get<std::string>("vtu")));
      },
      comm,
      [](int rank) {
        return "the output paths are unusable on rank " + std::to_string(rank) +
               " (see its message)";
      });
}

void write_results(const std::string& path, const Json& document, const Communicator& comm) {
  collective_output_step(
      comm.rank() == 0, [&] { write_results_file(path, document); }, comm,
      [&path](int) { return "rank 0 could not write the results file '" + path + "'"; });
}

void write_results(const Config& config, const Json& document, const Communicator& comm) {
  if (config.has("results")) write_results(config.get<std::string>("results"), document, comm);
}

void write_results_file(const std::string& path, const Json& document) {
  g_results_state = ResultsState::writing;
  try {
    write_json(path, document);
  } catch (...) {
    g_results_state = ResultsState::pending;  // a failed write leaves the old file in place
    throw;
  }
  g_results_state = ResultsState::written;
}

ResultsState results_state() noexcept {
  return g_results_state;
}

}  // namespace quilt
