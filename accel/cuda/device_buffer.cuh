#pragma once
// Owners of the CUDA resources of the cuda target: device memory, pinned host memory, streams and
// events. Move-only, released in the destructor; allocation failures throw AccelError. Release
// errors are ignored on purpose: a destructor must not throw, and a failed cudaFree during
// unwinding would only hide the error that caused the unwinding.

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "accel/cuda/cuda_check.cuh"

namespace quilt::accel::cuda {

/// count elements of T in device memory (cudaMalloc), uninitialised.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) QUILT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// count elements of T in page-locked host memory (cudaMallocHost): the staging area that lets
/// cudaMemcpyAsync run as a true DMA transfer at full link bandwidth.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0)
      QUILT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  void release() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// A page-locked range of someone else's host memory (cudaHostRegister), so that copies from and
/// to it are DMA transfers without a staging copy. The owner of the memory must keep it in place
/// until the registration is gone. A range the driver refuses (e.g. one already registered by
/// another component: cudaErrorHostMemoryAlreadyRegistered) is not an error here: the
/// registration stays empty, the error is cleared, and the caller keeps its staging path.
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(const void* ptr, std::size_t bytes) {
    // cudaHostRegister takes a non-const pointer but only locks the pages; nothing is written.
    void* p = const_cast<void*>(ptr);
    if (p == nullptr || bytes == 0) return;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) {
      ptr_ = p;
      bytes_ = bytes;
    } else {
      cudaGetLastError();  // not sticky: the staging path still works
    }
  }
  ~HostRegistration() { release(); }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  HostRegistration(HostRegistration&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  HostRegistration& operator=(HostRegistration&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }

  /// Whether [ptr, ptr + bytes) is the registered range: copies of exactly it may skip staging.
  bool covers(const void* ptr, std::size_t bytes) const {
    return ptr_ != nullptr && ptr == ptr_ && bytes == bytes_;
  }

 private:
  void release() {
    if (ptr_) cudaHostUnregister(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A non-blocking stream: work on it does not serialise with the legacy default stream, so other
/// libraries' default-stream work in the same process cannot stall the local solves.
class Stream {
 public:
  Stream() { QUILT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      if (stream_) cudaStreamDestroy(stream_);
      stream_ = std::exchange(o.stream_, nullptr);
    }
    return *this;
  }

  cudaStream_t get() const { return stream_; }
  void synchronize() const { QUILT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A timing event (cudaEventCreate with timing enabled).
class Event {
 public:
  Event() { QUILT_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      if (event_) cudaEventDestroy(event_);
      event_ = std::exchange(o.event_, nullptr);
    }
    return *this;
  }

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t s) { QUILT_CUDA_CHECK(cudaEventRecord(event_, s)); }
  void synchronize() const { QUILT_CUDA_CHECK(cudaEventSynchronize(event_)); }

  /// Seconds from start to this event; both must have completed.
  double seconds_since(const Event& start) const {
    float ms = 0.0f;
    QUILT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace quilt::accel::cuda
