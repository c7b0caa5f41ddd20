// Spark's UnsafeRow blocks into Tandem batches: every type the fragments read, NULLs in every
// position, wide decimals (big-endian two's complement of any length), strings with multi-byte
// characters, empty blocks; and malformed blocks as clear errors, never reads past the block.
#include "tandem/spark/unsafe_rows.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tandem/column/column_builder.h"
#include "tandem/format/value_format.h"
#include "tandem/spark/unsafe_row_writer.h"

namespace tandem::spark {
namespace {

Schema AllTypes() {
  return Schema{{{"b", DataType::Bool()},
                 {"i8", DataType::Int8()},
                 {"i16", DataType::Int16()},
                 {"i32", DataType::Int32()},
                 {"i64", DataType::Int64()},
                 {"f32", DataType::Float32()},
                 {"f64", DataType::Float64()},
                 {"d", DataType::Date32()},
                 {"ts", DataType::Timestamp(true)},
                 {"dec", DataType::Decimal(15, 2)},
                 {"wide", DataType::Decimal(38, 6)},
                 {"s", DataType::String()}}};
}

Value Int(const DataType& t, int64_t v) {
  Value x = Value::Int64(v);
  x.type = t;
  return x;
}

std::vector<Value> Row(int64_t k) {
  const Schema s = AllTypes();
  Value f32 = Value::Float64(static_cast<float>(k) / 4);
  f32.type = DataType::Float32();
  int128_t wide = 1;
  for (int i = 0; i < 36; ++i) wide *= 10;
  return {Value::Bool(k % 2 == 0),
          Int(DataType::Int8(), -k),
          Int(DataType::Int16(), 300 * k),
          Int(DataType::Int32(), -70000 * k),
          Value::Int64(INT64_MIN + k),
          f32,
          Value::Float64(k * 1.5),
          Value::Date32(static_cast<int32_t>(k - 3)),
          Value::Timestamp(k * 1000000, true),
          Value::Decimal(-12345 * k, 15, 2),
          Value::Decimal(k % 3 == 0 ? -wide - k : k - 1, 38, 6),
          Value::String(std::string(static_cast<size_t>(k), 'x') + "é€")};
}

std::string Cell(const Column& c, int64_t row) {
  if (c.IsNull(row)) return "NULL";
  std::string out;
  format::AppendText(c, row, &out);
  return out;
}

TEST(UnsafeRows, EveryTypeRoundTripsWithNullsEverywhere) {
  const Schema schema = AllTypes();
  std::vector<std::vector<Value>> rows;
  for (int64_t k = 0; k < 30; ++k) {
    std::vector<Value> r = Row(k);
    r[k % r.size()] = Value::Null(schema.field(static_cast<int>(k % r.size())).type);
    rows.push_back(std::move(r));
  }
  const std::string block = EncodeUnsafeRows(schema, rows);
  auto batch = DecodeUnsafeRows(schema, reinterpret_cast<const uint8_t*>(block.data()),
                                static_cast<int64_t>(block.size()), 30);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ((*batch)->num_rows, 30);
  for (int64_t k = 0; k < 30; ++k) {
    for (int f = 0; f < schema.num_fields(); ++f) {
      const Column& c = *(*batch)->column(f);
      ASSERT_EQ(c.type(), schema.field(f).type);
      const Value& want = rows[k][f];
      if (want.is_null) {
        EXPECT_TRUE(c.IsNull(k)) << schema.field(f).name << " row " << k;
        continue;
      }
      ColumnBuilder one(want.type);
      if (want.type.is_string_like()) {
        one.AppendString(want.str);
      } else if (want.type.id == TypeId::kBool) {
        one.AppendBool(want.AsBool());
      } else if (want.type.is_wide_decimal()) {
        one.Append<int128_t>(want.DecimalUnscaled());
      } else if (want.type.is_floating()) {
        if (want.type.id == TypeId::kFloat32) {
          one.Append<float>(static_cast<float>(want.f64));
        } else {
          one.Append<double>(want.f64);
        }
      } else if (want.type.byte_width() == 4) {
        one.Append<int32_t>(static_cast<int32_t>(want.i64));
      } else if (want.type.byte_width() == 2) {
        one.Append<int16_t>(static_cast<int16_t>(want.i64));
      } else if (want.type.byte_width() == 1) {
        one.Append<int8_t>(static_cast<int8_t>(want.i64));
      } else {
        one.Append<int64_t>(want.i64);
      }
      EXPECT_EQ(Cell(c, k), Cell(*one.Finish(), 0)) << schema.field(f).name << " row " << k;
    }
  }
}

TEST(UnsafeRows, TheNativeWriterGivesWhatItReadsAndSparksLayout) {
  // Batch -> UnsafeRows (the output side) -> batch again: every value and NULL survives; rows
  // are 8-byte multiples, NULL slots are zero, and a wide decimal keeps its 16 bytes even NULL.
  const Schema schema = AllTypes();
  std::vector<std::vector<Value>> rows;
  for (int64_t k = 0; k < 40; ++k) {
    std::vector<Value> r = Row(k);
    r[k % r.size()] = Value::Null(schema.field(static_cast<int>(k % r.size())).type);
    rows.push_back(std::move(r));
  }
  const std::string in = EncodeUnsafeRows(schema, rows);
  auto batch = DecodeUnsafeRows(schema, reinterpret_cast<const uint8_t*>(in.data()),
                                static_cast<int64_t>(in.size()), 40);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto block = EncodeBatchAsUnsafeRows(**batch);
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_EQ(block->rows, 40);
  auto again = DecodeUnsafeRows(schema, block->bytes->data(), block->size, 40);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (int f = 0; f < schema.num_fields(); ++f) {
    for (int64_t k = 0; k < 40; ++k) {
      EXPECT_EQ(Cell(*(*again)->column(f), k), Cell(*(*batch)->column(f), k))
          << schema.field(f).name << " row " << k;
    }
  }
  const uint8_t* p = block->bytes->data();
  const int wide = 10;  // AllTypes' decimal(38, 6)
  for (int64_t k = 0, at = 0; k < 40; ++k) {
    int32_t size = 0;
    std::memcpy(&size, p + at, 4);
    EXPECT_EQ(size % 8, 0);
    const uint8_t* row = p + at + 8;
    for (int f = 0; f < schema.num_fields(); ++f) {
      uint64_t slot = 0;
      std::memcpy(&slot, row + 8 + 8 * f, 8);
      const bool null = (row[f / 8] >> (f % 8)) & 1;
      EXPECT_EQ(null, rows[k][f].is_null);
      if (null && f != wide) {
        EXPECT_EQ(slot, 0u) << schema.field(f).name << " row " << k;
      }
      if (f == wide) EXPECT_NE(slot >> 32, 0u) << "the 16 bytes of a wide decimal, row " << k;
    }
    at += 8 + size;
  }
}

TEST(UnsafeRows, AnEmptyBlockIsAnEmptyBatch) {
  auto batch = DecodeUnsafeRows(AllTypes(), nullptr, 0, 0);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)->num_rows, 0);
  EXPECT_EQ((*batch)->num_columns(), AllTypes().num_fields());
}

TEST(UnsafeRows, MalformedBlocksAreErrors) {
  const Schema schema = AllTypes();
  std::string block = EncodeUnsafeRows(schema, {Row(3)});
  const auto* p = reinterpret_cast<const uint8_t*>(block.data());
  const int64_t n = static_cast<int64_t>(block.size());
  // Fewer bytes than the rows claim.
  EXPECT_FALSE(DecodeUnsafeRows(schema, p, n - 9, 1).ok());
  EXPECT_FALSE(DecodeUnsafeRows(schema, p, n, 2).ok());
  // A string slot pointing past the row.
  std::string bad = block;
  const size_t slot = kRowHeaderBytes + 8 + 8 * 11;  // header, bitset, the string field's slot
  uint64_t word = (uint64_t{1} << 40) | 5;
  std::memcpy(bad.data() + slot, &word, 8);
  auto r = DecodeUnsafeRows(schema, reinterpret_cast<const uint8_t*>(bad.data()), n, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("points past the row"), std::string::npos)
      << r.status().ToString();
  // A size smaller than the fixed part.
  std::string tiny = block;
  const int32_t size = 8;
  std::memcpy(tiny.data(), &size, 4);
  EXPECT_FALSE(DecodeUnsafeRows(schema, reinterpret_cast<const uint8_t*>(tiny.data()), n, 1).ok());
  // A size that is not a multiple of 8 (UnsafeRow's never is).
  std::string odd = block;
  int32_t odd_size = 0;
  std::memcpy(&odd_size, odd.data(), 4);
  odd_size -= 4;
  std::memcpy(odd.data(), &odd_size, 4);
  EXPECT_FALSE(DecodeUnsafeRows(schema, reinterpret_cast<const uint8_t*>(odd.data()), n, 1).ok());
}

}  // namespace
}  // namespace tandem::spark
