// Export of Tandem schemas, batches and tables through the Arrow C Data Interface, zero copy:
// the exported buffers are Tandem's own buffers, kept alive by the exported struct's private data
// until its release callback runs. Decimals up to 18 digits go out as Arrow decimal64
// ("d:p,s,64"), wider ones as decimal128; timestamps as "tsu:" / "tsu:UTC"; strings and binary as
// "u"/"z" (int32 offsets) or "U"/"Z" (int64 offsets) per Column::large_offsets().
#pragma once

#include <string>
#include <vector>

#include "tandem/capi/arrow_c_abi.h"
#include "tandem/column/table.h"

namespace tandem::capi {

// The Arrow format string of a type; `large_offsets` picks "U"/"Z" for strings and binary.
std::string ArrowFormat(const DataType& type, bool large_offsets);

// Per field: whether its strings/binary go out with int64 offsets. Empty means "none do".
using LargeOffsetFlags = std::vector<bool>;

// Which string/binary columns of the batch (or of any batch of the table) use int64 offsets.
LargeOffsetFlags LargeOffsetColumns(const Batch& batch);
LargeOffsetFlags LargeOffsetColumns(const Table& table);

// Fills `out` with a struct schema ("+s") holding one child per field. On error `out` is
// untouched.
Status ExportSchema(const Schema& schema, ArrowSchema* out, const LargeOffsetFlags& large = {});

// Fills `out` with a struct array, one child per column, sharing the batch's buffers. `large`
// must be what the matching ExportSchema got; empty means "as each column is" (pair it with
// ExportSchema(batch.schema, s, LargeOffsetColumns(batch))). A column with int32 offsets whose
// flag is set gets widened offsets (a copy of the offsets only; the bytes stay shared).
Status ExportBatch(const Batch& batch, ArrowArray* out, const LargeOffsetFlags& large = {});

// Fills `out` with a stream over the table's batches; the stream owns the table.
Status ExportTable(Table table, ArrowArrayStream* out);

}  // namespace tandem::capi
