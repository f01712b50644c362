#include "accel/emulation/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>
#include <stdexcept>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define QUILT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QUILT_FIBER_ASAN 1
#endif
#endif
#ifdef QUILT_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace quilt::accel::emulation {
namespace {

// makecontext passes only int arguments; the fiber being started is handed over here instead.
thread_local Fiber* starting = nullptr;

}  // namespace

Fiber::Fiber(std::size_t stack_bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  guard_bytes_ = page;
  mapping_bytes_ = guard_bytes_ + (stack_bytes + page - 1) / page * page;
  void* m =
      mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    throw std::runtime_error("cuda emulation: cannot map a fiber stack of " +
                             std::to_string(mapping_bytes_) + " bytes");
  mapping_ = static_cast<unsigned char*>(m);
  // Stacks grow downwards on every platform this runs on: the guard goes at the low end.
  mprotect(mapping_, guard_bytes_, PROT_NONE);
  if (getcontext(&context_) != 0) {
    munmap(mapping_, mapping_bytes_);
    throw std::runtime_error("cuda emulation: getcontext failed for a fiber");
  }
}

Fiber::~Fiber() {
  munmap(mapping_, mapping_bytes_);
}

void Fiber::start(const std::function<void()>& body) {
  body_ = &body;
  finished_ = false;
  error_ = nullptr;
  context_.uc_stack.ss_sp = mapping_ + guard_bytes_;
  context_.uc_stack.ss_size = mapping_bytes_ - guard_bytes_;
  context_.uc_link = nullptr;
  makecontext(&context_, &Fiber::entry, 0);
}

bool Fiber::resume() {
  if (finished_) return true;
  starting = this;
#ifdef QUILT_FIBER_ASAN
  void* caller_fake = nullptr;
  __sanitizer_start_switch_fiber(&caller_fake, mapping_ + guard_bytes_,
                                 mapping_bytes_ - guard_bytes_);
  swapcontext(&caller_, &context_);
  __sanitizer_finish_switch_fiber(caller_fake, nullptr, nullptr);
#else
  swapcontext(&caller_, &context_);
#endif
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
  return finished_;
}

void Fiber::suspend() {
  switch_out(false);
}

void Fiber::switch_out(bool for_good) {
#ifdef QUILT_FIBER_ASAN
  // A fiber that ends passes no save slot, which lets AddressSanitizer drop its fake stack.
  __sanitizer_start_switch_fiber(for_good ? nullptr : &fake_stack_, caller_stack_,
                                 caller_stack_bytes_);
  swapcontext(&context_, &caller_);
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_, &caller_stack_bytes_);
#else
  (void)for_good;
  swapcontext(&context_, &caller_);
#endif
}

void Fiber::entry() {
  Fiber* self = starting;
#ifdef QUILT_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->caller_stack_, &self->caller_stack_bytes_);
#endif
  try {
    (*self->body_)();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->finished_ = true;
  self->switch_out(true);
  // A finished fiber is never resumed again (start() makes a new context first).
}

}  // namespace quilt::accel::emulation
