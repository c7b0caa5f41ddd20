// Arrow C Data Interface: export -> import round trips, zero copy by address, and release
// semantics (each release callback runs exactly once, buffers die only after the last owner).
#include <gtest/gtest.h>

#include <cstring>

#include "tandem/capi/arrow_export.h"
#include "tandem/capi/arrow_import.h"
#include "tandem/column/column_builder.h"

namespace tandem::capi {
namespace {

ColumnPtr Int64s(std::initializer_list<std::optional<int64_t>> values) {
  ColumnBuilder b(DataType::Int64());
  for (auto v : values) v ? b.Append<int64_t>(*v) : b.AppendNull();
  return b.Finish();
}

ColumnPtr Strings(DataType type, std::initializer_list<std::optional<std::string>> values) {
  ColumnBuilder b(type);
  for (const auto& v : values) v ? b.AppendString(*v) : b.AppendNull();
  return b.Finish();
}

BatchPtr MakeBatch(std::vector<Field> fields, std::vector<ColumnPtr> columns) {
  auto batch = std::make_shared<Batch>();
  batch->schema.fields = std::move(fields);
  batch->columns = std::move(columns);
  batch->num_rows = batch->columns.empty() ? 0 : batch->columns[0]->length();
  return batch;
}

// A batch with one column of every type.
BatchPtr EveryTypeBatch() {
  std::vector<Field> fields;
  std::vector<ColumnPtr> columns;
  auto add = [&](std::string name, DataType type, auto fill) {
    ColumnBuilder b(type);
    fill(b);
    b.AppendNull();
    fields.push_back({std::move(name), type, true});
    columns.push_back(b.Finish());
  };
  add("b", DataType::Bool(), [](ColumnBuilder& b) { b.AppendBool(true), b.AppendBool(false); });
  add("i8", DataType::Int8(),
      [](ColumnBuilder& b) { b.Append<int8_t>(-128), b.Append<int8_t>(7); });
  add("u16", DataType::UInt16(),
      [](ColumnBuilder& b) { b.Append<uint16_t>(65535), b.Append<uint16_t>(0); });
  add("i32", DataType::Int32(),
      [](ColumnBuilder& b) { b.Append<int32_t>(1), b.Append<int32_t>(-1); });
  add("u64", DataType::UInt64(),
      [](ColumnBuilder& b) { b.Append<uint64_t>(~0ull), b.Append<uint64_t>(1); });
  add("f32", DataType::Float32(),
      [](ColumnBuilder& b) { b.Append<float>(1.5f), b.Append<float>(-0.0f); });
  add("f64", DataType::Float64(),
      [](ColumnBuilder& b) { b.Append<double>(1e300), b.Append<double>(2); });
  add("d64", DataType::Decimal(15, 2),
      [](ColumnBuilder& b) { b.Append<int64_t>(-12345), b.Append<int64_t>(1); });
  add("d128", DataType::Decimal(30, 3), [](ColumnBuilder& b) {
    b.Append<int128_t>(static_cast<int128_t>(1) << 100), b.Append<int128_t>(-5);
  });
  add("date", DataType::Date32(),
      [](ColumnBuilder& b) { b.Append<int32_t>(19000), b.Append<int32_t>(-1); });
  add("ts", DataType::Timestamp(false),
      [](ColumnBuilder& b) { b.Append<int64_t>(1), b.Append<int64_t>(2); });
  add("tsz", DataType::Timestamp(true),
      [](ColumnBuilder& b) { b.Append<int64_t>(3), b.Append<int64_t>(4); });
  add("s", DataType::String(),
      [](ColumnBuilder& b) { b.AppendString("héllo"), b.AppendString(""); });
  add("bin", DataType::Binary(),
      [](ColumnBuilder& b) { b.AppendString(std::string("\0\1", 2)), b.AppendString("x"); });
  return MakeBatch(std::move(fields), std::move(columns));
}

void ExpectSameValues(const Batch& a, const Batch& b) {
  ASSERT_EQ(a.num_rows, b.num_rows);
  ASSERT_EQ(a.num_columns(), b.num_columns());
  for (int c = 0; c < a.num_columns(); ++c) {
    const Column& x = *a.column(c);
    const Column& y = *b.column(c);
    ASSERT_EQ(x.type(), y.type()) << a.schema.field(c).name;
    EXPECT_EQ(a.schema.field(c).name, b.schema.field(c).name);
    EXPECT_EQ(a.schema.field(c).nullable, b.schema.field(c).nullable);
    EXPECT_EQ(x.null_count(), y.null_count());
    for (int64_t r = 0; r < x.length(); ++r) {
      ASSERT_EQ(x.IsNull(r), y.IsNull(r));
      if (x.IsNull(r)) continue;
      if (x.type().is_string_like()) {
        EXPECT_EQ(x.GetString(r), y.GetString(r));
      } else if (x.type().id == TypeId::kBool) {
        EXPECT_EQ(x.GetBool(r), y.GetBool(r));
      } else {
        const int w = x.type().byte_width();
        EXPECT_EQ(0, std::memcmp(x.values()->data() + r * w, y.values()->data() + r * w, w));
      }
    }
  }
}

TEST(ArrowCInterface, FormatsFollowTheSpec) {
  EXPECT_EQ(ArrowFormat(DataType::Decimal(18, 2), false), "d:18,2,64");
  EXPECT_EQ(ArrowFormat(DataType::Decimal(19, 2), false), "d:19,2");
  EXPECT_EQ(ArrowFormat(DataType::Timestamp(true), false), "tsu:UTC");
  EXPECT_EQ(ArrowFormat(DataType::Timestamp(false), false), "tsu:");
  EXPECT_EQ(ArrowFormat(DataType::Date32(), false), "tdD");
  EXPECT_EQ(ArrowFormat(DataType::String(), true), "U");
  EXPECT_EQ(ArrowFormat(DataType::Binary(), false), "z");
}

TEST(ArrowCInterface, ExportSharesTandemBuffers) {
  BatchPtr batch = EveryTypeBatch();
  ArrowArray array;
  ASSERT_TRUE(ExportBatch(*batch, &array).ok());
  ASSERT_EQ(array.n_children, batch->num_columns());
  EXPECT_EQ(array.length, 3);
  for (int c = 0; c < batch->num_columns(); ++c) {
    const Column& col = *batch->column(c);
    const ArrowArray* child = array.children[c];
    EXPECT_EQ(child->length, col.length());
    EXPECT_EQ(child->null_count, 1);
    EXPECT_EQ(child->offset, 0);
    EXPECT_EQ(child->buffers[0], col.validity()->data());
    EXPECT_EQ(child->buffers[1], col.values()->data());
    if (col.type().is_string_like()) {
      ASSERT_EQ(child->n_buffers, 3);
      EXPECT_EQ(child->buffers[2], col.data()->data());
    }
  }
  array.release(&array);
  EXPECT_EQ(array.release, nullptr);
}

TEST(ArrowCInterface, ExportImportRoundTripIsZeroCopy) {
  BatchPtr batch = EveryTypeBatch();
  batch->schema.fields[2].nullable = false;
  batch->columns[2] = [] {
    ColumnBuilder b(DataType::UInt16());
    for (uint16_t v : {1, 2, 3}) b.Append<uint16_t>(v);
    return b.Finish();
  }();
  ArrowSchema schema;
  ArrowArray array;
  ASSERT_TRUE(ExportSchema(batch->schema, &schema).ok());
  ASSERT_TRUE(ExportBatch(*batch, &array).ok());
  Result<BatchPtr> back = ImportBatch(&array, schema);
  schema.release(&schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(array.release, nullptr);  // moved into the import
  ExpectSameValues(*batch, **back);
  for (int c = 0; c < batch->num_columns(); ++c) {
    EXPECT_EQ(batch->column(c)->values()->data(), (*back)->column(c)->values()->data());
  }
}

TEST(ArrowCInterface, ReleaseFreesBuffersExactlyOnceAfterLastOwner) {
  int freed = 0;
  auto storage = Buffer::CopyOf("\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 16);
  auto values = Buffer::Wrap(storage->data(), 16, [&freed] { ++freed; });
  auto batch = MakeBatch({{"x", DataType::Int64(), false}},
                         {std::make_shared<Column>(DataType::Int64(), 2, 0, nullptr, values)});
  values.reset();
  ArrowArray array;
  ASSERT_TRUE(ExportBatch(*batch, &array).ok());
  batch.reset();
  EXPECT_EQ(freed, 0);  // the export keeps the buffer alive
  // Move a child out, as consumers may; the parent release must then skip it.
  ArrowArray child = *array.children[0];
  array.children[0]->release = nullptr;
  array.release(&array);
  EXPECT_EQ(freed, 0);
  EXPECT_EQ(static_cast<const int64_t*>(child.buffers[1])[1], 2);
  child.release(&child);
  EXPECT_EQ(freed, 1);
  EXPECT_EQ(child.release, nullptr);
}

// A hand-made producer array (int32 "i" in a struct) whose release counts its calls.
struct Producer {
  static inline int releases = 0;
  int32_t values[4] = {10, 20, 30, 40};
  uint8_t validity[1] = {0b1011};
  const void* child_buffers[2] = {validity, values};
  const void* parent_buffers[1] = {nullptr};
  ArrowArray child{};
  ArrowArray* children[1] = {&child};
  ArrowArray parent{};

  Producer(int64_t offset, int64_t length) {
    child = {4, -1, 0, 2, 0, child_buffers, nullptr, nullptr, nullptr, nullptr};
    child.release = [](ArrowArray* a) { a->release = nullptr; };
    parent = {length, 0, offset, 1, 1, parent_buffers, children, nullptr, nullptr, nullptr};
    parent.release = [](ArrowArray* a) {
      ++releases;
      for (int i = 0; i < a->n_children; ++i) {
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
      }
      a->release = nullptr;
    };
  }
};

ImportedSchema Int32Schema() {
  ImportedSchema s;
  s.schema.fields.push_back({"v", DataType::Int32(), true});
  s.layouts.push_back({"i", 0, 1, 1});
  return s;
}

TEST(ArrowCInterface, ImportReleasesProducerWhenLastBufferDies) {
  Producer::releases = 0;
  Producer producer(0, 4);
  Result<BatchPtr> batch = ImportBatch(&producer.parent, Int32Schema());
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(producer.parent.release, nullptr);
  const Column& col = *(*batch)->column(0);
  EXPECT_EQ(col.values()->data(), reinterpret_cast<const uint8_t*>(producer.values));
  EXPECT_EQ(col.null_count(), 1);
  EXPECT_TRUE(col.IsNull(2));
  ColumnPtr keep = (*batch)->column(0);
  batch = Status::Invalid("drop the batch");
  EXPECT_EQ(Producer::releases, 0);
  keep.reset();
  EXPECT_EQ(Producer::releases, 1);
}

TEST(ArrowCInterface, ImportAtOddOffsetCopiesBitmapAndSharesValues) {
  Producer::releases = 0;
  {
    Producer producer(1, 3);
    Result<BatchPtr> batch = ImportBatch(&producer.parent, Int32Schema());
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    const Column& col = *(*batch)->column(0);
    EXPECT_EQ(col.length(), 3);
    EXPECT_EQ(col.Value<int32_t>(0), 20);
    EXPECT_TRUE(col.IsNull(1));
    EXPECT_EQ(col.Value<int32_t>(2), 40);
    EXPECT_EQ(col.values()->data(), reinterpret_cast<const uint8_t*>(producer.values + 1));
  }
  EXPECT_EQ(Producer::releases, 1);
}

TEST(ArrowCInterface, ImportErrorReleasesOnce) {
  Producer::releases = 0;
  Producer producer(0, 4);
  ImportedSchema two = Int32Schema();
  two.schema.fields.push_back({"w", DataType::Int32(), true});
  two.layouts.push_back({"i", 0, 1, 1});
  Result<BatchPtr> batch = ImportBatch(&producer.parent, two);
  EXPECT_FALSE(batch.ok());
  EXPECT_EQ(Producer::releases, 1);
  EXPECT_EQ(producer.parent.release, nullptr);
}

TEST(ArrowCInterface, ChildShorterThanItsStructIsRejected) {
  Producer::releases = 0;
  Producer producer(2, 3);  // child has 4 rows; offset 2 + length 3 runs past it
  Result<BatchPtr> batch = ImportBatch(&producer.parent, Int32Schema());
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("column v"), std::string::npos);
  EXPECT_EQ(Producer::releases, 1);
}

TEST(ArrowCInterface, StreamRoundTripKeepsLargeOffsetsAndReleases) {
  Table table;
  table.schema.fields = {{"id", DataType::Int64(), false}, {"s", DataType::String(), true}};
  auto large = [] {
    // The same strings with int64 offsets, as a column past 2 GiB would have them.
    ColumnPtr small = Strings(DataType::String(), {"a", std::nullopt});
    auto offsets = Buffer::Allocate(3 * 8);
    for (int i = 0; i <= 2; ++i) offsets->mutable_data_as<int64_t>()[i] = small->StringOffset(i);
    return std::make_shared<Column>(DataType::String(), 2, 1, small->validity(), offsets,
                                    small->data(), true);
  }();
  table.batches.push_back(
      MakeBatch(table.schema.fields,
                {Int64s({1, 2, 3}), Strings(DataType::String(), {"x", "", std::nullopt})}));
  table.batches.push_back(MakeBatch(table.schema.fields, {Int64s({4, 5}), large}));
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportTable(table, &stream).ok());
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  EXPECT_STREQ(schema.children[1]->format, "U");  // one large batch makes the column large
  EXPECT_EQ(schema.children[0]->flags, 0);
  EXPECT_EQ(schema.children[1]->flags, ARROW_FLAG_NULLABLE);
  schema.release(&schema);
  Result<Table> back = ImportStream(&stream);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(stream.release, nullptr);
  ASSERT_EQ(back->batches.size(), 2u);
  EXPECT_TRUE(back->batches[0]->column(1)->large_offsets());
  EXPECT_EQ(back->batches[0]->column(1)->GetString(0), "x");
  EXPECT_EQ(back->batches[1]->column(1)->GetString(0), "a");
  EXPECT_TRUE(back->batches[1]->column(1)->IsNull(1));
  // The widened offsets are a copy; the string bytes are still Tandem's.
  EXPECT_EQ(back->batches[0]->column(1)->data()->data(),
            table.batches[0]->column(1)->data()->data());
}

TEST(ArrowCInterface, UnsupportedFormatNamesFormatAndColumn) {
  ArrowSchema child{};
  child.format = "vu";
  child.name = "views";
  child.flags = ARROW_FLAG_NULLABLE;
  ArrowSchema* children[1] = {&child};
  ArrowSchema top{};
  top.format = "+s";
  top.n_children = 1;
  top.children = children;
  top.release = [](ArrowSchema* s) { s->release = nullptr; };
  Result<Schema> schema = ImportSchema(&top);
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().ToString(), "not supported yet: Arrow format 'vu' (column views)");
  EXPECT_EQ(top.release, nullptr);
}

TEST(ArrowCInterface, MalformedDecimalFormatsAreRejected) {
  for (const char* format : {"d:", "d:5", "d:5,", "d:5,2,64,1", "d:x,2", "d:0,0", "d:40,2",
                             "d:19,2,64", "d:5,6", "d:5,-1", "d:5,2,256"}) {
    ArrowSchema child{};
    child.format = format;
    child.name = "d";
    ArrowSchema* children[1] = {&child};
    ArrowSchema top{};
    top.format = "+s";
    top.n_children = 1;
    top.children = children;
    top.release = [](ArrowSchema* s) { s->release = nullptr; };
    EXPECT_FALSE(ParseArrowSchema(top).ok()) << format;
  }
}

}  // namespace
}  // namespace tandem::capi
