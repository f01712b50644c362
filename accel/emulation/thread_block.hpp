#pragma once
// One CUDA thread block of an emulated kernel launch: its threads, run one after another on the
// host thread, and its shared memory. A block that never reaches __syncthreads runs its threads
// as plain calls; one that does runs each thread on a fiber, phase by phase, every thread up to
// the next barrier before any continues (the barrier semantics of the CUDA programming guide,
// "Synchronization Functions"). Within a phase the threads run in ascending index order in even
// blocks and descending order in odd ones, so a result that depends on the order of the threads
// between two barriers -- a missing barrier -- differs from block to block.

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "accel/emulation/fiber.hpp"

struct dim3;
struct uint3;

namespace quilt::accel::emulation {

/// A failure inside a kernel (divergent barrier, shared memory overflow, an exception): the
/// launch fails as a kernel fault does on a device, with cudaErrorLaunchFailure.
class KernelFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ThreadBlock {
 public:
  /// Shared memory per block without opting in (cudaDeviceProp::sharedMemPerBlock).
  static constexpr std::size_t kSharedBytes = 48 * 1024;
  static constexpr std::size_t kMaxThreads = 1024;

  ThreadBlock();
  ~ThreadBlock();
  ThreadBlock(const ThreadBlock&) = delete;
  ThreadBlock& operator=(const ThreadBlock&) = delete;

  /// Runs thread_body once per thread of block block_idx (blockIdx, blockDim, threadIdx set for
  /// each), with dynamic_shared_bytes of dynamic shared memory. Throws KernelFault.
  void run(const std::function<void()>& thread_body, const dim3& block_dim, const uint3& block_idx,
           std::size_t dynamic_shared_bytes);

  /// __syncthreads() of the calling thread of the running block.
  static void barrier();
  /// The block's dynamic shared memory (extern __shared__), NaN-filled at block start.
  static void* dynamic_shared();
  /// The block's copy of the __shared__ array declared at `site`: allocated and NaN-filled by
  /// the first thread of the block that reaches the declaration, the same for all the others.
  static void* static_shared(const void* site, std::size_t bytes, std::size_t align);

 private:
  struct StaticArray {
    const void* site;
    std::size_t offset;
    std::size_t bytes;
  };
  struct alignas(16) Chunk {
    unsigned char bytes[16];
  };

  void set_thread(std::size_t linear) const;
  void run_on_fibers(const std::function<void()>& thread_body, std::size_t threads,
                     bool descending);
  std::size_t thread_at(std::size_t position, std::size_t threads, bool descending) const;
  [[noreturn]] void divergent(std::size_t waiting, std::size_t exited) const;

  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<Chunk> shared_;
  std::vector<StaticArray> static_arrays_;
  std::size_t shared_used_ = 0;
  unsigned block_x_ = 1, block_y_ = 1;
  Fiber* current_fiber_ = nullptr;  ///< null while threads run as plain calls
  std::size_t current_thread_ = 0;  ///< linear index of the running thread
  std::size_t first_exited_ = 0;    ///< plain calls: the thread that showed there is no barrier
};

}  // namespace quilt::accel::emulation
