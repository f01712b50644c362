#pragma once
// A kernel launch of the emulation: launch(kernel, grid, block, shared_bytes, stream)(args...)
// (accel/cuda/launch.cuh) makes one of these, which converts the arguments to the kernel's
// parameter types at the launch -- as the parameters of a real launch are captured then -- and
// queues the grid on the stream.

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

namespace quilt::accel::emulation {

/// Queues thread_body, to be run once per thread of grid x block, on stream (EmulatedDevice). A
/// configuration the device would refuse sets the last error instead, as a launch does.
void enqueue_kernel(cudaStream_t stream, const dim3& grid, const dim3& block,
                    std::size_t shared_bytes, std::function<void()> thread_body,
                    const std::source_location& where);

template <class... Params>
class KernelLaunch {
 public:
  KernelLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
               cudaStream_t stream, const std::source_location& where)
      : kernel_(kernel),
        grid_(grid),
        block_(block),
        shared_bytes_(shared_bytes),
        stream_(stream),
        where_(where) {}

  template <class... Args>
  void operator()(Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "kernel launched with a wrong argument count");
    auto params = std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...);
    // Every thread gets its own copies of the parameters, as each CUDA thread has its own.
    enqueue_kernel(
        stream_, grid_, block_, shared_bytes_,
        [kernel = kernel_, params = std::move(params)] { std::apply(kernel, params); }, where_);
  }

 private:
  void (*kernel_)(Params...);
  dim3 grid_, block_;
  std::size_t shared_bytes_;
  cudaStream_t stream_;
  std::source_location where_;
};

}  // namespace quilt::accel::emulation
