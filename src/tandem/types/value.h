// Value: one scalar of any Tandem type, or NULL. Used for SQL literals, constant folding,
// statistics and results of scalar subqueries. Storage follows the column layout: integers,
// booleans, dates, timestamps and decimals up to 18 digits in `i64` (decimals unscaled),
// decimals above 18 digits in `i128`, floats in `f64`, strings and binary in `str`.
#pragma once

#include <string>

#include "tandem/types/data_type.h"

namespace tandem {

struct Value {
  DataType type = DataType::Int64();
  bool is_null = true;
  int64_t i64 = 0;
  int128_t i128 = 0;
  double f64 = 0;
  std::string str;

  static Value Null(DataType t) {
    Value v;
    v.type = t;
    return v;
  }
  static Value Bool(bool b) { return Of(DataType::Bool(), b ? 1 : 0); }
  static Value Int32(int32_t x) { return Of(DataType::Int32(), x); }
  static Value Int64(int64_t x) { return Of(DataType::Int64(), x); }
  static Value Date32(int32_t days) { return Of(DataType::Date32(), days); }
  static Value Timestamp(int64_t micros, bool utc) { return Of(DataType::Timestamp(utc), micros); }
  static Value Float64(double x) {
    Value v = Of(DataType::Float64(), 0);
    v.f64 = x;
    return v;
  }
  // Unscaled decimal; stored in i64 or i128 according to the precision.
  static Value Decimal(int128_t unscaled, int precision, int scale);
  static Value String(std::string s) {
    Value v = Of(DataType::String(), 0);
    v.str = std::move(s);
    return v;
  }

  bool AsBool() const { return i64 != 0; }
  // Unscaled decimal value whatever the storage width.
  int128_t DecimalUnscaled() const { return type.is_wide_decimal() ? i128 : int128_t{i64}; }

  // SQL text of the value: 12.30, 'abc', DATE '1998-12-01', NULL ...
  std::string ToString() const;
  // Equality of type and value (NULL == NULL here; this is not SQL comparison).
  bool operator==(const Value& o) const;

 private:
  static Value Of(DataType t, int64_t x) {
    Value v;
    v.type = t;
    v.is_null = false;
    v.i64 = x;
    return v;
  }
};

}  // namespace tandem
