// RawBuffer: a growable, 64-byte aligned byte array that is NOT zero-filled, for decoders that
// overwrite every byte they reserve. Finish() hands the memory to an immutable tandem::Buffer
// without a copy. Not counted by the host budget (yet), but watched by its check of the
// resident set, so that decoding more than the machine holds fails instead of being killed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "tandem/memory/buffer.h"
#include "tandem/memory/host_memory.h"

namespace tandem::parquet::decode {

class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;
  ~RawBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }

  // Grows capacity to at least `capacity` bytes, keeping the contents; throws std::bad_alloc.
  void Reserve(int64_t capacity) {
    if (capacity <= capacity_) return;
    int64_t grown = capacity_ + capacity_ / 2;
    if (grown < capacity) grown = capacity;
    const size_t rounded = static_cast<size_t>((grown + 63) / 64 * 64 + 64);  // +64: load slack
    host_memory::GuardResident(static_cast<int64_t>(rounded));
    void* fresh = std::aligned_alloc(64, rounded);
    if (fresh == nullptr) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(fresh, data_, static_cast<size_t>(size_));
    std::free(data_);
    data_ = static_cast<uint8_t*>(fresh);
    capacity_ = grown;
  }
  void Resize(int64_t size) {
    Reserve(size);
    size_ = size;
  }
  void Clear() { size_ = 0; }
  void Swap(RawBuffer& other) {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

  // Moves the bytes into a tandem::Buffer of size() bytes; this RawBuffer becomes empty.
  std::shared_ptr<Buffer> Finish() {
    if (data_ == nullptr) Reserve(1);
    uint8_t* p = data_;
    auto buffer = Buffer::Wrap(p, size_, [p] { std::free(p); });
    data_ = nullptr;
    size_ = capacity_ = 0;
    return buffer;
  }

 private:
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace tandem::parquet::decode
