// Raw host memory for Buffers and GrowArrays. Large blocks (4 MiB and more) are anonymous
// mappings of their own, asking for transparent huge pages, and a block grows by remapping
// (mremap): its pages move, none is copied or faulted in again. Freed large blocks are kept for
// reuse up to a bound, the longest-kept making room for the newest (a scan decodes row group
// after row group into same-sized buffers; the next query asks for blocks of about the sizes the
// last one freed), and taken by best fit, since
// on the virtual machines Tandem runs on, touching a fresh page costs ~13x a write to a page
// already held (2.5 against 33 GB/s here). Smaller blocks come from aligned_alloc. Nothing here
// counts against the host budget: the owners do.
#pragma once

#include <cstddef>

namespace tandem::host_block {

constexpr size_t kAlignment = 64;

// The capacity a block of `bytes` really takes (whole huge pages for large blocks).
size_t RoundedBytes(size_t bytes);
// Whether a block of `bytes` is a mapping of its own.
bool IsMapped(size_t bytes);

// A block of at least `bytes` (64-byte aligned; nullptr for 0), zero-filled when `zero`.
// Throws std::bad_alloc.
void* Allocate(size_t bytes, bool zero);
// Grows block p of old_bytes (its Allocate/Grow size; p may be nullptr with 0) to new_bytes,
// keeping its first keep_bytes (at most old_bytes). Where the result IsMapped, every byte past
// old_bytes is zero, and so is every byte past keep_bytes of a block that was not mapped
// before. Throws std::bad_alloc (p unchanged then).
void* Grow(void* p, size_t old_bytes, size_t new_bytes, size_t keep_bytes);
// Frees block p of `bytes` (its Allocate/Grow size); a large one may be kept for reuse.
void Free(void* p, size_t bytes);
// Returns the kept blocks to the kernel (when the process nears the machine's memory).
void ReleaseKept();

}  // namespace tandem::host_block
