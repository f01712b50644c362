#pragma once
// A fiber: a stack of its own and a saved register context, switched to and from explicitly on
// one host thread (POSIX ucontext). The block scheduler runs each CUDA thread of a block on one,
// so a thread can stop at __syncthreads and continue after the others got there.

#include <ucontext.h>

#include <cstddef>
#include <exception>
#include <functional>

namespace quilt::accel::emulation {

class Fiber {
 public:
  /// A stack of stack_bytes (rounded up to pages) with an inaccessible guard page below it, so
  /// an overflow faults instead of corrupting the neighbouring fiber.
  explicit Fiber(std::size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Makes the next resume() run body from its start. body must outlive the run.
  void start(const std::function<void()>& body);
  /// Runs the fiber until it calls suspend() or body returns; returns true once body returned.
  /// An exception that body threw is rethrown here, on the caller's stack.
  bool resume();
  /// Called on this fiber: back to the caller of resume().
  void suspend();
  bool finished() const { return finished_; }

 private:
  static void entry();
  void switch_out(bool for_good);

  unsigned char* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  std::size_t guard_bytes_ = 0;
  ucontext_t context_{};
  ucontext_t caller_{};
  const std::function<void()>* body_ = nullptr;
  bool finished_ = true;
  std::exception_ptr error_;
  // AddressSanitizer's view of the stacks being switched (sanitizer/common_interface_defs.h).
  void* fake_stack_ = nullptr;
  const void* caller_stack_ = nullptr;
  std::size_t caller_stack_bytes_ = 0;
};

}  // namespace quilt::accel::emulation
