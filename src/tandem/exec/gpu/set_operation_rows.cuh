// Device row helpers defined in set_operation.cu and shared with the window operator: the
// concatenation of columns and batches (rows of `a`, then rows of `b`: UNION ALL, the combined
// input the other set operations group, LAG/LEAD values followed by their defaults), a column of
// row numbers (which row a sorted row came from), the starts of runs of equal rows in sorted
// columns (set-operation groups, window partitions and peer groups), and two small int64 helpers.
// Only CUDA translation units call these.
#pragma once

#include <vector>

#include "tandem/gpu/device_column.h"

namespace tandem::gpu {

// The two columns must have the same type. Synchronizes the stream only for string columns (to
// learn their byte counts).
Result<DeviceColumnPtr> ConcatColumns(const DeviceColumn& a, const DeviceColumn& b,
                                      const Stream& stream);

// Column by column; the result has a's schema. Both must have as many columns, of equal types.
Result<DeviceBatchPtr> ConcatBatches(const DeviceBatch& a, const DeviceBatch& b,
                                     const Stream& stream);

// An int64 column 0, 1, ..., n - 1 without NULLs.
Result<DeviceColumnPtr> RowNumberColumn(int64_t n, const Stream& stream);

// flags[i] (int64, n entries) = 1 where row i starts a run of rows equal in every column of
// `columns` (row 0 always does), else 0; equality as in grouping (NULLs equal, -0.0 == 0.0, NaN ==
// NaN, strings bytewise). With `accumulate` the existing flags are kept and only set further (the
// runs of these columns within the runs already marked).
Status MarkRunStarts(const std::vector<const DeviceColumn*>& columns, int64_t* flags, int64_t n,
                     bool accumulate, const Stream& stream);

// out[i] = in[0] + ... + in[i] over int64 (in == out allowed).
Status InclusiveSumInt64(const int64_t* in, int64_t* out, int64_t n, const Stream& stream);

// One int64 from device memory (synchronizes the stream).
Result<int64_t> ReadDeviceInt64(const int64_t* device_value, const Stream& stream);

}  // namespace tandem::gpu
