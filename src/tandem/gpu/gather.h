// Row gathering on the device, the engine behind Gather, GatherColumn and SliceRows and what GPU
// operators use to build their outputs. Rows come from an index array (index -1 = a NULL row) or
// from a contiguous range. Plain C++ header: GPU operators in any translation unit call it.
#pragma once

#include <cstdint>

#include "tandem/gpu/device_column.h"

namespace tandem::gpu {

// Row i of the output is source row indices[i] when indices is set, else first + i.
struct RowSource {
  const int64_t* indices = nullptr;  // device memory
  int64_t first = 0;
};

struct GatherOptions {
  // No index is -1: columns without nulls stay without a validity bitmap.
  bool indices_nonnegative = false;
  // The rows are a permutation of all source rows (a sort): null counts and string byte counts
  // are the source's, so the gather never synchronizes the stream.
  bool full_permutation = false;
};

// Gathers `count` rows of every column; a null column pointer stays null in the output (late
// materialization: a caller leaves out the columns its consumer does not read). Synchronizes the
// stream once (to learn null counts and string sizes) unless options.full_permutation.
Result<DeviceBatchPtr> GatherBatch(const DeviceBatch& batch, RowSource rows, int64_t count,
                                   const GatherOptions& options, const Stream& stream);

}  // namespace tandem::gpu
