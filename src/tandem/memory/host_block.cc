// Raw host memory: mappings for large blocks, aligned_alloc for small ones (host_block.h).
#include "tandem/memory/host_block.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace tandem::host_block {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMappedFrom = 2 * kHugePage;

void* Map(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
  return p;
}

}  // namespace

size_t RoundedBytes(size_t bytes) {
  const size_t unit = bytes >= kMappedFrom ? kHugePage : kAlignment;
  return (bytes + unit - 1) / unit * unit;
}

bool IsMapped(size_t bytes) { return bytes >= kMappedFrom; }

void* Allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  const size_t rounded = RoundedBytes(bytes);
  if (IsMapped(rounded)) return Map(rounded);
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* Grow(void* p, size_t old_bytes, size_t new_bytes, size_t keep_bytes) {
  if (p == nullptr || old_bytes == 0) return Allocate(new_bytes);
  const size_t old_rounded = RoundedBytes(old_bytes);
  const size_t new_rounded = RoundedBytes(new_bytes);
  if (new_rounded <= old_rounded) return p;
  if (IsMapped(old_rounded)) {
    void* q = mremap(p, old_rounded, new_rounded, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(q, new_rounded, MADV_HUGEPAGE);
#endif
    return q;
  }
  void* q = Allocate(new_bytes);
  if (keep_bytes > 0) std::memcpy(q, p, keep_bytes < old_bytes ? keep_bytes : old_bytes);
  std::free(p);
  return q;
}

void Free(void* p, size_t bytes) {
  if (p == nullptr) return;
  const size_t rounded = RoundedBytes(bytes);
  if (IsMapped(rounded)) {
    munmap(p, rounded);
  } else {
    std::free(p);
  }
}

}  // namespace tandem::host_block
