#include "accel/emulation/device_memory.hpp"

#include <cstring>

namespace quilt::accel::emulation {

void* DeviceMemory::allocate(std::size_t bytes, MemorySpace space) {
  Allocation a;
  a.space = space;
  a.bytes = bytes;
  a.owned = std::make_unique_for_overwrite<unsigned char[]>(bytes);
  a.begin = a.owned.get();
  std::memset(a.begin, 0xFF, bytes);
  void* p = a.begin;
  ranges_.emplace(reinterpret_cast<std::uintptr_t>(p), std::move(a));
  return p;
}

bool DeviceMemory::release(void* p, MemorySpace space) {
  const auto it = ranges_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == ranges_.end() || it->second.space != space) return false;
  ranges_.erase(it);
  return true;
}

bool DeviceMemory::register_host(void* p, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const auto next = ranges_.lower_bound(begin);
  if (next != ranges_.end() && next->first < begin + bytes) return false;
  if (find(p) != nullptr) return false;
  Allocation a;
  a.space = MemorySpace::registered_host;
  a.begin = static_cast<unsigned char*>(p);
  a.bytes = bytes;
  ranges_.emplace(begin, std::move(a));
  return true;
}

bool DeviceMemory::unregister_host(void* p) {
  return release(p, MemorySpace::registered_host);
}

const Allocation* DeviceMemory::find(const void* p) const {
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  auto it = ranges_.upper_bound(key);
  if (it == ranges_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  return key < it->first + a.bytes ? &a : nullptr;
}

}  // namespace quilt::accel::emulation
