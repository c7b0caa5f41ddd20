// Decodes one column chunk (all its pages, already read into memory) into a Tandem column:
// dictionary pages, data pages v1 and v2, definition levels -> validity bitmap, every encoding
// of the format, and the physical -> Tandem type conversion of the leaf.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/column/column.h"
#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::parquet {

// `chunk` holds the chunk's bytes (first page header first); `num_rows` is the row group's row
// count. Errors get `context` ("file f, row group r, column c") plus the page number.
Result<ColumnPtr> DecodeColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                    const LeafColumn& leaf, int64_t num_rows,
                                    const std::string& context);

// Test hook: string/binary columns switch from int32 to int64 offsets once their bytes could pass
// `bytes` (default INT32_MAX, the most int32 offsets can address). Returns the previous value.
int64_t SetLargeOffsetThresholdForTesting(int64_t bytes);

}  // namespace tandem::parquet
