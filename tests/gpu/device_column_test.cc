// Device columns: host -> device -> host round trips for every type (NULLs, empty, one row,
// batches whose lengths are not multiples of 8, strings with int32 and int64 offsets, booleans),
// and Gather / SliceRows against the CPU's Take.
#include "tandem/gpu/device_column.h"

#include <random>

#include "column_test_util.h"
#include "gpu_test_util.h"
#include "tandem/column/take.h"

namespace tandem::gpu {
namespace {

using testing::AllTypes;
using testing::ExpectTablesEqual;
using testing::RandomTable;

Schema AllTypesSchema() {
  Schema s;
  int i = 0;
  for (const DataType& t : AllTypes()) s.fields.push_back({"c" + std::to_string(i++), t});
  return s;
}

Table OneBatch(const Table& t) {
  Table out;
  out.schema = t.schema;
  if (t.num_rows() > 0) out.batches.push_back(CombineBatches(t));
  return out;
}

void RoundTrip(const Table& host) {
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  auto device = ToDevice(host, *stream);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ((*device)->num_rows, host.num_rows());
  for (int c = 0; c < host.schema.num_fields(); ++c) {
    int64_t nulls = 0;
    for (const auto& b : host.batches) nulls += b->column(c)->null_count();
    EXPECT_EQ((*device)->columns[c]->null_count, nulls) << "column " << c;
    EXPECT_EQ((*device)->columns[c]->has_validity(), nulls > 0) << "column " << c;
  }
  auto back = ToHost(**device, *stream);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectTablesEqual(host, *back);
}

TEST(GpuDeviceColumn, ByteWidths) {
  EXPECT_EQ(DeviceByteWidth(DataType::Bool()), 1);
  EXPECT_EQ(DeviceByteWidth(DataType::String()), 8);
  EXPECT_EQ(DeviceByteWidth(DataType::Decimal(30, 2)), 16);
  EXPECT_EQ(DeviceByteWidth(DataType::Decimal(10, 2)), 8);
  EXPECT_EQ(DeviceByteWidth(DataType::Date32()), 4);
}

TEST(GpuDeviceColumn, RoundTripEveryTypeWithNulls) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(1);
  RoundTrip(RandomTable(AllTypesSchema(), {1000}, rng, 0.2));
  RoundTrip(RandomTable(AllTypesSchema(), {777}, rng, 0.0));  // no validity bitmaps
}

TEST(GpuDeviceColumn, RoundTripUnalignedBatches) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(2);
  RoundTrip(RandomTable(AllTypesSchema(), {3, 5, 0, 13, 1, 8, 7, 64, 9}, rng, 0.3));
  // Some batches with NULLs and some without.
  Table mixed = RandomTable(AllTypesSchema(), {11, 5}, rng, 0.5);
  Table clean = RandomTable(AllTypesSchema(), {6, 21}, rng, 0.0);
  for (const auto& b : clean.batches) mixed.batches.push_back(b);
  RoundTrip(mixed);
}

TEST(GpuDeviceColumn, RoundTripEmptyAndOneRow) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(3);
  Table empty;
  empty.schema = AllTypesSchema();
  RoundTrip(empty);
  RoundTrip(RandomTable(AllTypesSchema(), {0}, rng, 0.5));
  RoundTrip(RandomTable(AllTypesSchema(), {1}, rng, 0.0));
  RoundTrip(RandomTable(AllTypesSchema(), {1}, rng, 1.0));
}

TEST(GpuDeviceColumn, RoundTripLargeAcrossStagingChunks) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(4);
  Schema s;
  s.fields = {{"i", DataType::Int64()},
              {"s", DataType::String()},
              {"b", DataType::Bool()},
              {"d", DataType::Decimal(30, 4)}};
  // 40 MB of decimals: more than one 32 MiB staging chunk; odd batch lengths.
  RoundTrip(RandomTable(s, {1250001, 1250003, 3}, rng, 0.1));
}

TEST(GpuDeviceColumn, LargeOffsetsComeBackAsInt32WhenSmall) {
  TANDEM_REQUIRE_GPU();
  // A host string column with int64 offsets (as after a > 2 GiB column), three rows.
  auto offsets = Buffer::Allocate(4 * 8);
  int64_t* o = offsets->mutable_data_as<int64_t>();
  o[0] = 0, o[1] = 3, o[2] = 3, o[3] = 8;
  auto data = Buffer::CopyOf("abcdefgh", 8);
  auto col = std::make_shared<Column>(DataType::String(), 3, 0, nullptr, offsets, data, true);
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  auto device = ColumnToDevice(*col, *stream);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  auto back = ColumnToHost(**device, *stream);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE((*back)->large_offsets());
  ASSERT_TRUE((*back)->Validate().ok());
  EXPECT_EQ((*back)->GetString(0), "abc");
  EXPECT_EQ((*back)->GetString(1), "");
  EXPECT_EQ((*back)->GetString(2), "defgh");
}

// Gather with indices including -1 and repeats, against the CPU Take on the combined batch.
TEST(GpuDeviceColumn, GatherMatchesTake) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(5);
  const Table host = RandomTable(AllTypesSchema(), {300, 211}, rng, 0.25);
  const int64_t n = host.num_rows();
  for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{9}, int64_t{1000}}) {
    std::vector<int64_t> indices(count);
    std::uniform_int_distribution<int64_t> pick(-1, n - 1);
    for (auto& i : indices) i = pick(rng);
    auto stream = Stream::Create();
    ASSERT_TRUE(stream.ok());
    auto device = ToDevice(host, *stream);
    ASSERT_TRUE(device.ok());
    auto d_idx = DeviceBuffer::Allocate(count * 8, *stream);
    ASSERT_TRUE(d_idx.ok());
    ASSERT_TRUE(CopyToDevice(d_idx->data(), indices.data(), count * 8, *stream).ok());
    auto gathered = Gather(**device, d_idx->data_as<const int64_t>(), count, *stream);
    ASSERT_TRUE(gathered.ok()) << gathered.status().ToString();
    auto back = ToHost(**gathered, *stream);
    ASSERT_TRUE(back.ok()) << back.status().ToString();

    const BatchPtr combined = CombineBatches(host);
    Table expected;
    expected.schema = host.schema;
    if (count > 0) {
      auto b = std::make_shared<Batch>();
      b->schema = host.schema;
      b->num_rows = count;
      for (const auto& col : combined->columns)
        b->columns.push_back(Take(*col, indices.data(), count));
      expected.batches.push_back(b);
    }
    ExpectTablesEqual(expected, *back);

    // One column on its own.
    auto one =
        GatherColumn(*(*device)->columns[15], d_idx->data_as<const int64_t>(), count, *stream);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ((*one)->length, count);
    EXPECT_EQ((*one)->null_count, (*gathered)->columns[15]->null_count);
  }
}

TEST(GpuDeviceColumn, SliceRowsAndDeviceBytes) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(6);
  const Table host = RandomTable(AllTypesSchema(), {50, 45}, rng, 0.3);
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  auto device = ToDevice(host, *stream);
  ASSERT_TRUE(device.ok());
  EXPECT_GT(DeviceBytes(**device), 0);
  const BatchPtr combined = CombineBatches(host);
  for (auto [begin, length] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 95}, {3, 17}, {13, 0}, {94, 1}, {8, 80}}) {
    auto slice = SliceRows(**device, begin, length, *stream);
    ASSERT_TRUE(slice.ok()) << slice.status().ToString();
    auto back = ToHost(**slice, *stream);
    ASSERT_TRUE(back.ok());
    std::vector<int64_t> rows(length);
    for (int64_t i = 0; i < length; ++i) rows[i] = begin + i;
    Table expected;
    expected.schema = host.schema;
    if (length > 0) {
      auto b = std::make_shared<Batch>();
      b->schema = host.schema;
      b->num_rows = length;
      for (const auto& col : combined->columns)
        b->columns.push_back(Take(*col, rows.data(), length));
      expected.batches.push_back(b);
    }
    ExpectTablesEqual(expected, *back);
  }
  EXPECT_FALSE(SliceRows(**device, 90, 6, *stream).ok());
}

}  // namespace
}  // namespace tandem::gpu
