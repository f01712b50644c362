#include "accel/emulation/thread_block.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

namespace quilt::accel::emulation {
namespace {

// The block running on this host thread; set for the duration of ThreadBlock::run.
thread_local ThreadBlock* running = nullptr;

// Stacks of the thread fibers: kernels keep a few scalars each, but sanitizer builds need far
// larger frames. Only the touched pages are ever committed.
constexpr std::size_t kFiberStack = 256 * 1024;

// 0xFF bytes: NaN as float and as double, -1 as an integer -- what a kernel that reads shared
// memory before any thread of its block wrote it should see.
constexpr int kPoison = 0xFF;

std::size_t round_up(std::size_t v, std::size_t a) {
  return (v + a - 1) / a * a;
}

std::string coords(std::size_t linear, unsigned bx, unsigned by) {
  return "(" + std::to_string(linear % bx) + "," + std::to_string(linear / bx % by) + "," +
         std::to_string(linear / (static_cast<std::size_t>(bx) * by)) + ")";
}

std::string block_name() {
  return "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
         std::to_string(blockIdx.z) + ")";
}

class RunningBlock {
 public:
  explicit RunningBlock(ThreadBlock* b) { running = b; }
  ~RunningBlock() { running = nullptr; }
  RunningBlock(const RunningBlock&) = delete;
  RunningBlock& operator=(const RunningBlock&) = delete;
};

}  // namespace

ThreadBlock::ThreadBlock() : shared_(kSharedBytes / sizeof(Chunk)) {}

ThreadBlock::~ThreadBlock() = default;

void ThreadBlock::set_thread(std::size_t linear) const {
  threadIdx = uint3{
      static_cast<unsigned>(linear % block_x_), static_cast<unsigned>(linear / block_x_ % block_y_),
      static_cast<unsigned>(linear / (static_cast<std::size_t>(block_x_) * block_y_))};
}

std::size_t ThreadBlock::thread_at(std::size_t position, std::size_t threads,
                                   bool descending) const {
  return descending ? threads - 1 - position : position;
}

void ThreadBlock::run(const std::function<void()>& thread_body, const dim3& block_dim,
                      const uint3& block_idx, std::size_t dynamic_shared_bytes) {
  if (dynamic_shared_bytes > kSharedBytes)
    throw KernelFault(std::to_string(dynamic_shared_bytes) +
                      " bytes of dynamic shared memory exceed the 48 KiB per block");
  block_x_ = block_dim.x;
  block_y_ = block_dim.y;
  blockDim = block_dim;
  blockIdx = block_idx;
  const std::size_t threads = static_cast<std::size_t>(block_dim.x) * block_dim.y * block_dim.z;
  std::memset(shared_.data(), kPoison, dynamic_shared_bytes);
  shared_used_ = round_up(dynamic_shared_bytes, sizeof(Chunk));
  static_arrays_.clear();
  const std::size_t linear_block =
      block_idx.x + static_cast<std::size_t>(gridDim.x) *
                        (block_idx.y + static_cast<std::size_t>(gridDim.y) * block_idx.z);
  const bool descending = linear_block % 2 == 1;
  const RunningBlock guard(this);

  // The first thread runs on a fiber, so that it can stop at a barrier. If it ends without one,
  // no thread of the block may reach one (the guide allows __syncthreads in conditional code only
  // when the condition is the same across the block), and the others run as plain calls.
  if (fibers_.empty()) fibers_.push_back(std::make_unique<Fiber>(kFiberStack));
  current_thread_ = thread_at(0, threads, descending);
  set_thread(current_thread_);
  current_fiber_ = fibers_[0].get();
  current_fiber_->start(thread_body);
  if (current_fiber_->resume()) {
    current_fiber_ = nullptr;
    first_exited_ = current_thread_;
    for (std::size_t p = 1; p < threads; ++p) {
      current_thread_ = thread_at(p, threads, descending);
      set_thread(current_thread_);
      thread_body();
    }
    return;
  }
  run_on_fibers(thread_body, threads, descending);
}

void ThreadBlock::run_on_fibers(const std::function<void()>& thread_body, std::size_t threads,
                                bool descending) {
  while (fibers_.size() < threads) fibers_.push_back(std::make_unique<Fiber>(kFiberStack));
  for (std::size_t p = 1; p < threads; ++p) fibers_[p]->start(thread_body);
  // Phase by phase: every thread still running goes to its next barrier or its end.
  std::size_t from = 1;  // the first thread already stands at its first barrier
  for (;;) {
    std::size_t waiting = threads, exited = threads;
    for (std::size_t p = 0; p < threads; ++p) {
      Fiber& f = *fibers_[p];
      if (f.finished()) continue;
      current_thread_ = thread_at(p, threads, descending);
      if (p >= from) {
        set_thread(current_thread_);
        current_fiber_ = &f;
        f.resume();
      }
      (f.finished() ? exited : waiting) = current_thread_;
    }
    from = 0;
    if (waiting == threads) break;
    if (exited != threads) divergent(waiting, exited);
  }
  current_fiber_ = nullptr;
}

void ThreadBlock::divergent(std::size_t waiting, std::size_t exited) const {
  throw KernelFault("divergent __syncthreads in " + block_name() + ": thread " +
                    coords(waiting, block_x_, block_y_) + " waits at a barrier that thread " +
                    coords(exited, block_x_, block_y_) + " ended without reaching");
}

void ThreadBlock::barrier() {
  if (running == nullptr) throw KernelFault("__syncthreads called outside a kernel");
  ThreadBlock& b = *running;
  if (b.current_fiber_ == nullptr) b.divergent(b.current_thread_, b.first_exited_);
  b.current_fiber_->suspend();
}

void* ThreadBlock::dynamic_shared() {
  if (running == nullptr) throw KernelFault("dynamic shared memory used outside a kernel");
  return running->shared_.data();
}

void* ThreadBlock::static_shared(const void* site, std::size_t bytes, std::size_t align) {
  if (running == nullptr) throw KernelFault("shared memory declared outside a kernel");
  ThreadBlock& b = *running;
  for (const StaticArray& a : b.static_arrays_)
    if (a.site == site) return reinterpret_cast<unsigned char*>(b.shared_.data()) + a.offset;
  const std::size_t offset = round_up(b.shared_used_, align);
  if (offset + bytes > kSharedBytes)
    throw KernelFault("shared memory of " + block_name() + ": " + std::to_string(offset + bytes) +
                      " bytes exceed the 48 KiB per block");
  unsigned char* p = reinterpret_cast<unsigned char*>(b.shared_.data()) + offset;
  std::memset(p, kPoison, bytes);
  b.static_arrays_.push_back(StaticArray{site, offset, bytes});
  b.shared_used_ = offset + bytes;
  return p;
}

}  // namespace quilt::accel::emulation
