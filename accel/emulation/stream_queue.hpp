#pragma once
// An emulated stream: the operations queued on it, in order, run only when the host waits for
// them (cudaStreamSynchronize, cudaEventSynchronize, a copy to pageable memory, cudaFree ...).
// A host that reads a result before waiting for it therefore sees what the memory held before --
// NaN for fresh allocations -- instead of the result a fast device might already have written.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace quilt::accel::emulation {

/// Operations queued (or captured) by kind.
struct WorkCount {
  std::uint64_t kernels = 0, fills = 0, copies = 0;
  WorkCount& operator+=(const WorkCount& o) {
    kernels += o.kernels;
    fills += o.fills;
    copies += o.copies;
    return *this;
  }
};

/// A captured graph (also its executable form): the recorded operations in stream order.
struct Graph {
  std::vector<std::function<void()>> nodes;
  WorkCount work;
};

class StreamQueue {
 public:
  explicit StreamQueue(unsigned flags) : flags_(flags) {}

  /// Queues task; returns its sequence number (increasing from 1). While the stream captures,
  /// the task is recorded instead and 0 returned.
  std::uint64_t push(std::function<void()> task);

  /// Stream capture: push() records from here on, until end_capture() hands the record over
  /// (empty if the capture was invalidated meanwhile).
  void begin_capture() { captured_.emplace(); }
  std::optional<Graph> end_capture();
  bool capturing() const { return captured_.has_value(); }
  /// The counts of what the running capture recorded.
  WorkCount& captured_work() { return captured_->work; }
  /// An operation the capture could not record: the capture goes on (as CUDA's does) but its
  /// end reports the failure.
  void invalidate_capture() { capture_invalid_ = true; }
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
  std::optional<Graph> captured_;
  bool capture_invalid_ = false;
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
