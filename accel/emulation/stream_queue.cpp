#include "accel/emulation/stream_queue.hpp"

namespace quilt::accel::emulation {

std::uint64_t StreamQueue::push(std::function<void()> task) {
  if (captured_) {
    captured_->nodes.push_back(std::move(task));
    return 0;
  }
  tasks_.emplace_back(next_, std::move(task));
  return next_++;
}

std::optional<Graph> StreamQueue::end_capture() {
  std::optional<Graph> out = std::move(captured_);
  captured_.reset();
  if (std::exchange(capture_invalid_, false)) out.reset();
  return out;
}

void StreamQueue::run_through(std::uint64_t last) {
  while (!tasks_.empty() && tasks_.front().first <= last) {
    // Taken off the queue first: a task that throws is not run again.
    std::function<void()> task = std::move(tasks_.front().second);
    tasks_.pop_front();
    try {
      task();
    } catch (...) {
      tasks_.clear();
      throw;
    }
  }
}

}  // namespace quilt::accel::emulation
