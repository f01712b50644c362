#pragma once
// The emulated device's memory map: device allocations (cudaMalloc), pinned host allocations
// (cudaMallocHost) and registered host ranges (cudaHostRegister), so that a copy can be checked
// against the direction it claims and against the bounds of the allocations it touches.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

namespace quilt::accel::emulation {

enum class MemorySpace { device, pinned_host, registered_host };

struct Allocation {
  MemorySpace space = MemorySpace::device;
  unsigned char* begin = nullptr;
  std::size_t bytes = 0;
  std::unique_ptr<unsigned char[]> owned;  ///< null for registered host memory
};

class DeviceMemory {
 public:
  /// bytes > 0 of new memory in `space` (device or pinned_host), every byte 0xFF: NaN as float
  /// and double, so a kernel or copy that reads memory nothing wrote yields NaN.
  void* allocate(std::size_t bytes, MemorySpace space);
  /// Frees an allocation made by allocate in `space`; false if p does not start one.
  bool release(void* p, MemorySpace space);
  /// Records [p, p + bytes) as registered host memory; false if it overlaps a known range.
  bool register_host(void* p, std::size_t bytes);
  bool unregister_host(void* p);
  /// The allocation or registered range that contains p, or null (pageable host memory).
  const Allocation* find(const void* p) const;

 private:
  std::map<std::uintptr_t, Allocation> ranges_;
};

}  // namespace quilt::accel::emulation
