// RawBuffer: a growable, 64-byte aligned byte array that is NOT zero-filled, for decoders that
// overwrite every byte they reserve. Finish() hands the memory to an immutable tandem::Buffer
// without a copy. The memory is a host_block (host_block.h), so that a row group's decoded
// columns reuse the blocks the last row group's freed instead of faulting in fresh pages (the
// allocator's arenas give whole heaps back to the kernel as they empty). Its bytes count against
// the host budget (tandem.memory.host.limit) from the allocation until the last Buffer over them
// dies, so that decoded scan outputs and tables cached in host memory are seen by the budget; a
// decode past it throws MemoryLimitExceeded. A per-thread scratch buffer (compressed chunk bytes,
// decompressed pages: bounded, reused, never part of an output) is not counted, like the
// allocator's free lists, but watched by the budget's check of the resident set, so that it cannot
// take the machine either.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "tandem/memory/buffer.h"
#include "tandem/memory/host_block.h"
#include "tandem/memory/host_memory.h"

namespace tandem::parquet::decode {

class RawBuffer {
 public:
  // kCounted: an output's bytes, held against the budget; kScratch: per-thread scratch.
  enum class Use { kCounted, kScratch };
  RawBuffer() = default;
  explicit RawBuffer(Use use) : counted_use_(use == Use::kCounted) {}
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;
  ~RawBuffer() {
    host_block::Free(data_, block_bytes_);
    host_memory::Release(counted_);
  }

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
    // The new block is counted before it exists and the old one released after the copy: a
    // growth holds both for a moment.
    const int64_t count = counted_use_ ? static_cast<int64_t>(rounded) : 0;
    if (counted_use_) {
      host_memory::Reserve(count);
    } else {
      host_memory::GuardResident(static_cast<int64_t>(rounded));
    }
    void* fresh;
    try {
      fresh = host_block::Allocate(rounded, false);
    } catch (...) {
      host_memory::Release(count);
      throw;
    }
    if (size_ > 0) std::memcpy(fresh, data_, static_cast<size_t>(size_));
    host_block::Free(data_, block_bytes_);
    host_memory::Release(counted_);
    counted_ = count;
    data_ = static_cast<uint8_t*>(fresh);
    block_bytes_ = rounded;
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
    std::swap(counted_, other.counted_);
    std::swap(block_bytes_, other.block_bytes_);
  }

  // Moves the bytes into a tandem::Buffer of size() bytes; this RawBuffer becomes empty.
  std::shared_ptr<Buffer> Finish() {
    if (data_ == nullptr) Reserve(1);
    uint8_t* p = data_;
    const int64_t counted = counted_;
    const size_t block_bytes = block_bytes_;
    auto buffer = Buffer::Wrap(p, size_, [p, counted, block_bytes] {
      host_block::Free(p, block_bytes);
      host_memory::Release(counted);
    });
    data_ = nullptr;
    size_ = capacity_ = counted_ = 0;
    block_bytes_ = 0;
    return buffer;
  }

 private:
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  int64_t counted_ = 0;     // bytes held against the host budget
  size_t block_bytes_ = 0;  // the host_block's size as allocated (what Free takes)
  bool counted_use_ = true;
};

}  // namespace tandem::parquet::decode
