// Rows from Spark, as Spark keeps them (UnsafeRow), into Tandem's columns. The plugin copies
// each row's bytes into native memory as [int32 size][int32 0][size bytes] (UnsafeRow sizes are
// multiples of 8, so every row starts 8-byte aligned); this decodes a
// block of them into one batch of the input's schema. UnsafeRow: a null bitset of 8-byte words
// (bit i set: field i is NULL), then one 8-byte slot per field (fixed-width values little-endian
// in the slot; strings, binary and decimals above 18 digits as (offset << 32 | size) into the
// row, a decimal's bytes being a big-endian two's complement integer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/common/status.h"
#include "tandem/types/value.h"

namespace tandem::spark {

constexpr int64_t kRowHeaderBytes = 8;

// `rows` rows packed in data[0, bytes): a batch of `schema`. Malformed rows (sizes or offsets
// past the block) are an error, never a read out of bounds.
Result<BatchPtr> DecodeUnsafeRows(const Schema& schema, const uint8_t* data, int64_t bytes,
                                  int64_t rows);

// The inverse: packs rows (one Value per field) the way the plugin does (tests, and a UDF's
// result for Spark: spark_udfs.h).
std::string EncodeUnsafeRows(const Schema& schema, const std::vector<std::vector<Value>>& rows);

}  // namespace tandem::spark
