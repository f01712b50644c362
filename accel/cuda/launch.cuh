#pragma once
// Kernel launches and shared-memory declarations written once for nvcc and for the host
// emulation of accel/emulation (which a plain C++ compiler builds, and which cannot parse
// <<<...>>>):
//   launch(kernel, grid, block, shared_bytes, stream)(args...)
//       kernel<<<grid, block, shared_bytes, stream>>>(args...)
//   QUILT_SHARED(T, name, count);      __shared__ T name[count];
//   QUILT_DYNAMIC_SHARED(T, name);     extern __shared__ __align__(16) T name[];
// Under the emulation `name` is a T* into the block's shared memory, NaN-filled at every block
// (CUDA leaves shared memory undefined at block start).

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#ifdef QUILT_CUDA_EMULATION
#include <source_location>

#include "accel/emulation/kernel_launch.hpp"
#include "accel/emulation/thread_block.hpp"
#endif

namespace quilt::accel::cuda {

#ifdef QUILT_CUDA_EMULATION

template <class... Params>
emulation::KernelLaunch<Params...> launch(
    void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
    const std::source_location& where = std::source_location::current()) {
  return emulation::KernelLaunch<Params...>(kernel, grid, block, shared_bytes, stream, where);
}

#define QUILT_SHARED(T, name, count)                                                     \
  static constexpr char quilt_shared_site_##name = 0;                                    \
  T* const name = static_cast<T*>(::quilt::accel::emulation::ThreadBlock::static_shared( \
      &quilt_shared_site_##name, sizeof(T) * (count), alignof(T)))
#define QUILT_DYNAMIC_SHARED(T, name) \
  T* const name = static_cast<T*>(::quilt::accel::emulation::ThreadBlock::dynamic_shared())

#else

/// A launch configuration waiting for its arguments.
template <class... Params>
class KernelLaunch {
 public:
  KernelLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
               cudaStream_t stream)
      : kernel_(kernel), grid_(grid), block_(block), shared_bytes_(shared_bytes), stream_(stream) {}

  template <class... Args>
  void operator()(Args&&... args) const {
    // clang-format takes this header for C++ and would split the >>>.
    // clang-format off
    kernel_<<<grid_, block_, shared_bytes_, stream_>>>(std::forward<Args>(args)...);
    // clang-format on
  }

 private:
  void (*kernel_)(Params...);
  dim3 grid_, block_;
  std::size_t shared_bytes_;
  cudaStream_t stream_;
};

template <class... Params>
KernelLaunch<Params...> launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                               std::size_t shared_bytes, cudaStream_t stream) {
  return KernelLaunch<Params...>(kernel, grid, block, shared_bytes, stream);
}

#define QUILT_SHARED(T, name, count) __shared__ T name[count]
#define QUILT_DYNAMIC_SHARED(T, name) extern __shared__ __align__(16) T name[]

#endif

}  // namespace quilt::accel::cuda
