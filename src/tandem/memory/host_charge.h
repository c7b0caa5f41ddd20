// HostCharge: counts memory that is not a Buffer (hash tables, group tables, aggregate states,
// encoded join keys: std::vector-backed structures) against tandem.memory.host.limit, so that
// the budget sees the whole of a query's working memory and not only its column buffers. The
// owner sets the charge to what it holds after each growth; the charge is released when the
// owner dies. Set throws MemoryLimitExceeded (leaving the old charge) when the budget refuses.
#pragma once

#include <cstdint>
#include <utility>

#include "tandem/memory/host_memory.h"

namespace tandem {

class HostCharge {
 public:
  HostCharge() = default;
  HostCharge(const HostCharge&) = delete;
  HostCharge& operator=(const HostCharge&) = delete;
  HostCharge(HostCharge&& other) noexcept : bytes_(std::exchange(other.bytes_, 0)) {}
  HostCharge& operator=(HostCharge&& other) noexcept {
    if (this != &other) {
      host_memory::Release(bytes_);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ~HostCharge() { host_memory::Release(bytes_); }

  // Makes the charge `bytes` (reserving or releasing the difference).
  void Set(int64_t bytes) {
    if (bytes > bytes_) {
      host_memory::Reserve(bytes - bytes_);
    } else {
      host_memory::Release(bytes_ - bytes);
    }
    bytes_ = bytes;
  }
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = 0;
};

// Bytes a vector holds on the heap.
template <typename Vector>
int64_t HeapBytes(const Vector& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace tandem
