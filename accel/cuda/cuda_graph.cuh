#pragma once
// A CUDA graph (CUDA programming guide, "CUDA Graphs"): the kernels and copies that one piece of
// host code queues on a stream, captured once and instantiated, then replayed with one
// cudaGraphLaunch. The local V-cycle is ~10 launches per level; replayed as a graph, the host
// pays one launch and the device starts each kernel without a host round trip (review finding:
// launch-bound at L <= 7). Parameters are captured by value and buffers by address, so a graph
// stays valid while the buffers it names live and the host-side choices it baked in hold.

#include <cuda_runtime.h>

#include <utility>

#include "accel/cuda/cuda_check.cuh"

namespace quilt::accel::cuda {

class CudaGraph {
 public:
  CudaGraph() = default;
  ~CudaGraph() { release(); }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  CudaGraph(CudaGraph&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  CudaGraph& operator=(CudaGraph&& o) noexcept {
    if (this != &o) {
      release();
      exec_ = std::exchange(o.exec_, nullptr);
    }
    return *this;
  }

  /// Captures what body() queues on stream (nothing runs meanwhile) and instantiates it. If
  /// body throws, the stream leaves capture mode before the exception propagates; a capture the
  /// runtime invalidated (body made the host wait) throws AccelError.
  template <class Body>
  static CudaGraph capture(cudaStream_t stream, Body&& body) {
    QUILT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      body();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial)
        cudaGraphDestroy(partial);
      cudaGetLastError();  // the capture's own error is not the one to report
      throw;
    }
    cudaGraph_t graph = nullptr;
    QUILT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CudaGraph out;
    const cudaError_t err = cudaGraphInstantiate(&out.exec_, graph, 0);
    cudaGraphDestroy(graph);
    check_cuda(err, "cudaGraphInstantiate", __FILE__, __LINE__);
    return out;
  }

  /// Queues one replay on stream.
  void launch(cudaStream_t stream) const { QUILT_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  void release() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace quilt::accel::cuda
