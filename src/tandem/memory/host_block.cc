// Raw host memory: mappings for large blocks (kept for reuse up to a bound), aligned_alloc for
// small ones (host_block.h).
#include "tandem/memory/host_block.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "tandem/common/config.h"
#include "tandem/memory/host_memory.h"

namespace tandem::host_block {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMappedFrom = 2 * kHugePage;
// At most this much freed memory is kept, in at most kKeptBlocks blocks: a sixteenth of the
// memory the process may use (the machine's, or its cgroup's limit), between 512 MiB and 4 GiB
// (a query's sort, window and gather buffers of tens of millions of rows, which the next
// operator or query asks for again); the resident-set guard (host_memory.h) empties it when
// memory runs short.
// TANDEM_HOST_KEPT_BYTES (a byte size: "16g") replaces that bound for the process, for
// measuring what reuse is worth (bench/thread_scaling.py --variant).
size_t KeptBytesMax() {
  static const size_t bytes = [] {
    if (const char* env = std::getenv("TANDEM_HOST_KEPT_BYTES"); env && *env) {
      Result<int64_t> b = ParseByteSize(env, "TANDEM_HOST_KEPT_BYTES");
      if (b.ok()) return static_cast<size_t>(*b);
      std::fprintf(stderr, "tandem: ignoring %s; keeping the default\n",
                   b.status().message().c_str());
    }
    const size_t machine = static_cast<size_t>(std::max<int64_t>(0, host_memory::MachineBytes()));
    return std::min(size_t{4} << 30, std::max(size_t{512} << 20, machine / 16));
  }();
  return bytes;
}
constexpr size_t kKeptBlocks = 128;

struct Kept {
  std::mutex mutex;
  std::vector<std::pair<size_t, void*>> blocks;  // (mapped bytes, address)
  size_t bytes = 0;
};

Kept& TheKept() {
  static Kept* kept = new Kept();  // never destroyed: blocks may be freed during exit
  return *kept;
}

// A kept block of `rounded` bytes, or nullptr: one of that size, else the smallest of up to
// twice that, its tail unmapped, else (unless `whole_only`) the largest smaller one grown by
// remapping (its pages move; only the part past its old size is fresh). Fresh pages cost far
// more than reused ones.
void* TakeKept(size_t rounded, bool whole_only = false) {
  Kept& k = TheKept();
  std::pair<size_t, void*> block{0, nullptr};
  {
    std::lock_guard<std::mutex> lock(k.mutex);
    const size_t none = k.blocks.size();
    size_t best = none, larger = none, smaller = none;
    for (size_t i = 0; i < k.blocks.size() && best == none; ++i) {
      const size_t size = k.blocks[i].first;
      if (size == rounded) {
        best = i;
      } else if (size > rounded) {
        if (size <= 2 * rounded && (larger == none || size < k.blocks[larger].first)) larger = i;
      } else if (smaller == none || size > k.blocks[smaller].first) {
        smaller = i;
      }
    }
    if (best == none) best = larger != none ? larger : whole_only ? none : smaller;
    if (best == none) return nullptr;
    block = k.blocks[best];
    k.blocks.erase(k.blocks.begin() + static_cast<std::ptrdiff_t>(best));  // oldest stay first
    k.bytes -= block.first;
  }
  auto [size, p] = block;
  if (size > rounded) {
    munmap(static_cast<char*>(p) + rounded, size - rounded);  // whole huge pages: both multiples
  } else if (size < rounded) {
    void* q = mremap(p, size, rounded, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
      munmap(p, size);
      return nullptr;
    }
#ifdef MADV_HUGEPAGE
    madvise(q, rounded, MADV_HUGEPAGE);
#endif
    p = q;
  }
  return p;
}

// Keeps a freed block, making room by unmapping the longest-kept ones: the sizes freed last are
// the ones the running query asks for again (a scan's row group after row group, a join's
// tables in each partition), while an old block may be of a size no one asks for any more.
bool Keep(void* p, size_t rounded) {
  if (rounded > KeptBytesMax()) return false;
  Kept& k = TheKept();
  std::vector<std::pair<size_t, void*>> evicted;
  {
    std::lock_guard<std::mutex> lock(k.mutex);
    size_t drop = 0;
    size_t bytes = k.bytes;
    while (drop < k.blocks.size() &&
           (bytes + rounded > KeptBytesMax() || k.blocks.size() - drop >= kKeptBlocks)) {
      bytes -= k.blocks[drop].first;
      ++drop;
    }
    evicted.assign(k.blocks.begin(), k.blocks.begin() + static_cast<std::ptrdiff_t>(drop));
    k.blocks.erase(k.blocks.begin(), k.blocks.begin() + static_cast<std::ptrdiff_t>(drop));
    k.blocks.emplace_back(rounded, p);
    k.bytes = bytes + rounded;
  }
  for (auto& [bytes, block] : evicted) munmap(block, bytes);
  return true;
}

void* Map(size_t rounded, bool zero) {
  if (void* p = TakeKept(rounded)) {
    if (zero) std::memset(p, 0, rounded);
    return p;
  }
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
  return p;  // fresh anonymous pages read as zero
}

}  // namespace

// Blocks of kMappedFrom bytes or more once rounded to the alignment are mappings, in whole huge
// pages; IsMapped and RoundedBytes agree for every size.
size_t RoundedBytes(size_t bytes) {
  const size_t aligned = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (aligned < kMappedFrom) return aligned;
  return (aligned + kHugePage - 1) / kHugePage * kHugePage;
}

bool IsMapped(size_t bytes) { return RoundedBytes(bytes) >= kMappedFrom; }

void* Allocate(size_t bytes, bool zero) {
  if (bytes == 0) return nullptr;
  const size_t rounded = RoundedBytes(bytes);
  if (IsMapped(rounded)) return Map(rounded, zero);
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  if (zero) std::memset(p, 0, rounded);
  return p;
}

void* Grow(void* p, size_t old_bytes, size_t new_bytes, size_t keep_bytes) {
  if (p == nullptr || old_bytes == 0) return Allocate(new_bytes, IsMapped(new_bytes));
  const size_t old_rounded = RoundedBytes(old_bytes);
  const size_t new_rounded = RoundedBytes(new_bytes);
  if (new_rounded <= old_rounded) return p;
  if (IsMapped(old_rounded)) {
    // A kept block big enough takes the contents instead: copying what is kept and zeroing the
    // rest of pages already held costs less than faulting in the grown part's fresh pages, and
    // the old block is kept for the next array that grows.
    if (void* q = TakeKept(new_rounded, true)) {
      const size_t kept = std::min(keep_bytes, old_bytes);
      std::memcpy(q, p, kept);
      std::memset(static_cast<char*>(q) + kept, 0, new_rounded - kept);
      Free(p, old_bytes);
      return q;
    }
    // A kept block's bytes past old_bytes may hold old data: zero them before they become
    // "past old_bytes" of a larger block.
    std::memset(static_cast<char*>(p) + old_bytes, 0, old_rounded - old_bytes);
    void* q = mremap(p, old_rounded, new_rounded, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(q, new_rounded, MADV_HUGEPAGE);
#endif
    return q;
  }
  void* q = Allocate(new_bytes, IsMapped(new_rounded));
  if (keep_bytes > 0) std::memcpy(q, p, keep_bytes < old_bytes ? keep_bytes : old_bytes);
  std::free(p);
  return q;
}

void Free(void* p, size_t bytes) {
  if (p == nullptr) return;
  const size_t rounded = RoundedBytes(bytes);
  if (!IsMapped(rounded)) {
    std::free(p);
  } else if (!Keep(p, rounded)) {
    munmap(p, rounded);
  }
}

void ReleaseKept() {
  Kept& k = TheKept();
  std::vector<std::pair<size_t, void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(k.mutex);
    blocks.swap(k.blocks);
    k.bytes = 0;
  }
  for (auto& [bytes, p] : blocks) munmap(p, bytes);
}

}  // namespace tandem::host_block
