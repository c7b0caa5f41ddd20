// GrowArray<T>: a growable array of trivially copyable values (group keys, hashes, aggregate
// states) over host_block storage. Unlike std::vector, a large array grows without copying or
// faulting in its old pages again (the block is remapped), new elements on fresh pages are
// not zero-filled twice, and the finished array can become a column's Buffer without a copy
// (TakeBuffer). Not counted against the host budget by itself: the owner charges heap_bytes()
// (HostCharge).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "tandem/memory/buffer.h"
#include "tandem/memory/host_block.h"

namespace tandem {

template <typename T>
class GrowArray {
  static_assert(std::is_trivially_copyable_v<T>, "GrowArray holds plain values");

 public:
  using value_type = T;

  GrowArray() = default;
  GrowArray(const GrowArray&) = delete;
  GrowArray& operator=(const GrowArray&) = delete;
  GrowArray(GrowArray&& o) noexcept { *this = std::move(o); }
  GrowArray& operator=(GrowArray&& o) noexcept {
    if (this != &o) {
      Free();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
      dirty_ = std::exchange(o.dirty_, 0);
    }
    return *this;
  }
  ~GrowArray() { Free(); }

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  // Bytes held (what the owner charges).
  int64_t heap_bytes() const { return capacity_ * static_cast<int64_t>(sizeof(T)); }

  void reserve(int64_t n) {
    if (n > capacity_) Regrow(n);
  }
  // New elements are zero bytes (T{} for the arithmetic types this holds).
  void resize(int64_t n) {
    if (n > capacity_) Regrow(std::max(n, capacity_ + capacity_ / 2 + 16));
    if (n > size_) {
      const int64_t fill_end = std::min(n, dirty_);
      if (fill_end > size_) {
        std::memset(static_cast<void*>(data_ + size_), 0,
                    static_cast<size_t>(fill_end - size_) * sizeof(T));
      }
    }
    size_ = n;
    dirty_ = std::max(dirty_, n);
  }
  // Sets the size to n without zero-filling new elements, for arrays whose every element the
  // caller writes (a join's hash table, scattered by many threads): a fresh array's pages are
  // then first touched by those threads, in parallel, not by one memset. The new elements'
  // values are unspecified until written.
  void resize_for_overwrite(int64_t n) {
    if (n > capacity_) {
      if (data_ == nullptr) {
        data_ = static_cast<T*>(host_block::Allocate(static_cast<size_t>(Bytes(n)), false));
        capacity_ = n;
      } else {
        Regrow(std::max(n, capacity_ + capacity_ / 2 + 16));
      }
    }
    size_ = n;
    dirty_ = std::max(dirty_, capacity_);  // nothing past size_ is known to be zero
  }
  void push_back(const T& v) {
    if (size_ == capacity_) Regrow(capacity_ + capacity_ / 2 + 16);
    data_[size_++] = v;
    dirty_ = std::max(dirty_, size_);
  }
  void append(const T* values, int64_t n) {
    if (n <= 0) return;
    if (size_ + n > capacity_) Regrow(std::max(size_ + n, capacity_ + capacity_ / 2 + 16));
    std::memcpy(static_cast<void*>(data_ + size_), values, static_cast<size_t>(n) * sizeof(T));
    size_ += n;
    dirty_ = std::max(dirty_, size_);
  }
  void clear() { size_ = 0; }

  // The first size() elements as a Buffer of size() * sizeof(T) bytes, without a copy (a small
  // array is copied); the array is empty afterwards. Throws MemoryLimitExceeded when the budget
  // refuses the buffer: release the owner's charge for heap_bytes() first.
  std::shared_ptr<Buffer> TakeBuffer() {
    const auto bytes = size_ * static_cast<int64_t>(sizeof(T));
    std::shared_ptr<Buffer> out;
    if (host_block::IsMapped(static_cast<size_t>(Bytes(capacity_)))) {
      void* block = std::exchange(data_, nullptr);
      const int64_t capacity = Bytes(std::exchange(capacity_, 0));
      size_ = dirty_ = 0;
      out = Buffer::AdoptBlock(block, bytes, capacity);
    } else {
      out = Buffer::CopyOf(data_, bytes);
      Free();
    }
    return out;
  }

 private:
  static int64_t Bytes(int64_t elements) { return elements * static_cast<int64_t>(sizeof(T)); }

  void Regrow(int64_t n) {
    const bool was_mapped = host_block::IsMapped(static_cast<size_t>(Bytes(capacity_)));
    void* grown =
        host_block::Grow(data_, static_cast<size_t>(Bytes(capacity_)),
                         static_cast<size_t>(Bytes(n)), static_cast<size_t>(Bytes(size_)));
    if (host_block::IsMapped(static_cast<size_t>(Bytes(n)))) {
      // Remapped: elements past the old capacity are zero. Newly mapped: past size_.
      if (!was_mapped) dirty_ = size_;
    } else {
      dirty_ = n;  // aligned_alloc memory: unknown contents
    }
    data_ = static_cast<T*>(grown);
    capacity_ = n;
  }
  void Free() {
    host_block::Free(data_, static_cast<size_t>(Bytes(capacity_)));
    data_ = nullptr;
    size_ = capacity_ = dirty_ = 0;
  }

  T* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  // Elements at and past dirty_ (below capacity_) are known to be zero bytes.
  int64_t dirty_ = 0;
};

}  // namespace tandem
