// Stand-in for device_column.cu and device_gather.cu in builds without nvcc: no device columns.
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/gather.h"

namespace tandem::gpu {
namespace {

Status NoDevice() { return Status::Unsupported("no CUDA device (compiled without CUDA)"); }

}  // namespace

int DeviceByteWidth(const DataType& type) {
  if (type.id == TypeId::kBool) return 1;
  if (type.is_string_like()) return 8;
  return type.byte_width();
}

Result<DeviceBatchPtr> ToDevice(const Table&, const Stream&) { return NoDevice(); }
Result<DeviceColumnPtr> ColumnToDevice(const Column&, const Stream&) { return NoDevice(); }
Result<Table> ToHost(const DeviceBatch&, const Stream&) { return NoDevice(); }
Result<ColumnPtr> ColumnToHost(const DeviceColumn&, const Stream&) { return NoDevice(); }
Result<DeviceBatchPtr> Gather(const DeviceBatch&, const int64_t*, int64_t, const Stream&) {
  return NoDevice();
}
Result<DeviceColumnPtr> GatherColumn(const DeviceColumn&, const int64_t*, int64_t, const Stream&) {
  return NoDevice();
}
Result<DeviceBatchPtr> SliceRows(const DeviceBatch&, int64_t, int64_t, const Stream&) {
  return NoDevice();
}
Result<DeviceBatchPtr> GatherBatch(const DeviceBatch&, RowSource, int64_t, const GatherOptions&,
                                   const Stream&) {
  return NoDevice();
}

int64_t DeviceBytes(const DeviceBatch& batch) {
  int64_t bytes = 0;
  for (const auto& c : batch.columns) {
    bytes += c->validity.size() + c->values.size() + c->data.size();
  }
  return bytes;
}

}  // namespace tandem::gpu
