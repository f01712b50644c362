// The CUDA runtime API functions of cuda_runtime.h on the emulated device: each takes the
// device's lock and forwards to EmulatedDevice.

#include <cuda_runtime.h>

#include "accel/emulation/emulated_device.hpp"

using quilt::accel::emulation::EmulatedDevice;
using quilt::accel::emulation::MemorySpace;

namespace {

EmulatedDevice& device() {
  return EmulatedDevice::instance();
}

}  // namespace

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return cudaErrorInvalidValue;
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return cudaErrorInvalidValue;
  const auto lock = device().lock();
  *version = device().driver_version();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudaErrorInvalidValue;
  const auto lock = device().lock();
  return device().device_count(*count);
}

cudaError_t cudaSetDevice(int d) {
  const auto lock = device().lock();
  return device().set_device(d);
}

cudaError_t cudaGetDevice(int* d) {
  if (d == nullptr) return cudaErrorInvalidValue;
  const auto lock = device().lock();
  int count = 0;
  if (const cudaError_t err = device().device_count(count); err != cudaSuccess) return err;
  *d = 0;
  return device().result(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int d) {
  const auto lock = device().lock();
  int count = 0;
  if (const cudaError_t err = device().device_count(count); err != cudaSuccess) return err;
  if (prop == nullptr || d < 0 || d >= count) return device().result(cudaErrorInvalidDevice);
  device().properties(*prop);
  return device().result(cudaSuccess);
}

cudaError_t cudaDeviceSynchronize() {
  const auto lock = device().lock();
  return device().synchronize_device();
}

cudaError_t cudaGetLastError() {
  const auto lock = device().lock();
  return device().take_last_error();
}

cudaError_t cudaPeekAtLastError() {
  const auto lock = device().lock();
  return device().peek_last_error();
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError:
      return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver:
      return "cudaErrorInsufficientDriver";
    case cudaErrorCallRequiresNewerDriver:
      return "cudaErrorCallRequiresNewerDriver";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorNoKernelImageForDevice:
      return "cudaErrorNoKernelImageForDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorIllegalAddress:
      return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources:
      return "cudaErrorLaunchOutOfResources";
    case cudaErrorHostMemoryAlreadyRegistered:
      return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered:
      return "cudaErrorHostMemoryNotRegistered";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    case cudaErrorSystemDriverMismatch:
      return "cudaErrorSystemDriverMismatch";
    case cudaErrorCompatNotSupportedOnDevice:
      return "cudaErrorCompatNotSupportedOnDevice";
    case cudaErrorIllegalState:
      return "cudaErrorIllegalState";
    case cudaErrorStreamCaptureUnsupported:
      return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated:
      return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureImplicit:
      return "cudaErrorStreamCaptureImplicit";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInitializationError:
      return "initialization error";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorCallRequiresNewerDriver:
      return "API call is not supported in the installed CUDA driver";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorNoKernelImageForDevice:
      return "no kernel image is available for execution on the device";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorHostMemoryAlreadyRegistered:
      return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered:
      return "pointer does not correspond to a registered memory region";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    case cudaErrorSystemDriverMismatch:
      return "system has unsupported display driver / cuda driver combination";
    case cudaErrorCompatNotSupportedOnDevice:
      return "forward compatibility was attempted on non supported HW";
    case cudaErrorIllegalState:
      return "the resource is not in a valid state to perform the requested operation";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureImplicit:
      return "operation would make the legacy stream depend on a capturing blocking stream";
  }
  return "unknown error";
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  const auto lock = device().lock();
  return device().allocate(ptr, bytes, MemorySpace::device);
}

cudaError_t cudaFree(void* ptr) {
  const auto lock = device().lock();
  return device().release(ptr, MemorySpace::device);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  const auto lock = device().lock();
  return device().allocate(ptr, bytes, MemorySpace::pinned_host);
}

cudaError_t cudaFreeHost(void* ptr) {
  const auto lock = device().lock();
  return device().release(ptr, MemorySpace::pinned_host);
}

cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned /*flags*/) {
  const auto lock = device().lock();
  return device().register_host(ptr, bytes);
}

cudaError_t cudaHostUnregister(void* ptr) {
  const auto lock = device().lock();
  return device().unregister_host(ptr);
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  const auto lock = device().lock();
  return device().copy(dst, src, bytes, kind, nullptr, true, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  const auto lock = device().lock();
  return device().copy(dst, src, bytes, kind, stream, false, "cudaMemcpyAsync");
}

cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  const auto lock = device().lock();
  return device().fill(dst, value, bytes, nullptr, true, "cudaMemset");
}

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream) {
  const auto lock = device().lock();
  return device().fill(dst, value, bytes, stream, false, "cudaMemsetAsync");
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  const auto lock = device().lock();
  return device().create_stream(stream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  const auto lock = device().lock();
  return device().create_stream(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  const auto lock = device().lock();
  return device().destroy_stream(stream);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  const auto lock = device().lock();
  return device().synchronize(stream);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode /*mode*/) {
  const auto lock = device().lock();
  return device().begin_capture(stream);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  const auto lock = device().lock();
  return device().end_capture(stream, graph);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long /*flags*/) {
  const auto lock = device().lock();
  return device().instantiate(exec, graph);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  const auto lock = device().lock();
  return device().launch_graph(exec, stream);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  const auto lock = device().lock();
  return device().destroy_graph(graph);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  const auto lock = device().lock();
  return device().destroy_graph(exec);
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  const auto lock = device().lock();
  return device().create_event(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  const auto lock = device().lock();
  return device().destroy_event(event);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  const auto lock = device().lock();
  return device().record_event(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  const auto lock = device().lock();
  return device().synchronize_event(event);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  const auto lock = device().lock();
  return device().elapsed(ms, start, stop);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr || func == nullptr) return cudaErrorInvalidValue;
  const auto lock = device().lock();
  return device().result(device().function_attributes(*attr));
}
