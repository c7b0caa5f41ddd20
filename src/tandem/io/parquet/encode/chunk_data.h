// ChunkData: the rows of one column in one row group, gathered from the batches that hold them
// and converted to the Parquet physical representation: a validity bitmap for the rows and the
// present (non-null) values only, contiguous, in the vector of the column's ValueKind.
// Byte-array values (and borrowed fixed-width values) are views into the source columns, which the
// caller keeps alive.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/io/parquet/encode/writer_schema.h"

namespace tandem::parquet {

// Rows [begin, begin + length) of one column.
struct ColumnSlice {
  ColumnPtr column;
  int64_t begin = 0;
  int64_t length = 0;
};

struct ChunkData {
  int64_t num_rows = 0;
  int64_t null_count = 0;
  std::vector<uint8_t> validity;  // empty when no row is null; else one bit per row (+ padding)
  std::vector<uint8_t> bools;     // kBool (0 or 1)
  std::vector<int32_t> i32;       // kInt32, kUInt32
  std::vector<int64_t> i64;       // kInt64, kUInt64
  std::vector<float> f32;         // kFloat
  std::vector<double> f64;        // kDouble
  std::vector<int128_t> i128;     // kDecimal128
  std::vector<std::string_view> bytes;  // kByteArray
  // Set instead of filling a vector when the chunk is one slice without nulls whose storage
  // already is the physical representation: the values are read in place.
  const void* borrowed_values = nullptr;
  int64_t num_values = 0;  // present values, whichever way they are held
};

// Gathers the slices (all of spec.type) into `out`.
void GatherChunk(const std::vector<ColumnSlice>& slices, const ColumnWriteSpec& spec,
                 ChunkData* out);

}  // namespace tandem::parquet
