// Test helpers for GPU column tests: random host columns of every type (NULLs, duplicates, NaN,
// -0.0, infinities, strings with shared prefixes, empty strings and zero bytes) and a bit-exact,
// row-by-row comparison of two host tables whatever their batch boundaries.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/column/table.h"

namespace tandem::gpu::testing {

inline std::vector<DataType> AllTypes() {
  return {DataType::Bool(),         DataType::Int8(),    DataType::Int16(),
          DataType::Int32(),        DataType::Int64(),   DataType::UInt8(),
          DataType::UInt16(),       DataType::UInt32(),  DataType::UInt64(),
          DataType::Float32(),      DataType::Float64(), DataType::Decimal(12, 2),
          DataType::Decimal(30, 4), DataType::Date32(),  DataType::Timestamp(true),
          DataType::String(),       DataType::Binary()};
}

// `distinct` bounds how many different values appear (small values give many ties).
inline ColumnPtr RandomColumn(const DataType& type, int64_t n, std::mt19937_64& rng,
                              double null_rate, int distinct = 1000) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  ColumnBuilder b(type, n);
  const double doubles[] = {NAN, -NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -2.25, 1e300, -1e-300};
  const std::string prefix = "shared-prefix-longer-than-sixteen-bytes/";
  for (int64_t i = 0; i < n; ++i) {
    if (unit(rng) < null_rate) {
      b.AppendNull();
      continue;
    }
    const int v = pick(rng);
    const int64_t sv = v - distinct / 2;
    switch (type.id) {
      case TypeId::kBool:
        b.AppendBool(v % 2 == 1);
        break;
      case TypeId::kInt8:
        b.Append<int8_t>(static_cast<int8_t>(sv % 128));
        break;
      case TypeId::kInt16:
        b.Append<int16_t>(static_cast<int16_t>(sv * 37));
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        b.Append<int32_t>(static_cast<int32_t>(sv * 1000003));
        break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        b.Append<int64_t>(v == 0 ? std::numeric_limits<int64_t>::min() : sv * 1000000007LL);
        break;
      case TypeId::kUInt8:
        b.Append<uint8_t>(static_cast<uint8_t>(v * 7));
        break;
      case TypeId::kUInt16:
        b.Append<uint16_t>(static_cast<uint16_t>(v * 65));
        break;
      case TypeId::kUInt32:
        b.Append<uint32_t>(static_cast<uint32_t>(v) * 4000037u);
        break;
      case TypeId::kUInt64:
        b.Append<uint64_t>(v == 1 ? std::numeric_limits<uint64_t>::max()
                                  : static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ull);
        break;
      case TypeId::kFloat32:
        b.Append<float>(v % 3 == 0 ? static_cast<float>(doubles[v % 10])
                                   : static_cast<float>(sv) / 4);
        break;
      case TypeId::kFloat64:
        b.Append<double>(v % 3 == 0 ? doubles[v % 10] : static_cast<double>(sv) / 8);
        break;
      case TypeId::kDecimal:
        if (type.is_wide_decimal()) {
          b.Append<int128_t>((static_cast<int128_t>(sv) << 70) + (v % 5) - 2);
        } else {
          b.Append<int64_t>(sv * 12345);
        }
        break;
      case TypeId::kString:
      case TypeId::kBinary: {
        std::string s = v % 4 == 0 ? "" : std::to_string(v * 7919);
        if (v % 3 == 0) s = prefix + s;
        if (v % 5 == 0) s.push_back('\0');
        if (v % 7 == 0) s += "\xC3\xA9\xFF";  // bytes above 0x7F compare unsigned
        b.AppendString(s);
        break;
      }
    }
  }
  return b.Finish();
}

// A table over batches of the given lengths, all columns random.
inline Table RandomTable(const Schema& schema, const std::vector<int64_t>& batch_lengths,
                         std::mt19937_64& rng, double null_rate, int distinct = 1000) {
  Table t;
  t.schema = schema;
  for (int64_t len : batch_lengths) {
    auto batch = std::make_shared<Batch>();
    batch->schema = schema;
    batch->num_rows = len;
    for (const Field& f : schema.fields) {
      batch->columns.push_back(RandomColumn(f.type, len, rng, null_rate, distinct));
    }
    t.batches.push_back(batch);
  }
  return t;
}

// Appends a column of row numbers 0..n-1 (int64) to the table: identifies rows after a sort.
inline Table WithRowIds(const Table& in) {
  Table t;
  t.schema = in.schema;
  t.schema.fields.push_back({"row_id", DataType::Int64(), false});
  int64_t next = 0;
  for (const auto& b : in.batches) {
    auto copy = std::make_shared<Batch>(*b);
    copy->schema = t.schema;
    ColumnBuilder ids(DataType::Int64(), b->num_rows);
    for (int64_t i = 0; i < b->num_rows; ++i) ids.Append<int64_t>(next++);
    copy->columns.push_back(ids.Finish());
    t.batches.push_back(copy);
  }
  return t;
}

inline bool CellsEqual(const Column& a, int64_t ra, const Column& b, int64_t rb) {
  if (a.IsNull(ra) || b.IsNull(rb)) return a.IsNull(ra) == b.IsNull(rb);
  const DataType& type = a.type();
  if (type.id == TypeId::kBool) return a.GetBool(ra) == b.GetBool(rb);
  if (type.is_string_like()) return a.GetString(ra) == b.GetString(rb);
  const int w = type.byte_width();
  return std::memcmp(a.values()->data() + ra * w, b.values()->data() + rb * w, w) == 0;
}

inline std::string CellText(const Column& c, int64_t r) {
  if (c.IsNull(r)) return "NULL";
  const DataType& type = c.type();
  if (type.id == TypeId::kBool) return c.GetBool(r) ? "true" : "false";
  if (type.is_string_like()) return "'" + std::string(c.GetString(r)) + "'";
  if (type.id == TypeId::kFloat64) return std::to_string(c.Value<double>(r));
  if (type.id == TypeId::kFloat32) return std::to_string(c.Value<float>(r));
  std::string hex;
  const int w = type.byte_width();
  for (int i = w - 1; i >= 0; --i) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", c.values()->data()[r * w + i]);
    hex += buf;
  }
  return "0x" + hex;
}

// Same schema types, same rows in the same order, values bit-exact (NULLs equal).
inline void ExpectTablesEqual(const Table& expected, const Table& actual) {
  ASSERT_EQ(expected.schema.num_fields(), actual.schema.num_fields());
  for (int c = 0; c < expected.schema.num_fields(); ++c) {
    ASSERT_EQ(expected.schema.field(c).type, actual.schema.field(c).type) << "column " << c;
  }
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (const auto& b : actual.batches) {
    for (const auto& col : b->columns)
      ASSERT_TRUE(col->Validate().ok()) << col->Validate().message();
  }
  size_t eb = 0, ab = 0;
  int64_t er = 0, ar = 0, row = 0, failures = 0;
  while (row < expected.num_rows()) {
    while (er >= expected.batches[eb]->num_rows) ++eb, er = 0;
    while (ar >= actual.batches[ab]->num_rows) ++ab, ar = 0;
    for (int c = 0; c < expected.schema.num_fields(); ++c) {
      const Column& e = *expected.batches[eb]->column(c);
      const Column& a = *actual.batches[ab]->column(c);
      if (!CellsEqual(e, er, a, ar)) {
        ADD_FAILURE() << "row " << row << " column " << c << " (" << e.type().ToString()
                      << "): expected " << CellText(e, er) << ", got " << CellText(a, ar);
        if (++failures >= 10) return;
      }
    }
    ++er, ++ar, ++row;
  }
}

}  // namespace tandem::gpu::testing
