// The test hook of pcr_batch.hpp: uploads the systems, runs tridiagonal_batch_kernel, downloads.

#include "accel/cuda/pcr_batch.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/device_buffer.cuh"
#include "accel/cuda/launch.cuh"
#include "accel/cuda/pcr.cuh"

namespace quilt::accel::cuda {

template <class T>
void solve_tridiagonal_batch(int n, int systems, const T* sub, const T* diag, const T* super,
                             const T* rhs, T* x) {
  if (n < 1 || systems < 1) return;
  if (!pcr_fits<T>(n))
    throw AccelError("solve_tridiagonal_batch: a system of " + std::to_string(n) +
                     " equations does not fit one block");
  const std::size_t count = static_cast<std::size_t>(n) * systems;
  DeviceBuffer<T> a(count), b(count), c(count), d(count), out(count);
  const std::size_t bytes = count * sizeof(T);
  QUILT_CUDA_CHECK(cudaMemcpy(a.get(), sub, bytes, cudaMemcpyHostToDevice));
  QUILT_CUDA_CHECK(cudaMemcpy(b.get(), diag, bytes, cudaMemcpyHostToDevice));
  QUILT_CUDA_CHECK(cudaMemcpy(c.get(), super, bytes, cudaMemcpyHostToDevice));
  QUILT_CUDA_CHECK(cudaMemcpy(d.get(), rhs, bytes, cudaMemcpyHostToDevice));
  const PcrShape p = pcr_shape<T>(n, static_cast<unsigned>(systems));
  launch(tridiagonal_batch_kernel<T>, p.grid, p.threads, p.shared_bytes, nullptr)(
      a.get(), b.get(), c.get(), d.get(), out.get(), n, static_cast<unsigned>(systems),
      p.lines_per_block, p.groups);
  QUILT_CUDA_CHECK_LAUNCH("tridiagonal_batch_kernel");
  QUILT_CUDA_CHECK(cudaDeviceSynchronize());
  QUILT_CUDA_CHECK(cudaMemcpy(x, out.get(), bytes, cudaMemcpyDeviceToHost));
}

template void solve_tridiagonal_batch<float>(int, int, const float*, const float*, const float*,
                                             const float*, float*);
template void solve_tridiagonal_batch<double>(int, int, const double*, const double*, const double*,
                                              const double*, double*);

}  // namespace quilt::accel::cuda
