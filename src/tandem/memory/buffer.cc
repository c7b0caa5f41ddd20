// Aligned host buffers.
#include "tandem/memory/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

constexpr int64_t kHugePage = int64_t{2} << 20;

// Capacity as allocated: large buffers in whole transparent huge pages, others in alignment units.
int64_t RoundedCapacity(int64_t capacity) {
  const int64_t unit = capacity >= 2 * kHugePage ? kHugePage : kBufferAlignment;
  return (capacity + unit - 1) / unit * unit;
}

// Owned memory counts against the host budget (host_memory.h) for as long as it is held.
void* CountedAlignedAlloc(size_t alignment, size_t bytes) {
  host_memory::Reserve(static_cast<int64_t>(bytes));
  void* p = std::aligned_alloc(alignment, bytes);
  if (p == nullptr) {
    host_memory::Release(static_cast<int64_t>(bytes));
    throw std::bad_alloc();
  }
  return p;
}

// Large buffers (fresh pages from the kernel each time: glibc maps them, and unmaps them when
// freed) ask for transparent huge pages: a 64 MiB column then costs 32 page faults instead of
// 16384.
uint8_t* AlignedAlloc(int64_t capacity) {
  if (capacity == 0) return nullptr;
  const int64_t rounded = RoundedCapacity(capacity);
  if (rounded >= 2 * kHugePage) {
    void* p = CountedAlignedAlloc(static_cast<size_t>(kHugePage), static_cast<size_t>(rounded));
#ifdef MADV_HUGEPAGE
    madvise(p, static_cast<size_t>(rounded), MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
    return static_cast<uint8_t*>(p);
  }
  return static_cast<uint8_t*>(
      CountedAlignedAlloc(static_cast<size_t>(kBufferAlignment), static_cast<size_t>(rounded)));
}

}  // namespace

Buffer::~Buffer() {
  if (owned_) {
    std::free(data_);
    host_memory::Release(counted_);
  } else if (release_) {
    release_();
  }
}

std::shared_ptr<Buffer> Buffer::Allocate(int64_t size) {
  std::shared_ptr<Buffer> b = AllocateUninitialized(size);
  if (size > 0) std::memset(b->data_, 0, static_cast<size_t>(size));
  return b;
}

std::shared_ptr<Buffer> Buffer::AllocateUninitialized(int64_t size) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = AlignedAlloc(size);
  b->counted_ = size > 0 ? RoundedCapacity(size) : 0;
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

std::shared_ptr<Buffer> Buffer::CopyOf(const void* data, int64_t size) {
  auto b = AllocateUninitialized(size);
  if (size > 0) std::memcpy(b->data_, data, static_cast<size_t>(size));
  return b;
}

void Buffer::Reserve(int64_t capacity) {
  if (capacity <= capacity_) return;
  if (!owned_) std::abort();  // wrapped memory cannot grow: a Tandem bug if it is tried
  uint8_t* fresh = AlignedAlloc(capacity);
  if (size_ > 0) std::memcpy(fresh, data_, static_cast<size_t>(size_));
  std::memset(fresh + size_, 0, static_cast<size_t>(capacity - size_));
  std::free(data_);
  host_memory::Release(counted_);
  counted_ = RoundedCapacity(capacity);
  data_ = fresh;
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
