#pragma once
// The one emulated CUDA device of a process: its memory map, streams, events and error state,
// behind the runtime API of cuda_runtime.h (runtime_api.cpp). Every API call holds the device's
// lock; queued work runs on the host thread that waits for it.
//
// Faults can be injected through the environment, read at every call, so that a test can show
// the cuda target's messages for a machine without a working device:
//   QUILT_CUDA_EMULATION_DEVICES=0                     no device (cudaErrorNoDevice)
//   QUILT_CUDA_EMULATION_FAULT=insufficient-driver     driver older than the runtime
//   QUILT_CUDA_EMULATION_FAULT=no-driver               no driver installed (reported by the
//                                                      runtime as an insufficient one)
//   QUILT_CUDA_EMULATION_FAULT=no-kernel-image         the binary has no code for the device

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <vector>

#include "accel/emulation/device_memory.hpp"
#include "accel/emulation/stream_queue.hpp"
#include "accel/emulation/thread_block.hpp"

namespace quilt::accel::emulation {

class EmulatedDevice {
 public:
  static EmulatedDevice& instance();
  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mutex_); }

  /// Devices visible, or the error an injected fault makes cudaGetDeviceCount return.
  cudaError_t device_count(int& count) const;
  cudaError_t set_device(int device);
  int driver_version() const;
  void properties(cudaDeviceProp& prop) const;
  cudaError_t function_attributes(cudaFuncAttributes& attr) const;

  /// The error a call returns: the sticky fault if there is one, else `error` (which becomes the
  /// last error unless it is cudaSuccess). A non-empty `why` is printed to stderr, so a test log
  /// shows what the emulation objected to.
  cudaError_t result(cudaError_t error, const std::string& why = {});
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const;

  cudaError_t allocate(void** ptr, std::size_t bytes, MemorySpace space);
  cudaError_t release(void* ptr, MemorySpace space);
  cudaError_t register_host(void* ptr, std::size_t bytes);
  cudaError_t unregister_host(void* ptr);

  /// cudaMemcpyAsync (blocking: cudaMemcpy) after the direction and bounds checks.
  cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                   cudaStream_t stream, bool blocking, const char* call);
  cudaError_t fill(void* dst, int value, std::size_t bytes, cudaStream_t stream, bool blocking,
                   const char* call);
  void launch(cudaStream_t stream, const dim3& grid, const dim3& block, std::size_t shared_bytes,
              std::function<void()> thread_body, const std::source_location& where);

  /// Work queued on the streams since the process started, replays of graphs included, for
  /// bench/cuda_launch_count.cpp (whose counts bench/gpu_model.py checks its launch model
  /// against).
  using QueuedWork = WorkCount;
  QueuedWork queued_work() const { return queued_; }

  cudaError_t create_stream(cudaStream_t* stream, unsigned flags);
  cudaError_t destroy_stream(cudaStream_t stream);
  /// Runs everything queued on the stream (null: the legacy default stream).
  cudaError_t synchronize(cudaStream_t stream);
  cudaError_t synchronize_device();

  cudaError_t begin_capture(cudaStream_t stream);
  cudaError_t end_capture(cudaStream_t stream, cudaGraph_t* graph);
  cudaError_t instantiate(cudaGraphExec_t* exec, cudaGraph_t graph);
  cudaError_t launch_graph(cudaGraphExec_t exec, cudaStream_t stream);
  cudaError_t destroy_graph(cudaGraph_t graph);

  cudaError_t create_event(cudaEvent_t* event);
  cudaError_t destroy_event(cudaEvent_t event);
  cudaError_t record_event(cudaEvent_t event, cudaStream_t stream);
  cudaError_t synchronize_event(cudaEvent_t event);
  cudaError_t elapsed(float* ms, cudaEvent_t start, cudaEvent_t stop);

 private:
  EmulatedDevice() = default;
  /// The queue of a stream handle (null: the legacy default stream), or null if unknown.
  StreamQueue* queue(cudaStream_t stream);
  std::vector<std::shared_ptr<EventRecord>>::iterator find_event(cudaEvent_t event);
  /// Runs q through `last`, turning a fault into the sticky error.
  cudaError_t run(StreamQueue& q, std::uint64_t last);
  cudaError_t check_range(const void* p, std::size_t bytes, const char* call, const char* what,
                          const Allocation*& found);
  /// A call that makes the host wait for the device while a stream captures: every capture is
  /// invalidated and the call refused (cudaErrorStreamCaptureImplicit), as CUDA refuses such
  /// "unsafe" calls during a capture. cudaSuccess when nothing captures.
  cudaError_t refuse_during_capture(const char* call);
  /// One operation of `kind` queued on q, or recorded into q's capture.
  void count(StreamQueue& q, std::uint64_t WorkCount::*kind);

  std::mutex mutex_;
  int current_ = 0;
  cudaError_t sticky_ = cudaSuccess;
  QueuedWork queued_;
  cudaError_t last_ = cudaSuccess;
  DeviceMemory memory_;
  StreamQueue legacy_{cudaStreamDefault};
  std::vector<std::unique_ptr<StreamQueue>> streams_;
  std::vector<std::shared_ptr<EventRecord>> events_;
  std::vector<std::unique_ptr<Graph>> graphs_;  ///< captured graphs and executable graphs
};

}  // namespace quilt::accel::emulation
