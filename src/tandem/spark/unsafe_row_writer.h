// Tandem's columns -> Spark's UnsafeRows, natively, for row consumers of a fragment's output
// (Spark's shuffle writer, its row operators, collect): one pass sizes every row, a second writes
// them, laid out as Spark's UnsafeRowWriter lays them out (null bits, zeroed slots of NULLs,
// 8-byte aligned variable parts, 16 bytes kept for every decimal wider than 18 digits, NaN in
// Java's canonical form). The block is packed as the plugin packs its input rows (unsafe_rows.h:
// [int32 size][int32 0][row]...), and Java reads the rows in place.
#pragma once

#include <cstdint>
#include <memory>

#include "tandem/column/batch.h"
#include "tandem/common/status.h"
#include "tandem/memory/buffer.h"

namespace tandem::spark {

struct UnsafeRowBlock {
  std::shared_ptr<Buffer> bytes;  // counted as host memory, like any column buffer
  int64_t size = 0;
  int64_t rows = 0;
};

Result<UnsafeRowBlock> EncodeBatchAsUnsafeRows(const Batch& batch);

}  // namespace tandem::spark
