// Columns and batches in device memory, in the host Column's Arrow layout with two deliberate
// differences that keep GPU kernels simple and 64-bit clean:
//   - booleans are one byte per value (0 or 1), not bit-packed;
//   - string/binary offsets are always int64 (length + 1 entries).
// validity is an LSB-first Arrow bitmap (empty buffer when there are no nulls). Decimals keep the
// host storage width (int64 to precision 18, __int128 above), dates int32 days, timestamps int64
// microseconds. A DeviceBatch is one large batch: GPU operators take and return whole tables.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/gpu/runtime.h"
#include "tandem/types/data_type.h"

namespace tandem::gpu {

struct DeviceColumn {
  DataType type;
  int64_t length = 0;
  int64_t null_count = 0;
  DeviceBuffer validity;  // bitmap of (length + 7) / 8 bytes, or empty when null_count == 0
  DeviceBuffer values;    // fixed width: length * ByteWidth(type); strings: int64 offsets
  DeviceBuffer data;      // strings/binary: the bytes

  bool has_validity() const { return !validity.empty(); }
};
using DeviceColumnPtr = std::shared_ptr<DeviceColumn>;

struct DeviceBatch {
  Schema schema;
  int64_t num_rows = 0;
  std::vector<DeviceColumnPtr> columns;
};
using DeviceBatchPtr = std::shared_ptr<DeviceBatch>;

// Bytes per value on the device (booleans 1, decimals 8 or 16, strings: 8 for the offsets).
int DeviceByteWidth(const DataType& type);

// Copies a host table (all its batches, concatenated) to the device through pinned staging
// buffers; asynchronous on `stream` except for the staging.
Result<DeviceBatchPtr> ToDevice(const Table& table, const Stream& stream);
Result<DeviceColumnPtr> ColumnToDevice(const Column& column, const Stream& stream);

// Copies a device batch back into one host batch (synchronizes the stream).
Result<Table> ToHost(const DeviceBatch& batch, const Stream& stream);
Result<ColumnPtr> ColumnToHost(const DeviceColumn& column, const Stream& stream);

// Gathers rows `device_indices[0..count)` (int64, on the device) of every column: the GPU twin
// of TakeBatch. An index of -1 gives a NULL row (outer joins).
Result<DeviceBatchPtr> Gather(const DeviceBatch& batch, const int64_t* device_indices,
                              int64_t count, const Stream& stream);
Result<DeviceColumnPtr> GatherColumn(const DeviceColumn& column, const int64_t* device_indices,
                                     int64_t count, const Stream& stream);

// Rows [begin, begin + length) as a new batch (device copies).
Result<DeviceBatchPtr> SliceRows(const DeviceBatch& batch, int64_t begin, int64_t length,
                                 const Stream& stream);

// Total device bytes held by a batch's buffers (for metrics and the cost model).
int64_t DeviceBytes(const DeviceBatch& batch);

}  // namespace tandem::gpu
