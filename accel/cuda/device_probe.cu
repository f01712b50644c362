// Measurements behind bench/quilt-bench-cuda (see device_probe.cuh): the device's copy bandwidth
// and the bandwidth the local solver's batched banded product reaches against it.

#include "accel/cuda/device_probe.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/device_buffer.cuh"
#include "accel/cuda/launch.cuh"

namespace quilt::accel::cuda {
namespace {

/// The uniform Q1 Laplacian stencil (8/3, -1/3) on every macro, 0 where a column would leave the
/// macro: values that exercise the same memory traffic as a real local matrix without building
/// gigabytes of bands on the host.
template <class T>
__global__ void fill_laplacian_kernel(T* bands, std::size_t rows, unsigned nn, int n) {
  for (std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; g < rows;
       g += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const unsigned r = static_cast<unsigned>(g % nn);
    const int j = static_cast<int>(r / n), i = static_cast<int>(r % n);
    for (int k = 0; k < kBands; ++k) {
      const int ii = i + k % 3 - 1, jj = j + k / 3 - 1;
      const bool inside = ii >= 0 && ii < n && jj >= 0 && jj < n;
      bands[k * rows + g] = inside ? (k == kCentre ? T(8.0 / 3.0) : T(-1.0 / 3.0)) : T(0);
    }
  }
}

template <class T>
__global__ void fill_kernel(T* v, std::size_t count, T value) {
  for (std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; g < count;
       g += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    v[g] = value;
}

template <class T>
BandApplyTiming time_band_apply_typed(int level, int macros, int reps) {
  const int n = nodes_per_side(level);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t rows = nn * macros;
  if (rows > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw AccelError("time_band_apply: " + std::to_string(rows) + " rows exceed 2^31 - 1");
  Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<T> bands(rows * kBands), x(rows), y(rows);
  launch(fill_laplacian_kernel<T>, grid_for(rows), kBlock, 0, s)(bands.get(), rows,
                                                                 static_cast<unsigned>(nn), n);
  QUILT_CUDA_CHECK_LAUNCH("fill_laplacian_kernel");
  launch(fill_kernel<T>, grid_for(rows), kBlock, 0, s)(x.get(), rows, T(1));
  QUILT_CUDA_CHECK_LAUNCH("fill_kernel");

  DeviceBands<T> A{};
  for (int k = 0; k < kBands; ++k) A.band[k] = bands.get() + k * rows;
  const LevelShape shape{n, static_cast<unsigned>(nn), static_cast<unsigned>(rows), macros};
  const auto apply = [&] {
    launch_band<T, BandOp::apply>(A, x.get(), nullptr, nullptr, nullptr, T(0), y.get(), shape, s);
  };
  apply();  // warm-up: first-touch of the pages, instruction cache
  Event start, stop;
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < std::max(1, reps); ++rep) {
    start.record(s);
    apply();
    stop.record(s);
    stop.synchronize();
    best = std::min(best, stop.seconds_since(start));
  }
  BandApplyTiming t;
  t.level = level;
  t.macros = macros;
  t.rows = rows;
  t.seconds = best;
  t.bandwidth = static_cast<double>(kBands + 2) * sizeof(T) * rows / best;
  return t;
}

}  // namespace

DeviceInfo device_info(int ordinal) {
  QUILT_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  QUILT_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  info.multiprocessors = prop.multiProcessorCount;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  return info;
}

double copy_bandwidth(std::size_t bytes, int reps) {
  Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  QUILT_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, s));
  QUILT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
  Event start, stop;
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < std::max(1, reps); ++rep) {
    start.record(s);
    QUILT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
    stop.record(s);
    stop.synchronize();
    best = std::min(best, stop.seconds_since(start));
  }
  return 2.0 * static_cast<double>(bytes) / best;
}

BandApplyTiming time_band_apply(Precision precision, int level, int macros, int reps) {
  if (precision == Precision::float32) return time_band_apply_typed<float>(level, macros, reps);
  return time_band_apply_typed<double>(level, macros, reps);
}

}  // namespace quilt::accel::cuda
