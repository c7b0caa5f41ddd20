// Slices of columns and batches: rows [begin, begin + length) as a copy, or as a view that
// shares the source's buffers (no copy of values), for cutting batches into morsels and row
// groups into pieces.
#pragma once

#include <cstdint>

#include "tandem/column/batch.h"

namespace tandem {

// Rows [begin, begin + length) of a batch as a new batch (copies).
BatchPtr SliceBatch(const Batch& batch, int64_t begin, int64_t length);

// Rows [begin, begin + length) of a column without copying values: the slice's buffers point
// into the source's (keeping the whole of them alive, however short the slice). Bits (a
// validity bitmap with NULLs, booleans) need begin % 8 == 0, and other begins then copy; values
// and strings are viewed from any row (values aligned to their own width only). String offsets
// are rebased into a fresh buffer (columns start at offset 0).
ColumnPtr SliceColumnView(const ColumnPtr& column, int64_t begin, int64_t length);
// The same for every column of a batch.
BatchPtr SliceBatchView(const Batch& batch, int64_t begin, int64_t length);

}  // namespace tandem
