// Raw host memory for Buffers and GrowArrays. Large blocks (4 MiB and more) are anonymous
// mappings of their own, asking for transparent huge pages; they arrive zero-filled, and a block
// grows by remapping (mremap): its pages move, none is copied or faulted in again. On the
// virtual machines Tandem runs on, touching a fresh page costs ~13x a write to a page already
// held (2.5 against 33 GB/s here), so copying a growing array into fresh memory at each doubling
// and zero-filling what the kernel already zeroed were most of a large aggregation's time.
// Smaller blocks come from aligned_alloc. Nothing here counts against the host budget: the
// owners do.
#pragma once

#include <cstddef>

namespace tandem::host_block {

constexpr size_t kAlignment = 64;

// The capacity a block of `bytes` really takes (whole huge pages for large blocks).
size_t RoundedBytes(size_t bytes);
// Whether a block of `bytes` is a mapping of its own (and so arrives zero-filled).
bool IsMapped(size_t bytes);

// A block of at least `bytes` (64-byte aligned; nullptr for 0). Throws std::bad_alloc.
void* Allocate(size_t bytes);
// Grows block p of old_bytes (its Allocate/Grow size; p may be nullptr with 0) to new_bytes,
// keeping its first keep_bytes. A mapped block's bytes past old_bytes are zero afterwards, and
// so is all of a block that has just become mapped past keep_bytes. Throws std::bad_alloc
// (p unchanged then).
void* Grow(void* p, size_t old_bytes, size_t new_bytes, size_t keep_bytes);
// Frees block p of `bytes` (its Allocate/Grow size).
void Free(void* p, size_t bytes);

}  // namespace tandem::host_block
