#pragma once
// The host emulation of the CUDA runtime subset that accel/cuda uses (design.md §7): put first on
// the include path of quilt_accel_emul only, it stands in for the toolkit's cuda_runtime.h, so the
// cuda target's .cu sources compile as C++ and run in CI without nvcc or a GPU. Kernels run block
// after block, the threads of a block as fibers with real __syncthreads barriers; device memory
// starts as NaN; streams are queues run only at synchronisation points; copies are checked for
// direction and bounds. What is not modelled is listed in design.md §7.

#define QUILT_CUDA_EMULATION 1

#include <math.h>

#include <cmath>
#include <cstddef>

// --- Execution-space and storage qualifiers ------------------------------------------------------
// Every function is a host function here. __shared__ is not: a function-local static would keep
// the previous block's values instead of starting undefined, so kernels declare shared memory
// with QUILT_SHARED / QUILT_DYNAMIC_SHARED (accel/cuda/launch.cuh), which the emulation fills
// with NaN at every block.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ \
  static_assert(false, "declare shared memory with QUILT_SHARED or QUILT_DYNAMIC_SHARED");

// --- Types ---------------------------------------------------------------------------------------

struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

/// The runtime's error codes that the emulation returns, with the toolkit's values.
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorLaunchFailure = 719,
  cudaErrorSystemDriverMismatch = 803,
  cudaErrorCompatNotSupportedOnDevice = 804,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureImplicit = 906,
};

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

inline constexpr unsigned cudaStreamDefault = 0x0;
inline constexpr unsigned cudaStreamNonBlocking = 0x1;
inline constexpr unsigned cudaHostRegisterDefault = 0x0;

enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};

namespace quilt::accel::emulation {
class StreamQueue;
struct EventRecord;
struct Graph;
}  // namespace quilt::accel::emulation
using cudaStream_t = quilt::accel::emulation::StreamQueue*;
using cudaEvent_t = quilt::accel::emulation::EventRecord*;
/// A captured graph and its executable form are the same thing here: the captured operations
/// in stream order.
using cudaGraph_t = quilt::accel::emulation::Graph*;
using cudaGraphExec_t = quilt::accel::emulation::Graph*;

struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int multiProcessorCount;
  int major;
  int minor;
  int memoryBusWidth;
  int l2CacheSize;
};

struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int maxDynamicSharedSizeBytes;
};

// --- Runtime API (accel/emulation/runtime_api.cpp)
// ------------------------------------------------

/// The runtime version the emulation stands in for (CUDA 13.0), and the driver's: the same, or
/// 12.0 under QUILT_CUDA_EMULATION_FAULT=insufficient-driver (0: no-driver).
inline constexpr int CUDART_VERSION = 13000;
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned flags);
cudaError_t cudaHostUnregister(void* ptr);

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

/// Stream capture (CUDA programming guide, "CUDA Graphs"): between Begin and End, the kernels,
/// memsets and copies between device and page-locked memory queued on the stream are recorded
/// into the graph instead of run. Anything that needs the host to wait for the capturing stream
/// (a synchronisation, a copy to or from pageable memory, cudaFree, an event record) is refused
/// with cudaErrorStreamCaptureUnsupported and invalidates the capture, whose End then returns
/// cudaErrorStreamCaptureInvalidated. cudaGraphLaunch queues the recorded operations, in order,
/// on the stream it is given; copies read their source when the replay runs.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop);

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
template <class Function>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, Function* entry) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(entry));
}

// --- Built-in variables and device functions -----------------------------------------------------
// One set per host thread: the threads of a block run as fibers on the host thread that
// synchronises the stream, and the block scheduler sets these before it resumes each of them.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

// Products without contraction into a fused multiply-add, as nvcc's _rn intrinsics; the host
// compiler contracts only with FMA instructions enabled, which the build does not enable.
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
/// Read through the read-only data cache: a plain load on the host.
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

#include "accel/emulation/kernel_launch.hpp"
#include "accel/emulation/thread_block.hpp"

/// Waits until every thread of the block has reached this point (CUDA programming guide,
/// "Synchronization Functions"); a thread that exits, or takes another path, while the others
/// wait is reported as a divergent barrier instead of hanging.
inline void __syncthreads() {
  quilt::accel::emulation::ThreadBlock::barrier();
}
