// Logical data types of Tandem columns and how each is laid out in memory (Arrow layout).
// Decimals up to 18 digits are stored in 64 bits, wider ones in 128 bits; timestamps are always
// microseconds since the Unix epoch, with or without a UTC time zone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/types/type_id.h"

namespace tandem {

using int128_t = __int128;
using uint128_t = unsigned __int128;


constexpr int kMaxDecimalPrecision = 38;
constexpr int kMaxDecimal64Precision = 18;

struct DataType {
  TypeId id = TypeId::kInt64;
  int8_t precision = 0;  // decimals only
  int8_t scale = 0;      // decimals only
  bool utc = false;      // timestamps only: "timestamp with time zone" (adjusted to UTC)

  static DataType Bool() { return {TypeId::kBool}; }
  static DataType Int8() { return {TypeId::kInt8}; }
  static DataType Int16() { return {TypeId::kInt16}; }
  static DataType Int32() { return {TypeId::kInt32}; }
  static DataType Int64() { return {TypeId::kInt64}; }
  static DataType UInt8() { return {TypeId::kUInt8}; }
  static DataType UInt16() { return {TypeId::kUInt16}; }
  static DataType UInt32() { return {TypeId::kUInt32}; }
  static DataType UInt64() { return {TypeId::kUInt64}; }
  static DataType Float32() { return {TypeId::kFloat32}; }
  static DataType Float64() { return {TypeId::kFloat64}; }
  static DataType Decimal(int precision, int scale) {
    return {TypeId::kDecimal, static_cast<int8_t>(precision), static_cast<int8_t>(scale)};
  }
  static DataType Date32() { return {TypeId::kDate32}; }
  static DataType Timestamp(bool utc) { return {TypeId::kTimestamp, 0, 0, utc}; }
  static DataType String() { return {TypeId::kString}; }
  static DataType Binary() { return {TypeId::kBinary}; }

  bool is_string_like() const { return id == TypeId::kString || id == TypeId::kBinary; }
  bool is_decimal() const { return id == TypeId::kDecimal; }
  bool is_wide_decimal() const {
    return id == TypeId::kDecimal && precision > kMaxDecimal64Precision;
  }
  bool is_integer() const { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }
  bool is_unsigned() const { return id >= TypeId::kUInt8 && id <= TypeId::kUInt64; }
  bool is_floating() const { return id == TypeId::kFloat32 || id == TypeId::kFloat64; }

  // Bytes per value in the values buffer; 0 for booleans (bit-packed) and strings (offsets).
  int byte_width() const;
  // Estimated bytes of one value in a batch, for cost estimates: byte_width, one byte for a
  // boolean, and for strings their 8 offset bytes (64-bit offsets) plus an assumed 16 bytes of text
  // (TPC-H's text columns average 10-40 bytes).
  double estimated_bytes() const;

  // "int64", "decimal(15,2)", "timestamp[us, tz=UTC]", "string" ...
  std::string ToString() const;

  bool operator==(const DataType& o) const {
    return id == o.id && precision == o.precision && scale == o.scale && utc == o.utc;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }
};

struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
};

struct Schema {
  std::vector<Field> fields;

  int num_fields() const { return static_cast<int>(fields.size()); }
  const Field& field(int i) const { return fields[i]; }
  // Index of the field with this exact name, or -1.
  int FieldIndex(const std::string& name) const;
  std::string ToString() const;  // one "name: type [not null]" line per field
};

}  // namespace tandem
