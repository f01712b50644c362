#pragma once
// The main() every application shares: MPI for the program's lifetime, every exception caught
// at the top, printed with the rank, and the whole job ended (design: an error on one rank
// must not leave the others waiting in a collective). SIGINT and SIGTERM end the process with
// status 128 + signal, rank 0 printing one line that says what became of --results, and no
// temporary output file left behind (remove_unfinished_temporary).

#include "io/results_report.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

using ApplicationBody = int (*)(int argc, char** argv, const Communicator& comm);
/// A body with a results file: once it called report.check_output(), an error of the run is
/// also written there (ResultsReport::write_failure) by rank 0, before the job is ended.
using ReportingBody = int (*)(int argc, char** argv, const Communicator& comm,
                              ResultsReport& report);

/// Runs body under MPI; returns its status, or 1 after an exception (aborting all ranks). stdout
/// is line-buffered, so that the log of an interrupted or aborted run is complete. The error is
/// printed once when every rank meets it (rank 0 prints it; the others wait a moment for rank 0
/// to write the results file and end the job), by the rank that met it otherwise.
int mpi_main(const char* program, int argc, char** argv, ApplicationBody body);
int mpi_main(const char* program, int argc, char** argv, ReportingBody body);

}  // namespace quilt
