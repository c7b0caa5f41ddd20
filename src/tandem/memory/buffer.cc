// Aligned host buffers.
#include "tandem/memory/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "tandem/memory/host_block.h"
#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

// Owned memory counts against the host budget (host_memory.h) for as long as it is held.
uint8_t* CountedAlloc(int64_t capacity, bool zero) {
  if (capacity == 0) return nullptr;
  const auto bytes = static_cast<int64_t>(host_block::RoundedBytes(static_cast<size_t>(capacity)));
  host_memory::Reserve(bytes);
  try {
    return static_cast<uint8_t*>(host_block::Allocate(static_cast<size_t>(capacity), zero));
  } catch (...) {
    host_memory::Release(bytes);
    throw;
  }
}

int64_t CountedBytes(int64_t capacity) {
  return capacity > 0
             ? static_cast<int64_t>(host_block::RoundedBytes(static_cast<size_t>(capacity)))
             : 0;
}

}  // namespace

Buffer::~Buffer() {
  if (owned_) {
    host_block::Free(data_, static_cast<size_t>(capacity_));
    host_memory::Release(counted_);
  } else if (release_) {
    release_();
  }
}

std::shared_ptr<Buffer> Buffer::Allocate(int64_t size) { return Make(size, /*zero=*/true); }

std::shared_ptr<Buffer> Buffer::AllocateUninitialized(int64_t size) {
  return Make(size, /*zero=*/false);
}

std::shared_ptr<Buffer> Buffer::Make(int64_t size, bool zero) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = CountedAlloc(size, zero);
  b->counted_ = CountedBytes(size);
  b->size_ = size;
  b->capacity_ = size;
  return b;
}

Result<std::shared_ptr<Buffer>> Buffer::TryAllocate(int64_t size) {
  try {
    return Allocate(size);
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) +
                               " bytes: " + OutOfMemoryText(e));
  }
}

Result<std::shared_ptr<Buffer>> Buffer::TryAllocateUninitialized(int64_t size) {
  try {
    return AllocateUninitialized(size);
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) +
                               " bytes: " + OutOfMemoryText(e));
  }
}

std::shared_ptr<Buffer> Buffer::Wrap(const void* data, int64_t size,
                                     std::function<void()> release) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = static_cast<uint8_t*>(const_cast<void*>(data));
  b->size_ = size;
  b->capacity_ = size;
  b->owned_ = false;
  b->release_ = std::move(release);
  return b;
}

std::shared_ptr<Buffer> Buffer::AdoptBlock(void* block, int64_t size, int64_t capacity) {
  const int64_t counted = CountedBytes(capacity);
  try {
    host_memory::Reserve(counted);
  } catch (...) {
    host_block::Free(block, static_cast<size_t>(capacity));
    throw;
  }
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = static_cast<uint8_t*>(block);
  b->size_ = size;
  b->capacity_ = capacity;
  b->counted_ = counted;
  return b;
}

std::shared_ptr<Buffer> Buffer::CopyOf(const void* data, int64_t size) {
  auto b = AllocateUninitialized(size);
  if (size > 0) std::memcpy(b->data_, data, static_cast<size_t>(size));
  return b;
}

void Buffer::Reserve(int64_t capacity) {
  if (capacity <= capacity_) return;
  if (!owned_) std::abort();  // wrapped memory cannot grow: a Tandem bug if it is tried
  // Afterwards bytes [size_, capacity) are zero, as callers that write past the size expect. A
  // mapped block grows in place or moves its pages (host_block::Grow): its bytes past the old
  // capacity arrive zero-filled, and a block that has just become mapped is zero past size_.
  const int64_t counted = CountedBytes(capacity);
  host_memory::Reserve(counted);
  uint8_t* grown;
  try {
    grown = static_cast<uint8_t*>(host_block::Grow(data_, static_cast<size_t>(capacity_),
                                                   static_cast<size_t>(capacity),
                                                   static_cast<size_t>(size_)));
  } catch (...) {
    host_memory::Release(counted);
    throw;
  }
  const bool was_mapped = host_block::IsMapped(static_cast<size_t>(capacity_));
  const int64_t dirty_end = !host_block::IsMapped(static_cast<size_t>(capacity)) ? capacity
                            : was_mapped                                         ? capacity_
                                                                                 : size_;
  if (dirty_end > size_) std::memset(grown + size_, 0, static_cast<size_t>(dirty_end - size_));
  host_memory::Release(counted_);
  counted_ = counted;
  data_ = grown;
  capacity_ = capacity;
}

void Buffer::Resize(int64_t new_size) {
  if (new_size > capacity_) {
    int64_t grown = capacity_ + capacity_ / 2;
    Reserve(new_size > grown ? new_size : grown);
  }
  if (new_size > size_ && new_size <= capacity_) {
    std::memset(data_ + size_, 0, static_cast<size_t>(new_size - size_));
  }
  size_ = new_size;
}

}  // namespace tandem
