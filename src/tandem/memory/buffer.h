// Buffer: a contiguous, 64-byte aligned block of host memory, either owned (and growable) or
// wrapping memory owned by someone else (an imported Arrow array, a memory-mapped file), in which
// case a release callback runs when the last reference goes away.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "tandem/common/status.h"

namespace tandem {

constexpr int64_t kBufferAlignment = 64;

class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // A zero-filled owned buffer of `size` bytes (throws std::bad_alloc when memory runs out;
  // use TryAllocate where the caller reports the failure as a Status).
  static std::shared_ptr<Buffer> Allocate(int64_t size);
  static Result<std::shared_ptr<Buffer>> TryAllocate(int64_t size);
  // An owned buffer of `size` bytes left uninitialized, for outputs a kernel overwrites entirely
  // (saves the zero-fill pass). Throws std::bad_alloc like Allocate.
  static std::shared_ptr<Buffer> AllocateUninitialized(int64_t size);
  static Result<std::shared_ptr<Buffer>> TryAllocateUninitialized(int64_t size);
  // A buffer over memory someone else owns; `release` runs once when the buffer dies.
  static std::shared_ptr<Buffer> Wrap(const void* data, int64_t size,
                                      std::function<void()> release);
  // An owned buffer over `block`, a host_block (host_block.h) of `capacity` bytes that now belongs
  // to it, holding `size` bytes; counted against the host budget from now on (throws
  // MemoryLimitExceeded, the block freed, when the budget refuses).
  static std::shared_ptr<Buffer> AdoptBlock(void* block, int64_t size, int64_t capacity);
  // An owned copy of `size` bytes at `data`.
  static std::shared_ptr<Buffer> CopyOf(const void* data, int64_t size);

  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return data_; }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(data_);
  }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  bool owned() const { return owned_; }

  // Owned buffers only: grows capacity (geometrically) to hold new_size bytes, keeps the contents
  // and zero-fills new bytes. Throws std::bad_alloc when memory runs out.
  void Resize(int64_t new_size);
  void Reserve(int64_t capacity);

 private:
  Buffer() = default;
  static std::shared_ptr<Buffer> Make(int64_t size, bool zero);
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  bool owned_ = true;
  int64_t counted_ = 0;  // bytes held against the host budget (memory/host_memory.h)
  std::function<void()> release_;
};

}  // namespace tandem
