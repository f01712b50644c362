#pragma once
// The applications' output, fail-safe (design.md §9, §10). --results FILE and --vtu DIR are
// checked right after the configuration was read, before any expensive work; every output step
// is collective: all ranks learn whether it failed on any rank and then all throw, so an error
// on one rank never leaves the others waiting in a later collective call.

#include <functional>
#include <string>

#include "io/atomic_file.hpp"
#include "io/config.hpp"
#include "io/json.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// Collective (every rank must call it): runs `step` on this rank if `here`, then agrees with
/// all ranks on whether it threw anywhere. If it did, every rank throws IoError: a failing rank
/// with the message of its exception, the others with `others(r)` for the lowest failing rank r.
void collective_output_step(bool here, const std::function<void()>& step, const Communicator& comm,
                            const std::function<std::string(int)>& others);

/// Why `path` cannot be written as an output file ("" when it can): it is a directory, or its
/// directory is missing, not a directory or not writable.
std::string output_file_problem(const std::string& path);

/// Why `directory` cannot take output files ("" when it can): it exists and is not a directory
/// or not writable, or it does not exist and its parent is missing or not writable.
std::string output_directory_problem(const std::string& directory);

/// Collective: checks --results FILE (on rank 0, which writes it) and --vtu DIR (on every rank)
/// if given; throws IoError naming the option and the path on every rank when one is unusable.
void check_output_options(const Config& config, const Communicator& comm);

/// Collective: writes `document` to `path` on rank 0 (write_results_file); throws IoError on
/// every rank when that failed.
void write_results(const std::string& path, const Json& document, const Communicator& comm);

/// write_results to --results FILE if the option was given.
void write_results(const Config& config, const Json& document, const Communicator& comm);

/// Not collective, for rank 0 alone: write_json(path, document) with results_state() following
/// it. For a document that only rank 0 writes, as when it reports an error the others need not
/// share (ResultsReport::write_failure).
void write_results_file(const std::string& path, const Json& document);

/// How far this process got with --results, so that an interrupted run can say what became of
/// it: none (not asked for, or not rank 0), pending (checked by check_output_options, not yet
/// written, or its writing failed), writing (the new file or the old one is in place, never a
/// part), written.
enum class ResultsState { none, pending, writing, written };

/// Async-signal-safe (a lock-free atomic): for a SIGINT/SIGTERM handler.
ResultsState results_state() noexcept;

}  // namespace quilt
