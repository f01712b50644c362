#pragma once
// The main() every application shares: MPI for the program's lifetime, every exception caught
// at the top, printed with the rank, and the whole job ended (design: an error on one rank
// must not leave the others waiting in a collective). SIGINT and SIGTERM end the process with
// status 128 + signal, rank 0 printing one line that says what became of --results, and no
// temporary output file left behind (remove_unfinished_temporary).

#include "parallel/communicator.hpp"

namespace quilt {

using ApplicationBody = int (*)(int argc, char** argv, const Communicator& comm);

/// Runs body under MPI; returns its status, or 1 after an exception (aborting all ranks). stdout
/// is line-buffered, so that the log of an interrupted or aborted run is complete.
int mpi_main(const char* program, int argc, char** argv, ApplicationBody body);

}  // namespace quilt
