#include "flow/checkpoint.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <type_traits>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/output.hpp"
#include "parallel/rank_consistency.hpp"

namespace quilt {
namespace {

constexpr char kMagic[8] = {'Q', 'U', 'I', 'L', 'T', 'C', 'K', 'P'};
// 2: the stepper's fourth vector is M d^n, the scheme's discrete time derivative (faa799d).
// Version 1 held the steady residual R(u^n, p^n) there, from which the consistent time stepping
// would continue into a different step: it is refused.
// 3: adaptive steps: the time, the next and the last step length, M d^{n-1}, and the rejected
// tries per step in the series.
// 4: the time derivative's mass (consistent or lumped) in the identity.
// 5: u^{n-2} and the step before the last (adaptive Crank-Nicolson steps predict from them).
constexpr std::uint32_t kVersion = 5;
constexpr int kVectorsPerRank = 6;  // the state, u^{n-1}, u^n, M d^n, M d^{n-1}, u^{n-2}

/// What a checkpoint was written for; a restart must match it field by field.
struct Identity {
  std::int32_t ranks = 0, level = 0, scheme = 0, mass = 0;
  std::uint64_t dofs = 0, mesh = 0, partition = 0;
  double dt = 0, tolerance = 0, step_max = 0;
};

Identity identity_of(const TimeStepper& stepper, const NavierStokesSolver& solver,
                     const Communicator& comm) {
  const FlowProblem& problem = solver.problem();
  return {.ranks = comm.size(),
          .level = problem.level,
          .scheme = static_cast<std::int32_t>(stepper.params().scheme),
          .mass = static_cast<std::int32_t>(stepper.params().mass),
          .dofs = static_cast<std::uint64_t>(
              comm.sum(static_cast<long long>(3 * problem.block_size()))),
          .mesh = mesh_fingerprint(problem.mesh.mesh, problem.mesh.charts),
          .partition = Fingerprint().add(problem.mesh.owner).value(),
          .dt = stepper.params().step,
          .tolerance = stepper.params().tolerance,
          .step_max = stepper.params().step_max};
}

/// The differences of `file` from `run`, "" when none.
std::string mismatch(const Identity& file, const Identity& run) {
  std::ostringstream why;
  const auto differs = [&](const char* what, auto a, auto b) {
    if (a != b)
      why << (why.tellp() > 0 ? "; " : "") << what << ": checkpoint " << a << ", run " << b;
  };
  differs("ranks", file.ranks, run.ranks);
  differs("mesh.level", file.level, run.level);
  differs("unknowns", file.dofs, run.dofs);
  differs("mesh (fingerprint)", file.mesh, run.mesh);
  differs("partition (fingerprint)", file.partition, run.partition);
  differs("time.scheme (index)", file.scheme, run.scheme);
  differs("time.mass (index)", file.mass, run.mass);
  differs("time.step", file.dt, run.dt);
  differs("time.tolerance", file.tolerance, run.tolerance);
  differs("time.step_max", file.step_max, run.step_max);
  return why.str();
}

/// Appends plain values and length-prefixed arrays.
class ByteWriter {
 public:
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void put(const T& value) { bytes_.append(reinterpret_cast<const char*>(&value), sizeof value); }
  template <class T>
  void put(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    if (!values.empty())
      bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads what ByteWriter wrote; CheckpointError naming the file past the end.
class ByteReader {
 public:
  ByteReader(const std::string& path, const char* data, std::size_t size)
      : path_(path), data_(data), size_(size) {}
  template <class T>
  requires std::is_trivially_copyable_v<T> T get() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<std::uint64_t>();
    if (n > (size_ - pos_) / sizeof(T)) truncated();
    std::vector<T> values(n);
    const char* bytes = take(n * sizeof(T));
    if (n > 0) std::memcpy(values.data(), bytes, n * sizeof(T));  // data() may be null when empty
    return values;
  }
  const char* take(std::size_t bytes) {
    if (bytes > size_ - pos_) truncated();
    const char* at = data_ + pos_;
    pos_ += bytes;
    return at;
  }
  std::size_t position() const { return pos_; }

 private:
  [[noreturn]] void truncated() const {
    throw CheckpointError("checkpoint '" + path_ + "' is truncated or not a Quilt checkpoint");
  }
  const std::string& path_;
  const char* data_;
  std::size_t size_, pos_ = 0;
};

void put_identity(ByteWriter& w, const Identity& id) {
  w.put(id.ranks);
  w.put(id.level);
  w.put(id.scheme);
  w.put(id.mass);
  w.put(id.dofs);
  w.put(id.mesh);
  w.put(id.partition);
  w.put(id.dt);
  w.put(id.tolerance);
  w.put(id.step_max);
}

Identity get_identity(ByteReader& r) {
  Identity id;
  id.ranks = r.get<std::int32_t>();
  id.level = r.get<std::int32_t>();
  id.scheme = r.get<std::int32_t>();
  id.mass = r.get<std::int32_t>();
  id.dofs = r.get<std::uint64_t>();
  id.mesh = r.get<std::uint64_t>();
  id.partition = r.get<std::uint64_t>();
  id.dt = r.get<double>();
  id.tolerance = r.get<double>();
  id.step_max = r.get<double>();
  return id;
}

/// The stepper's memory but its vectors.
void put_stepper_scalars(ByteWriter& w, const TimeStepperState& m) {
  w.put(static_cast<std::int32_t>(m.steps));
  w.put(m.time);
  w.put(m.step);
  w.put(m.previous_step);
  w.put(m.older_step);
  w.put(static_cast<std::uint8_t>(m.has_residual));
  w.put(static_cast<std::uint8_t>(m.has_older));
}

TimeStepperState get_stepper_scalars(ByteReader& r) {
  TimeStepperState m;
  m.steps = r.get<std::int32_t>();
  m.time = r.get<double>();
  m.step = r.get<double>();
  m.previous_step = r.get<double>();
  m.older_step = r.get<double>();
  m.has_residual = r.get<std::uint8_t>() != 0;
  m.has_older = r.get<std::uint8_t>() != 0;
  return m;
}

void put_series(ByteWriter& w, const TimeSeries& s) {
  w.put(s.t);
  w.put(s.drag);
  w.put(s.lift);
  w.put(s.pressure_difference);
  w.put(s.nonlinear_steps);
  w.put(s.linear_iterations);
  w.put(s.seconds);
  w.put(s.rejected);
}

TimeSeries get_series(ByteReader& r) {
  TimeSeries s;
  s.t = r.get_vector<double>();
  s.drag = r.get_vector<double>();
  s.lift = r.get_vector<double>();
  s.pressure_difference = r.get_vector<double>();
  s.nonlinear_steps = r.get_vector<int>();
  s.linear_iterations = r.get_vector<int>();
  s.seconds = r.get_vector<double>();
  s.rejected = r.get_vector<int>();
  return s;
}

std::uint64_t checksum(const char* data, std::size_t size) {
  return Fingerprint().add_bytes(data, size).value();
}

/// Collective: this rank's block of every rank, as counts of doubles on rank 0.
std::vector<int> counts_on_root(std::size_t local, const Communicator& comm) {
  if (local > static_cast<std::size_t>(INT_MAX))
    throw CheckpointError("checkpoint: " + std::to_string(local) +
                          " values on one rank exceed the limit of 2^31 - 1");
  const int count = static_cast<int>(local);
  std::vector<int> counts(comm.rank() == 0 ? comm.size() : 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.handle()),
            "MPI_Gather (checkpoint sizes)");
  return counts;
}

/// The displacements of `counts` (empty off rank 0) and their total.
std::vector<int> offsets_of(const std::vector<int>& counts, std::size_t& total) {
  std::vector<int> offsets(counts.size(), 0);
  total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (total > static_cast<std::size_t>(INT_MAX - counts[r]))
      throw CheckpointError("checkpoint: more than 2^31 - 1 values in all");
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  return offsets;
}

/// This rank's state, u^{n-1}, u^n, M d^n, M d^{n-1} and u^{n-2}, one after the other.
std::vector<double> rank_payload(const TimeStepper& stepper, const NavierStokesSolver& solver) {
  const TimeStepperState m = stepper.memory();
  std::vector<double> payload;
  for (const FlowVector* v :
       {&solver.state(), &m.previous, &m.current, &m.residual, &m.previous_residual, &m.older})
    payload.insert(payload.end(), v->values().begin(), v->values().end());
  return payload;
}

/// Rank 0: reads and checks the file (checksum, format, identity); returns the global section
/// (identity, steps, series) and the ranks' payloads, or throws CheckpointError.
std::string read_file_checked(const std::string& path, const Identity& run,
                              std::vector<double>& payloads) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError("cannot open checkpoint '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof kMagic + sizeof(std::uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw CheckpointError("'" + path + "' is not a Quilt checkpoint");
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  if (stored != checksum(bytes.data(), body))
    throw CheckpointError("checkpoint '" + path + "' is corrupted (checksum mismatch)");
  ByteReader r(path, bytes.data(), body);
  r.take(sizeof kMagic);
  if (const auto version = r.get<std::uint32_t>(); version != kVersion)
    throw CheckpointError(
        "checkpoint '" + path + "' has format version " + std::to_string(version) +
        ", this build reads " + std::to_string(kVersion) +
        (version < kVersion ? " (written by an older Quilt: restart the run)" : ""));
  const std::size_t global_begin = r.position();
  const Identity id = get_identity(r);
  if (const std::string why = mismatch(id, run); !why.empty())
    throw CheckpointError("checkpoint '" + path + "' was written for another run (" + why + ")");
  get_stepper_scalars(r);
  get_series(r);
  const std::size_t global_end = r.position();
  payloads = r.get_vector<double>();
  if (r.position() != body)
    throw CheckpointError("checkpoint '" + path + "' has trailing data before its checksum");
  return bytes.substr(global_begin, global_end - global_begin);
}

/// Collective: rank 0's error message (empty: none) thrown on every rank.
void agree_on_error(std::string message, const Communicator& comm) {
  int size = static_cast<int>(message.size());
  check_mpi(MPI_Bcast(&size, 1, MPI_INT, 0, comm.handle()), "MPI_Bcast (checkpoint status)");
  if (size == 0) return;
  message.resize(size);
  check_mpi(MPI_Bcast(message.data(), size, MPI_CHAR, 0, comm.handle()),
            "MPI_Bcast (checkpoint error)");
  throw CheckpointError(message);
}

void broadcast(std::string& bytes, const Communicator& comm) {
  unsigned long long size = bytes.size();
  check_mpi(MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, comm.handle()), "MPI_Bcast (size)");
  bytes.resize(size);
  check_mpi(MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_CHAR, 0, comm.handle()),
            "MPI_Bcast (checkpoint)");
}

FlowVector flow_vector(const double* values, std::size_t block) {
  FlowVector v(block);
  std::copy(values, values + 3 * block, v.values().begin());
  return v;
}

}  // namespace

void write_checkpoint(const std::string& path, const TimeStepper& stepper,
                      const NavierStokesSolver& solver, const TimeSeries& series,
                      const Communicator& comm) {
  const Identity id = identity_of(stepper, solver, comm);
  const std::vector<double> local = rank_payload(stepper, solver);
  const std::vector<int> counts = counts_on_root(local.size(), comm);
  std::size_t total = 0;
  const std::vector<int> offsets = offsets_of(counts, total);
  std::vector<double> all(total);
  check_mpi(MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
                        counts.data(), offsets.data(), MPI_DOUBLE, 0, comm.handle()),
            "MPI_Gatherv (checkpoint)");
  collective_output_step(
      comm.rank() == 0,
      [&] {
        ByteWriter w;
        w.bytes().append(kMagic, sizeof kMagic);
        w.put(kVersion);
        put_identity(w, id);
        put_stepper_scalars(w, stepper.memory());
        put_series(w, series);
        w.put(all);
        w.put(checksum(w.bytes().data(), w.bytes().size()));
        write_file_atomically(path, [&](std::ostream& out) {
          out.write(w.bytes().data(), static_cast<std::streamsize>(w.bytes().size()));
        });
      },
      comm, [&](int) { return "rank 0 could not write the checkpoint '" + path + "'"; });
}

void read_checkpoint(const std::string& path, TimeStepper& stepper, NavierStokesSolver& solver,
                     TimeSeries& series, const Communicator& comm) {
  const Identity run = identity_of(stepper, solver, comm);
  const std::size_t block = solver.state().block_size();
  const std::vector<int> counts = counts_on_root(kVectorsPerRank * 3 * block, comm);
  std::size_t total = 0;
  const std::vector<int> offsets = offsets_of(counts, total);
  std::string global;
  std::vector<double> payloads;
  std::string error;
  if (comm.rank() == 0) try {
      global = read_file_checked(path, run, payloads);
      if (payloads.size() != total)
        error = "checkpoint '" + path + "' holds " + std::to_string(payloads.size()) +
                " values, this run needs " + std::to_string(total);
    } catch (const CheckpointError& e) {
      error = e.what();
    }
  agree_on_error(error, comm);
  broadcast(global, comm);
  std::vector<double> local(kVectorsPerRank * 3 * block);
  check_mpi(MPI_Scatterv(payloads.data(), counts.data(), offsets.data(), MPI_DOUBLE, local.data(),
                         static_cast<int>(local.size()), MPI_DOUBLE, 0, comm.handle()),
            "MPI_Scatterv (checkpoint)");

  ByteReader r(path, global.data(), global.size());
  get_identity(r);
  TimeStepperState m = get_stepper_scalars(r);
  series = get_series(r);
  const double* at = local.data();
  solver.state() = flow_vector(at, block);
  m.previous = flow_vector(at + 3 * block, block);
  m.current = flow_vector(at + 6 * block, block);
  m.residual = flow_vector(at + 9 * block, block);
  m.previous_residual = flow_vector(at + 12 * block, block);
  m.older = flow_vector(at + 15 * block, block);
  stepper.restore(std::move(m));
}

}  // namespace quilt
