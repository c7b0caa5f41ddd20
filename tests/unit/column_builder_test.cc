// Columns and builders: values, nulls, string offsets, validation.
#include "tandem/column/column_builder.h"

#include <gtest/gtest.h>

#include "tandem/column/batch.h"

namespace tandem {

TEST(ColumnBuilder, Int64WithNulls) {
  ColumnBuilder b(DataType::Int64());
  b.Append<int64_t>(1);
  b.AppendNull();
  b.Append<int64_t>(-3);
  auto c = b.Finish();
  ASSERT_EQ(c->length(), 3);
  EXPECT_EQ(c->null_count(), 1);
  EXPECT_TRUE(c->IsValid(0));
  EXPECT_TRUE(c->IsNull(1));
  EXPECT_EQ(c->Value<int64_t>(2), -3);
  EXPECT_TRUE(c->Validate().ok());
}

TEST(ColumnBuilder, NoNullsMeansNoBitmap) {
  ColumnBuilder b(DataType::Float64());
  for (int i = 0; i < 1000; ++i) b.Append<double>(i * 0.5);
  auto c = b.Finish();
  EXPECT_FALSE(c->has_validity());
  EXPECT_EQ(c->Value<double>(999), 499.5);
}

TEST(ColumnBuilder, StringsAndEmptyStrings) {
  ColumnBuilder b(DataType::String());
  b.AppendString("abc");
  b.AppendString("");
  b.AppendNull();
  b.AppendString("xyz!");
  auto c = b.Finish();
  ASSERT_TRUE(c->Validate().ok());
  EXPECT_EQ(c->GetString(0), "abc");
  EXPECT_EQ(c->GetString(1), "");
  EXPECT_TRUE(c->IsNull(2));
  EXPECT_EQ(c->GetString(2), "");
  EXPECT_EQ(c->GetString(3), "xyz!");
  EXPECT_FALSE(c->large_offsets());
}

TEST(ColumnBuilder, BooleansAreBitPacked) {
  ColumnBuilder b(DataType::Bool());
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 3) {
      b.AppendNull();
    } else {
      b.AppendBool(i % 2 == 0);
    }
  }
  auto c = b.Finish();
  EXPECT_EQ(c->null_count(), 3);
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 3) {
      EXPECT_TRUE(c->IsNull(i));
    } else {
      EXPECT_EQ(c->GetBool(i), i % 2 == 0) << i;
    }
  }
}

TEST(ColumnBuilder, WideDecimal) {
  ColumnBuilder b(DataType::Decimal(38, 4));
  int128_t big = static_cast<int128_t>(1) << 100;
  b.Append<int128_t>(big);
  b.Append<int128_t>(-big);
  auto c = b.Finish();
  EXPECT_EQ(c->type().byte_width(), 16);
  EXPECT_TRUE(c->Value<int128_t>(0) == big);
  EXPECT_TRUE(c->Value<int128_t>(1) == -big);
}

TEST(ColumnBuilder, SetNullAfterBulkAppend) {
  ColumnBuilder b(DataType::Int32());
  auto* out = reinterpret_cast<int32_t*>(b.AppendUninitialized(100));
  for (int i = 0; i < 100; ++i) out[i] = i;
  b.SetNull(5);
  b.SetNull(5);
  auto c = b.Finish();
  EXPECT_EQ(c->null_count(), 1);
  EXPECT_TRUE(c->IsNull(5));
  EXPECT_EQ(c->Value<int32_t>(99), 99);
  EXPECT_TRUE(c->Validate().ok());
}

TEST(Batch, ValidateCatchesLengthMismatch) {
  Batch batch;
  batch.schema.fields = {{"a", DataType::Int64(), true}};
  ColumnBuilder b(DataType::Int64());
  b.Append<int64_t>(1);
  batch.columns.push_back(b.Finish());
  batch.num_rows = 2;
  EXPECT_FALSE(batch.Validate().ok());
  batch.num_rows = 1;
  EXPECT_TRUE(batch.Validate().ok());
}

}  // namespace tandem
