#include "mpi_main.hpp"

#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <string>

#include "io/atomic_file.hpp"
#include "io/output.hpp"

namespace quilt {
namespace {

// A signal handler may only call async-signal-safe functions (write, unlink, poll, _exit): what it
// prints is prepared before it can run and put together without the heap or stdio.
char g_program[64];
bool g_prints_interruption = false;  // rank 0 only: one line per job, not one per rank

void append(char* line, std::size_t capacity, std::size_t& length, const char* text) {
  while (*text != '\0' && length + 1 < capacity) line[length++] = *text++;
}

const char* results_note() noexcept {
  switch (results_state()) {
    case ResultsState::pending:
      return "; the results file was not written (an existing one is unchanged)";
    case ResultsState::writing:
      return "; the results file was being written: it is the new one or the old one, never a "
             "part";
    case ResultsState::written:
      return "; the results file had been written";
    case ResultsState::none:
      break;
  }
  return "";
}

extern "C" void on_interruption(int signal) {
  remove_unfinished_temporary();
  if (g_prints_interruption) {
    char line[256];
    std::size_t length = 0;
    append(line, sizeof line, length, g_program);
    append(line, sizeof line, length,
           signal == SIGINT ? ": interrupted (SIGINT)" : ": interrupted (SIGTERM)");
    append(line, sizeof line, length, results_note());
    line[length++] = '\n';
    // A failed write cannot be reported anywhere: the process ends either way.
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, length);
  } else {
    // Under mpirun a rank that exits first can get the others killed (SIGKILL) before their
    // handler ran: the others wait a moment, so that rank 0 runs its own and speaks for the job.
    ::poll(nullptr, 0, 500);
  }
  ::_exit(128 + signal);
}

/// Installs on_interruption for SIGINT and SIGTERM, but not for a signal that is ignored: a
/// program started in the background of a script ignores SIGINT and must go on ignoring it.
void handle_interruptions(const char* program, bool prints) {
  std::snprintf(g_program, sizeof g_program, "%s", program);
  g_prints_interruption = prints;
  struct sigaction action {};
  action.sa_handler = on_interruption;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);  // one handler at a time: one line, one exit status
  sigaddset(&action.sa_mask, SIGTERM);
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction previous {};
    if (::sigaction(signal, nullptr, &previous) == 0 && previous.sa_handler != SIG_IGN)
      ::sigaction(signal, &action, nullptr);
  }
}

/// Gives SIGINT and SIGTERM back to their default action where handle_interruptions() took them:
/// once the job ends by its own abort, the SIGTERM mpirun sends the ranks is no interruption to
/// report ("interrupted (SIGTERM)" after the error line would say the user stopped the run).
void release_interruptions() {
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == on_interruption)
      ::signal(signal, SIG_DFL);
  }
}

/// How long a rank other than 0 waits before it reports an error and ends the job. An error
/// every rank meets (no convergence, a bad key) is then written to the results file and printed
/// by rank 0, whose abort ends the others within that time; one on this rank alone is printed
/// after it (rank 0, waiting in a collective, writes no results file then).
constexpr int kWaitForRankZeroMs = 1000;

/// Reports the error that ended the body on this rank and ends the job: the results file first
/// (rank 0), since the abort ends every rank.
int fail(const char* program, const Communicator& comm, const ResultsReport& report,
         const char* message) {
  const std::string unwritten = report.write_failure(message);
  release_interruptions();  // after the write: an interruption during it removes its temporary
  if (comm.rank() != 0) ::poll(nullptr, 0, kWaitForRankZeroMs);
  std::fprintf(stderr, "%s: error on rank %d: %s\n", program, comm.rank(), message);
  if (!unwritten.empty())
    std::fprintf(stderr, "%s: the error could not be written to the results file: %s\n", program,
                 unwritten.c_str());
  std::fflush(stderr);
  if (comm.size() > 1) comm.abort(1);  // the other ranks may be waiting in a collective
  return 1;
}

/// Freed memory stays in the process for the next allocation. glibc maps every block above its
/// mmap threshold (at most 32 MiB) fresh and unmaps it at free, so each level-sized array that
/// the set-up makes and drops (a level's local matrix, a conversion) is zeroed again by the
/// kernel at its first touch; page faults were a third of a Poisson run at L = 10. Served from
/// the heap and never trimmed, the pages are reused. Poisson, 2x2 square (2026-11-26): page
/// faults 137k -> 119k at L = 9 and 549k -> 459k at L = 10 (the peak RSS is 445k pages), set-up
/// at L = 9 0.445 -> 0.390 s, peak RSS +0.5 %, results bitwise the same.
void keep_freed_memory() {
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

using Body = std::function<int(int argc, char** argv, const Communicator&, ResultsReport&)>;

int run(const char* program, int argc, char** argv, const Body& body) {
  // Line by line even into a pipe or file, so the log of a run that is interrupted or aborted
  // (both end the process without flushing stdio) shows every line printed before the end.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  keep_freed_memory();
  MpiEnvironment mpi(argc, argv);
  const Communicator comm;
  handle_interruptions(program, comm.rank() == 0);
  ResultsReport report;
  try {
    return body(argc, argv, comm, report);
  } catch (const std::exception& e) {
    return fail(program, comm, report, e.what());
  }
}

}  // namespace

int mpi_main(const char* program, int argc, char** argv, ApplicationBody body) {
  return run(program, argc, argv,
             [body](int n, char** args, const Communicator& comm, ResultsReport&) {
               return body(n, args, comm);
             });
}

int mpi_main(const char* program, int argc, char** argv, ReportingBody body) {
  return run(program, argc, argv, body);
}

}  // namespace quilt
