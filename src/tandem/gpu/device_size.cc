// The GPU size of a host table (see device_size.h), as gpu/device_column.cu lays it out.
#include "tandem/gpu/device_size.h"

#include "tandem/common/bit_util.h"
#include "tandem/gpu/device_column.h"

namespace tandem::gpu {

int64_t DeviceBytesOf(const Table& table) {
  const int64_t n = table.num_rows();
  int64_t total = 0;
  for (int c = 0; c < table.schema.num_fields(); ++c) {
    const DataType& type = table.schema.field(c).type;
    int64_t nulls = 0, string_bytes = 0;
    for (const BatchPtr& batch : table.batches) {
      if (batch->num_rows == 0) continue;  // ToDevice skips them too
      const Column& column = *batch->columns[static_cast<size_t>(c)];
      nulls += column.null_count();
      if (type.is_string_like()) string_bytes += column.string_bytes();
    }
    total += type.is_string_like() ? (n + 1) * 8 + string_bytes : n * DeviceByteWidth(type);
    if (nulls > 0) total += bit_util::BytesForBits(n);
  }
  return total;
}

}  // namespace tandem::gpu
