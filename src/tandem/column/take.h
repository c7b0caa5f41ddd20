// Gathering rows: the building block of filter, join, sort and aggregation outputs.
// Indices are row positions in the source; an index of -1 produces a NULL (outer joins).
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/types/value.h"

namespace tandem {

ColumnPtr Take(const Column& source, const int32_t* indices, int64_t count);
ColumnPtr Take(const Column& source, const int64_t* indices, int64_t count);
BatchPtr TakeBatch(const Batch& source, const int32_t* indices, int64_t count);

// Gathers (batch, row) pairs from several batches of one schema into one column: used where
// results are assembled across the batches of a Table. Packed as (batch << 32 | row); -1 = NULL.
ColumnPtr TakeFromBatches(const std::vector<BatchPtr>& batches, int column,
                          const int64_t* packed_refs, int64_t count);

// A column of `count` copies of a value (NULL if value.is_null).
ColumnPtr BroadcastValue(const Value& value, int64_t count);
// The value at one row.
Value GetValue(const Column& column, int64_t row);

// Concatenates the batches of a table into one batch (copies; the table's schema).
BatchPtr CombineBatches(const Table& table);

}  // namespace tandem
