#pragma once
// Checkpoint and restart of an instationary run (quilt-flow --checkpoint-every N, --restart
// FILE). One file holds everything a time step depends on: the solver's state (u1, u2, p) and
// the stepper's memory (u^{n-1}, u^n, M d^n, M d^{n-1}, u^{n-2}, flow/time_stepping.hpp) of every
// rank, the step count, time and step lengths, and the time series so far. A run restarted from it
// continues bitwise as the uninterrupted run would have (same rank count, same build), since
// nothing else carries over from one time step to the next: every step re-assembles from the state.
//
// The file is written by rank 0 (the ranks' vectors gathered) atomically
// (io/atomic_file.hpp), in the machine's byte order, and ends in a 64-bit FNV-1a checksum of
// all bytes before it. It records what it was written for (rank count, level, unknowns, mesh
// and partition fingerprints, time scheme, step, tolerance and longest step) and is refused,
// with the difference named, by a run that does not match.

#include <stdexcept>
#include <string>

#include "flow/time_series.hpp"
#include "flow/time_stepping.hpp"

namespace quilt {

/// A checkpoint that cannot be read or does not belong to this run; the message names the file
/// and the reason.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Collective: writes the checkpoint of the state after stepper.advance() (IoError on every
/// rank when the file could not be written).
void write_checkpoint(const std::string& path, const TimeStepper& stepper,
                      const NavierStokesSolver& solver, const TimeSeries& series,
                      const Communicator& comm);

/// Collective: restores the solver's state, the stepper's memory and the series from `path`;
/// CheckpointError on every rank when the file is missing, truncated, corrupted (checksum), of
/// another format version, or written for another rank count, level, mesh, partition, time
/// scheme, time step, tolerance or longest step.
void read_checkpoint(const std::string& path, TimeStepper& stepper, NavierStokesSolver& solver,
                     TimeSeries& series, const Communicator& comm);

}  // namespace quilt
