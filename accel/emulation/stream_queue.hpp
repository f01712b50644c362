#pragma once
// An emulated stream: the operations queued on it, in order, run only when the host waits for
// them (cudaStreamSynchronize, cudaEventSynchronize, a copy to pageable memory, cudaFree ...).
// A host that reads a result before waiting for it therefore sees what the memory held before --
// NaN for fresh allocations -- instead of the result a fast device might already have written.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>

namespace quilt::accel::emulation {

class StreamQueue {
 public:
  explicit StreamQueue(unsigned flags) : flags_(flags) {}

  /// Queues task; returns its sequence number (increasing from 1).
  std::uint64_t push(std::function<void()> task);
  /// Runs the queued tasks up to and including sequence number `last`, in order. If one throws,
  /// the tasks after it are dropped (a faulted device runs nothing more) and the exception
  /// propagates.
  void run_through(std::uint64_t last);
  void run_all() { run_through(next_ - 1); }
  /// Drops every queued task unrun.
  void drop_all() { tasks_.clear(); }
  unsigned flags() const { return flags_; }

 private:
  unsigned flags_;
  std::uint64_t next_ = 1;
  std::deque<std::pair<std::uint64_t, std::function<void()>>> tasks_;
};

/// An emulated event: the stream position it was last recorded at and, once the stream ran past
/// it, the host time it was reached.
struct EventRecord {
  StreamQueue* stream = nullptr;  ///< null once complete or never recorded
  std::uint64_t sequence = 0;
  std::uint64_t generation = 0;  ///< counts records, so a stale record task does not complete it
  bool recorded = false;
  bool complete = false;
  std::chrono::steady_clock::time_point when{};
};

}  // namespace quilt::accel::emulation
