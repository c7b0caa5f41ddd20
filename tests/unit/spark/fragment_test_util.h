// Shared by the fragment tests (unit and GPU): builders for fragment JSON (docs/spark_fragment.md)
// and a small Parquet table in several row groups with NULLs, negative decimals and repeated
// keys, plus the same data as an in-memory table for Tandem SQL to compute the expected answers.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tandem/column/column_builder.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/spark/fragment_json.h"

namespace tandem::spark::test {

using Json = nlohmann::json;

inline Json Type(const DataType& t) { return TypeToJson(t); }
inline Json F(const std::string& name, const DataType& t, bool nullable = true) {
  return {{"name", name}, {"type", Type(t)}, {"nullable", nullable}};
}
inline Json Col(int i, const DataType& t) {
  return {{"kind", "col"}, {"index", i}, {"type", Type(t)}};
}
inline Json Lit(const DataType& t, Json v) {
  return {{"kind", "lit"}, {"type", Type(t)}, {"value", v}};
}
inline Json Call(const std::string& fn, Json args, const DataType& t, const char* mode = nullptr) {
  Json j = {{"kind", "call"}, {"fn", fn}, {"args", args}, {"type", Type(t)}};
  if (mode) j["mode"] = mode;
  return j;
}
inline Json Document(Json root, Json inputs = Json::array(), const std::string& device = "cpu",
                     bool ansi = true) {
  return {{"format", "tandem-fragment"},
          {"version", 1},
          {"spark", {{"version", "4.0.1"}, {"ansi", ansi}, {"timeZone", "UTC"}}},
          {"device", device},
          {"inputs", inputs},
          {"root", root}};
}

// A frame bound and a frame (docs/spark_fragment.md, "window").
inline Json Bound(const std::string& bound, int64_t offset = 0) {
  Json b = {{"bound", bound}};
  if (bound == "preceding" || bound == "following") b["offset"] = offset;
  return b;
}
inline Json Frame(const std::string& unit, Json start, Json end) {
  return {{"unit", unit}, {"start", start}, {"end", end}};
}
inline Json WindowFn(const std::string& fn, Json args, Json frame, Json output) {
  return {{"fn", fn}, {"args", args}, {"frame", frame}, {"output", output}};
}

// The test table: k int64 (1..n/7 repeated), q decimal(15,2) (NULL every 11th), p decimal(15,2)
// (negative every 5th), flag string (4 values, NULL every 13th), d date.
inline Schema OrdersSchema() {
  return Schema{{{"k", DataType::Int64()},
                 {"q", DataType::Decimal(15, 2)},
                 {"p", DataType::Decimal(15, 2)},
                 {"flag", DataType::String()},
                 {"d", DataType::Date32()}}};
}

inline Json OrdersFields() {
  Json out = Json::array();
  for (const Field& f : OrdersSchema().fields) out.push_back(F(f.name, f.type));
  return out;
}

inline Table OrdersTable(int64_t n) {
  static const char* kFlags[] = {"A", "N", "R", "é"};
  std::vector<ColumnBuilder> b;
  for (const Field& f : OrdersSchema().fields) b.emplace_back(f.type, n);
  for (int64_t i = 0; i < n; ++i) {
    b[0].Append<int64_t>(i / 7 + 1);
    if (i % 11 == 0) {
      b[1].AppendNull();
    } else {
      b[1].Append<int64_t>((i * 37) % 5000);
    }
    b[2].Append<int64_t>(i % 5 == 0 ? -(i * 13) : i * 131);
    if (i % 13 == 0) {
      b[3].AppendNull();
    } else {
      b[3].AppendString(kFlags[i % 4]);
    }
    b[4].Append<int32_t>(static_cast<int32_t>(9000 + i % 400));
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = OrdersSchema();
  batch->num_rows = n;
  for (auto& x : b) batch->columns.push_back(x.Finish());
  Table t;
  t.schema = OrdersSchema();
  t.batches.push_back(batch);
  return t;
}

// Writes the table to `dir`/orders.parquet in row groups of `group_rows`; returns the path.
inline std::string WriteOrders(const std::filesystem::path& dir, int64_t n, int64_t group_rows) {
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "orders.parquet").string();
  parquet::WriteOptions options;
  options.row_group_rows = group_rows;
  const Status st = parquet::WriteParquet(path, OrdersTable(n), options);
  if (!st.ok()) return "";
  return path;
}

// Row r of a column as a Value (the form EncodeUnsafeRows takes).
inline Value ValueAt(const Column& c, int64_t r) {
  if (c.IsNull(r)) return Value::Null(c.type());
  Value v;
  v.type = c.type();
  v.is_null = false;
  switch (c.type().id) {
    case TypeId::kString:
    case TypeId::kBinary:
      v.str = std::string(c.GetString(r));
      break;
    case TypeId::kBool:
      v.i64 = c.GetBool(r) ? 1 : 0;
      break;
    case TypeId::kFloat32:
      v.f64 = c.Value<float>(r);
      break;
    case TypeId::kFloat64:
      v.f64 = c.Value<double>(r);
      break;
    case TypeId::kInt8:
      v.i64 = c.Value<int8_t>(r);
      break;
    case TypeId::kInt16:
      v.i64 = c.Value<int16_t>(r);
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      v.i64 = c.Value<int32_t>(r);
      break;
    default:
      if (c.type().is_wide_decimal()) {
        v.i128 = c.Value<int128_t>(r);
      } else {
        v.i64 = c.Value<int64_t>(r);
      }
  }
  return v;
}

// Every row of a table as Values.
inline std::vector<std::vector<Value>> ValueRows(const Table& t) {
  std::vector<std::vector<Value>> rows;
  for (const BatchPtr& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::vector<Value> row;
      for (int c = 0; c < b->num_columns(); ++c) row.push_back(ValueAt(*b->column(c), r));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

inline std::filesystem::path TempDir(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("tandem_" + name + "_" + std::to_string(::getpid()));
}

}  // namespace tandem::spark::test
