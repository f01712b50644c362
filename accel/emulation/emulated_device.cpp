#include "accel/emulation/emulated_device.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace quilt::accel::emulation {
namespace {

constexpr std::size_t kMaxGridX = 2147483647u;
constexpr std::size_t kMaxGridYZ = 65535u;

std::string_view injected_fault() {
  const char* f = std::getenv("QUILT_CUDA_EMULATION_FAULT");
  return f ? std::string_view(f) : std::string_view();
}

std::string where_text(const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

const char* kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice:
      return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost:
      return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice:
      return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault:
      return "cudaMemcpyDefault";
  }
  return "an unknown cudaMemcpyKind";
}

/// One ThreadBlock per host thread that runs kernels: it keeps the fiber stacks between blocks.
ThreadBlock& block_runner() {
  thread_local ThreadBlock block;
  return block;
}

}  // namespace

EmulatedDevice& EmulatedDevice::instance() {
  static EmulatedDevice device;
  return device;
}

cudaError_t EmulatedDevice::device_count(int& count) const {
  count = 0;
  if (injected_fault() == "insufficient-driver" || injected_fault() == "no-driver")
    return cudaErrorInsufficientDriver;
  const char* env = std::getenv("QUILT_CUDA_EMULATION_DEVICES");
  count = env ? std::max(0, std::atoi(env)) : 1;
  return count == 0 ? cudaErrorNoDevice : cudaSuccess;
}

int EmulatedDevice::driver_version() const {
  if (injected_fault() == "no-driver") return 0;
  return injected_fault() == "insufficient-driver" ? 12000 : CUDART_VERSION;
}

cudaError_t EmulatedDevice::set_device(int device) {
  int count = 0;
  const cudaError_t err = device_count(count);
  if (err != cudaSuccess) return result(err);
  if (device < 0 || device >= count)
    return result(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + "): " +
                                              std::to_string(count) + " emulated device(s)");
  current_ = device;
  return result(cudaSuccess);
}

void EmulatedDevice::properties(cudaDeviceProp& prop) const {
  prop = cudaDeviceProp{};
  std::snprintf(prop.name, sizeof prop.name, "%s", "Quilt host emulation of a CUDA device");
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  prop.totalGlobalMem = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : 0;
  prop.sharedMemPerBlock = ThreadBlock::kSharedBytes;
  prop.regsPerBlock = 65536;
  prop.warpSize = 32;
  prop.maxThreadsPerBlock = static_cast<int>(ThreadBlock::kMaxThreads);
  prop.maxThreadsDim[0] = prop.maxThreadsDim[1] = 1024;
  prop.maxThreadsDim[2] = 64;
  prop.maxGridSize[0] = static_cast<int>(kMaxGridX);
  prop.maxGridSize[1] = prop.maxGridSize[2] = static_cast<int>(kMaxGridYZ);
  prop.multiProcessorCount = 1;  // blocks run one after another
  prop.major = 9;
  prop.minor = 0;
  prop.memoryBusWidth = 64;
  prop.l2CacheSize = 0;
}

cudaError_t EmulatedDevice::function_attributes(cudaFuncAttributes& attr) const {
  if (injected_fault() == "no-kernel-image") return cudaErrorNoKernelImageForDevice;
  attr = cudaFuncAttributes{};
  attr.maxThreadsPerBlock = static_cast<int>(ThreadBlock::kMaxThreads);
  attr.ptxVersion = 90;
  attr.binaryVersion = 90;
  attr.maxDynamicSharedSizeBytes = static_cast<int>(ThreadBlock::kSharedBytes);
  return cudaSuccess;
}

cudaError_t EmulatedDevice::result(cudaError_t error, const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "quilt cuda emulation: %s\n", why.c_str());
  if (sticky_ != cudaSuccess) return sticky_;
  if (error != cudaSuccess) last_ = error;
  return error;
}

cudaError_t EmulatedDevice::take_last_error() {
  if (sticky_ != cudaSuccess) return sticky_;
  return std::exchange(last_, cudaSuccess);
}

cudaError_t EmulatedDevice::peek_last_error() const {
  return sticky_ != cudaSuccess ? sticky_ : last_;
}

cudaError_t EmulatedDevice::allocate(void** ptr, std::size_t bytes, MemorySpace space) {
  if (ptr == nullptr) return result(cudaErrorInvalidValue, "allocation into a null pointer");
  *ptr = nullptr;
  if (sticky_ != cudaSuccess) return sticky_;
  if (bytes == 0) return cudaSuccess;
  *ptr = memory_.allocate(bytes, space);
  return cudaSuccess;
}

cudaError_t EmulatedDevice::release(void* ptr, MemorySpace space) {
  if (ptr == nullptr) return result(cudaSuccess);
  if (cudaError_t e = refuse_during_capture("cudaFree"); e != cudaSuccess) return e;
  // cudaFree and cudaFreeHost wait for the device: queued work may still use the memory.
  const cudaError_t err = synchronize_device();
  if (!memory_.release(ptr, space))
    return result(cudaErrorInvalidValue,
                  std::string(space == MemorySpace::device ? "cudaFree" : "cudaFreeHost") +
                      ": the pointer does not start an allocation of " +
                      (space == MemorySpace::device ? "cudaMalloc" : "cudaMallocHost"));
  return err;
}

cudaError_t EmulatedDevice::register_host(void* ptr, std::size_t bytes) {
  if (ptr == nullptr || bytes == 0)
    return result(cudaErrorInvalidValue, "cudaHostRegister of a null pointer or 0 bytes");
  if (!memory_.register_host(ptr, bytes))
    return result(cudaErrorHostMemoryAlreadyRegistered,
                  "cudaHostRegister: the range overlaps registered or allocated memory");
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::unregister_host(void* ptr) {
  if (!memory_.unregister_host(ptr))
    return result(cudaErrorHostMemoryNotRegistered,
                  "cudaHostUnregister: the pointer does not start a registered range");
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::check_range(const void* p, std::size_t bytes, const char* call,
                                        const char* what, const Allocation*& found) {
  found = memory_.find(p);
  if (found == nullptr) return cudaSuccess;
  const std::size_t offset = static_cast<const unsigned char*>(p) - found->begin;
  if (bytes > found->bytes - offset)
    return result(cudaErrorInvalidValue,
                  std::string(call) + ": the " + what + " range of " + std::to_string(bytes) +
                      " bytes at offset " + std::to_string(offset) +
                      " overruns its allocation of " + std::to_string(found->bytes) + " bytes");
  return cudaSuccess;
}

cudaError_t EmulatedDevice::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                 cudaStream_t stream, bool blocking, const char* call) {
  if (sticky_ != cudaSuccess) return sticky_;
  if (bytes == 0) return result(cudaSuccess);
  if (dst == nullptr || src == nullptr)
    return result(cudaErrorInvalidValue, std::string(call) + ": a null pointer");
  const Allocation *to = nullptr, *from = nullptr;
  if (cudaError_t e = check_range(dst, bytes, call, "destination", to); e != cudaSuccess) return e;
  if (cudaError_t e = check_range(src, bytes, call, "source", from); e != cudaSuccess) return e;
  const bool to_device = to && to->space == MemorySpace::device;
  const bool from_device = from && from->space == MemorySpace::device;
  bool ok = true;
  switch (kind) {
    case cudaMemcpyHostToHost:
      ok = !to_device && !from_device;
      break;
    case cudaMemcpyHostToDevice:
      ok = !from_device && to_device;
      break;
    case cudaMemcpyDeviceToHost:
      ok = from_device && !to_device;
      break;
    case cudaMemcpyDeviceToDevice:
      ok = from_device && to_device;
      break;
    case cudaMemcpyDefault:
      break;
    default:
      return result(cudaErrorInvalidMemcpyDirection, std::string(call) + ": unknown kind");
  }
  if (!ok)
    return result(cudaErrorInvalidMemcpyDirection,
                  std::string(call) + " with " + kind_name(kind) + ", but the source is " +
                      (from_device ? "device" : "host") + " and the destination " +
                      (to_device ? "device" : "host") + " memory");
  StreamQueue* q = queue(stream);
  if (q == nullptr)
    return result(cudaErrorInvalidResourceHandle, std::string(call) + ": unknown stream");
  if (blocking)
    if (cudaError_t e = refuse_during_capture(call); e != cudaSuccess) return e;
  if (q->capturing() && (to == nullptr || from == nullptr)) {
    // Pageable memory needs the host in the copy (staging), which a graph cannot replay.
    q->invalidate_capture();
    return result(cudaErrorStreamCaptureUnsupported,
                  std::string(call) + " between pageable host memory and a capturing stream");
  }
  count(*q, &WorkCount::copies);
  std::uint64_t seq = 0;
  if (from == nullptr && !blocking) {
    // Pageable source: the runtime stages it before returning, so the caller may reuse it.
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + bytes);
    seq = q->push([dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else {
    // Device or page-locked source: read when the copy runs, as the DMA engine reads it.
    seq = q->push([dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }
  // A copy to pageable host memory returns only once it is done (CUDA runtime API, "API
  // synchronization behavior"); so does the blocking cudaMemcpy.
  if (blocking || to == nullptr) return run(*q, seq);
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::fill(void* dst, int value, std::size_t bytes, cudaStream_t stream,
                                 bool blocking, const char* call) {
  if (sticky_ != cudaSuccess) return sticky_;
  if (bytes == 0) return result(cudaSuccess);
  const Allocation* to = nullptr;
  if (cudaError_t e = check_range(dst, bytes, call, "destination", to); e != cudaSuccess) return e;
  if (to == nullptr || to->space != MemorySpace::device)
    return result(cudaErrorInvalidValue,
                  std::string(call) + ": the destination is not device memory");
  StreamQueue* q = queue(stream);
  if (q == nullptr)
    return result(cudaErrorInvalidResourceHandle, std::string(call) + ": unknown stream");
  if (blocking)
    if (cudaError_t e = refuse_during_capture(call); e != cudaSuccess) return e;
  count(*q, &WorkCount::fills);
  const std::uint64_t seq = q->push([dst, value, bytes] { std::memset(dst, value, bytes); });
  if (blocking) return run(*q, seq);
  return result(cudaSuccess);
}

void EmulatedDevice::launch(cudaStream_t stream, const dim3& grid, const dim3& block,
                            std::size_t shared_bytes, std::function<void()> thread_body,
                            const std::source_location& where) {
  if (sticky_ != cudaSuccess) return;
  const std::string at = "kernel launch at " + where_text(where);
  if (injected_fault() == "no-kernel-image") {
    result(cudaErrorNoKernelImageForDevice, at + ": no kernel image (injected fault)");
    return;
  }
  const std::size_t threads = static_cast<std::size_t>(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || threads > ThreadBlock::kMaxThreads) {
    result(cudaErrorInvalidConfiguration, at + ": block (" + std::to_string(block.x) + "," +
                                              std::to_string(block.y) + "," +
                                              std::to_string(block.z) + ")");
    return;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > kMaxGridX || grid.y > kMaxGridYZ ||
      grid.z > kMaxGridYZ) {
    result(cudaErrorInvalidConfiguration, at + ": grid (" + std::to_string(grid.x) + "," +
                                              std::to_string(grid.y) + "," +
                                              std::to_string(grid.z) + ")");
    return;
  }
  if (shared_bytes > ThreadBlock::kSharedBytes) {
    result(cudaErrorInvalidValue, at + ": " + std::to_string(shared_bytes) +
                                      " bytes of dynamic shared memory exceed 48 KiB");
    return;
  }
  StreamQueue* q = queue(stream);
  if (q == nullptr) {
    result(cudaErrorInvalidResourceHandle, at + ": unknown stream");
    return;
  }
  count(*q, &WorkCount::kernels);
  q->push([grid, block, shared_bytes, at, body = std::move(thread_body)] {
    gridDim = grid;
    ThreadBlock& runner = block_runner();
    for (unsigned z = 0; z < grid.z; ++z)
      for (unsigned y = 0; y < grid.y; ++y)
        for (unsigned x = 0; x < grid.x; ++x) {
          try {
            runner.run(body, block, uint3{x, y, z}, shared_bytes);
          } catch (const std::exception& e) {
            throw KernelFault(at + " failed: " + e.what());
          }
        }
  });
}

std::vector<std::shared_ptr<EventRecord>>::iterator EmulatedDevice::find_event(cudaEvent_t event) {
  return std::find_if(events_.begin(), events_.end(),
                      [&](const auto& e) { return e.get() == event; });
}

StreamQueue* EmulatedDevice::queue(cudaStream_t stream) {
  if (stream == nullptr) return &legacy_;
  for (const auto& s : streams_)
    if (s.get() == stream) return s.get();
  return nullptr;
}

cudaError_t EmulatedDevice::run(StreamQueue& q, std::uint64_t last) {
  try {
    q.run_through(last);
  } catch (const std::exception& e) {
    // A kernel fault leaves the context unusable (cudaErrorLaunchFailure is sticky): nothing
    // queued runs any more and every later call reports it.
    sticky_ = cudaErrorLaunchFailure;
    legacy_.drop_all();
    for (const auto& s : streams_) s->drop_all();
    std::fprintf(stderr, "quilt cuda emulation: %s\n", e.what());
  }
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::create_stream(cudaStream_t* stream, unsigned flags) {
  if (stream == nullptr) return result(cudaErrorInvalidValue, "cudaStreamCreate into null");
  streams_.push_back(std::make_unique<StreamQueue>(flags));
  *stream = streams_.back().get();
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::destroy_stream(cudaStream_t stream) {
  const auto it = std::find_if(streams_.begin(), streams_.end(),
                               [&](const auto& s) { return s.get() == stream; });
  if (it == streams_.end())
    return result(cudaErrorInvalidResourceHandle, "cudaStreamDestroy of an unknown stream");
  // Work still queued completes before the stream's resources go.
  const cudaError_t err = run(**it, UINT64_MAX);
  for (const auto& e : events_)
    if (e->stream == stream) e->stream = nullptr;
  streams_.erase(it);
  return err;
}

cudaError_t EmulatedDevice::synchronize(cudaStream_t stream) {
  StreamQueue* q = queue(stream);
  if (q == nullptr)
    return result(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize of an unknown stream");
  if (q->capturing()) {
    q->invalidate_capture();
    return result(cudaErrorStreamCaptureUnsupported, "cudaStreamSynchronize of a capturing stream");
  }
  return run(*q, UINT64_MAX);
}

cudaError_t EmulatedDevice::synchronize_device() {
  if (cudaError_t e = refuse_during_capture("cudaDeviceSynchronize"); e != cudaSuccess) return e;
  run(legacy_, UINT64_MAX);
  for (const auto& s : streams_) run(*s, UINT64_MAX);
  return result(cudaSuccess);
}

void EmulatedDevice::count(StreamQueue& q, std::uint64_t WorkCount::*kind) {
  // Captured work is counted when a replay queues it, not when it is recorded.
  // Named first: GCC 12 applies .* to a copy of a conditional expression's result.
  WorkCount& counts = q.capturing() ? q.captured_work() : queued_;
  ++(counts.*kind);
}

cudaError_t EmulatedDevice::refuse_during_capture(const char* call) {
  bool any = false;
  for (const auto& s : streams_)
    if (s->capturing()) {
      s->invalidate_capture();
      any = true;
    }
  if (!any) return cudaSuccess;
  return result(cudaErrorStreamCaptureImplicit,
                std::string(call) + " waits for the device while a stream captures");
}

cudaError_t EmulatedDevice::begin_capture(cudaStream_t stream) {
  if (stream == nullptr)
    return result(cudaErrorStreamCaptureUnsupported,
                  "cudaStreamBeginCapture on the legacy default stream");
  StreamQueue* q = queue(stream);
  if (q == nullptr)
    return result(cudaErrorInvalidResourceHandle, "cudaStreamBeginCapture of an unknown stream");
  if (q->capturing())
    return result(cudaErrorIllegalState, "cudaStreamBeginCapture: the stream already captures");
  q->begin_capture();
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::end_capture(cudaStream_t stream, cudaGraph_t* graph) {
  StreamQueue* q = queue(stream);
  if (q == nullptr || graph == nullptr)
    return result(cudaErrorInvalidResourceHandle, "cudaStreamEndCapture: unknown stream or null");
  *graph = nullptr;
  if (!q->capturing())
    return result(cudaErrorIllegalState, "cudaStreamEndCapture: the stream does not capture");
  auto nodes = q->end_capture();
  if (!nodes)
    return result(cudaErrorStreamCaptureInvalidated,
                  "cudaStreamEndCapture: an operation during the capture was refused");
  graphs_.push_back(std::make_unique<Graph>(std::move(*nodes)));
  *graph = graphs_.back().get();
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::instantiate(cudaGraphExec_t* exec, cudaGraph_t graph) {
  const auto known = [&](cudaGraph_t g) {
    return std::any_of(graphs_.begin(), graphs_.end(), [&](const auto& p) { return p.get() == g; });
  };
  if (exec == nullptr || !known(graph))
    return result(cudaErrorInvalidValue, "cudaGraphInstantiate of an unknown graph");
  // The executable graph is a snapshot: later changes to the graph do not reach it.
  graphs_.push_back(std::make_unique<Graph>(*graph));
  *exec = graphs_.back().get();
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::launch_graph(cudaGraphExec_t exec, cudaStream_t stream) {
  const bool known =
      std::any_of(graphs_.begin(), graphs_.end(), [&](const auto& p) { return p.get() == exec; });
  StreamQueue* q = queue(stream);
  if (!known || q == nullptr)
    return result(cudaErrorInvalidResourceHandle, "cudaGraphLaunch: unknown graph or stream");
  if (sticky_ != cudaSuccess) return sticky_;
  for (const auto& node : exec->nodes) q->push(node);
  (q->capturing() ? q->captured_work() : queued_) += exec->work;
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::destroy_graph(cudaGraph_t graph) {
  const auto it =
      std::find_if(graphs_.begin(), graphs_.end(), [&](const auto& p) { return p.get() == graph; });
  if (it == graphs_.end())
    return result(cudaErrorInvalidValue, "cudaGraphDestroy of an unknown graph");
  graphs_.erase(it);  // replays already queued hold copies of the nodes
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::create_event(cudaEvent_t* event) {
  if (event == nullptr) return result(cudaErrorInvalidValue, "cudaEventCreate into null");
  events_.push_back(std::make_shared<EventRecord>());
  *event = events_.back().get();
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::destroy_event(cudaEvent_t event) {
  const auto it = find_event(event);
  if (it == events_.end())
    return result(cudaErrorInvalidResourceHandle, "cudaEventDestroy of an unknown event");
  events_.erase(it);  // a pending record task holds only a weak reference
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::record_event(cudaEvent_t event, cudaStream_t stream) {
  const auto it = find_event(event);
  StreamQueue* q = queue(stream);
  if (it == events_.end() || q == nullptr)
    return result(cudaErrorInvalidResourceHandle, "cudaEventRecord: unknown event or stream");
  if (q->capturing()) {
    // Not modelled: CUDA records an event node; nothing here records events in a capture.
    q->invalidate_capture();
    return result(cudaErrorStreamCaptureUnsupported,
                  "cudaEventRecord on a capturing stream (not modelled by the emulation)");
  }
  EventRecord& e = **it;
  const std::uint64_t generation = ++e.generation;
  e.recorded = true;
  e.complete = false;
  e.stream = q;
  std::weak_ptr<EventRecord> weak = *it;
  e.sequence = q->push([weak, generation] {
    if (auto r = weak.lock(); r && r->generation == generation) {
      r->complete = true;
      r->stream = nullptr;
      r->when = std::chrono::steady_clock::now();
    }
  });
  return result(cudaSuccess);
}

cudaError_t EmulatedDevice::synchronize_event(cudaEvent_t event) {
  const auto it = find_event(event);
  if (it == events_.end())
    return result(cudaErrorInvalidResourceHandle, "cudaEventSynchronize of an unknown event");
  EventRecord& e = **it;
  if (e.complete || e.stream == nullptr) return result(cudaSuccess);
  return run(*e.stream, e.sequence);
}

cudaError_t EmulatedDevice::elapsed(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  if (ms == nullptr || find_event(start) == events_.end() || find_event(stop) == events_.end() ||
      !start->recorded || !stop->recorded)
    return result(cudaErrorInvalidResourceHandle,
                  "cudaEventElapsedTime: an event is unknown or was never recorded");
  if (!start->complete || !stop->complete) return result(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(stop->when - start->when).count();
  return result(cudaSuccess);
}

void enqueue_kernel(cudaStream_t stream, const dim3& grid, const dim3& block,
                    std::size_t shared_bytes, std::function<void()> thread_body,
                    const std::source_location& where) {
  EmulatedDevice& d = EmulatedDevice::instance();
  const auto lock = d.lock();
  d.launch(stream, grid, block, shared_bytes, std::move(thread_body), where);
}

}  // namespace quilt::accel::emulation
