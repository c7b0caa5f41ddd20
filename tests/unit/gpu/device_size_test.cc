// The GPU size of a host table (gpu/device_size.h; plain C++, run everywhere): the bytes
// gpu::ToDevice allocates, which CACHE TABLE compares with the room it can make on the GPU.
#include "tandem/gpu/device_size.h"

#include <gtest/gtest.h>

#include "tandem/column/column_builder.h"

namespace tandem::gpu {
namespace {

BatchPtr OneBatch(const Schema& schema, std::vector<ColumnPtr> columns) {
  auto b = std::make_shared<Batch>();
  b->schema = schema;
  b->num_rows = columns.empty() ? 0 : columns[0]->length();
  b->columns = std::move(columns);
  return b;
}

TEST(DeviceSize, StringOffsetsAreEightBytesBooleansAByteAndBitmapsOnlyWithNulls) {
  Schema s;
  s.fields = {{"i", DataType::Int64()},
              {"s", DataType::String()},
              {"b", DataType::Bool()},
              {"d", DataType::Decimal(30, 2)}};
  Table t;
  t.schema = s;
  for (int batch = 0; batch < 2; ++batch) {  // two batches of 3 rows: 6 rows
    ColumnBuilder i(DataType::Int64()), str(DataType::String()), b(DataType::Bool()),
        d(DataType::Decimal(30, 2));
    for (int r = 0; r < 3; ++r) {
      i.Append<int64_t>(r);
      str.AppendString(r == 0 ? "abcd" : "xy");  // 8 bytes per batch
      b.AppendBool(r % 2 == 0);
      if (batch == 1 && r == 2) {
        d.AppendNull();
      } else {
        d.Append<int128_t>(r);
      }
    }
    t.batches.push_back(OneBatch(s, {i.Finish(), str.Finish(), b.Finish(), d.Finish()}));
  }
  const int64_t ints = 6 * 8;
  const int64_t strings = 7 * 8 + 16;   // offsets for 6 rows and the closing one, then the text
  const int64_t bools = 6;              // a byte each
  const int64_t decimals = 6 * 16 + 1;  // a NULL: its bitmap (one byte for 6 rows)
  EXPECT_EQ(DeviceBytesOf(t), ints + strings + bools + decimals);
}

TEST(DeviceSize, AnEmptyTableTakesTheClosingOffsetOfItsStrings) {
  Table t;
  t.schema.fields = {{"s", DataType::String()}, {"i", DataType::Int32()}};
  EXPECT_EQ(DeviceBytesOf(t), 8);
}

}  // namespace
}  // namespace tandem::gpu
