// ThriftCompactWriter: appends Thrift compact-protocol bytes (the encoding of every Parquet
// footer and page header) to a string. Callers name each field by its id from parquet.thrift;
// the writer tracks the previous field id of every open struct to emit short delta headers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/io/parquet/thrift_compact_types.h"

namespace tandem::parquet {

class ThriftCompactWriter {
 public:
  explicit ThriftCompactWriter(std::string* out) : out_(out) {}

  // Structs: BeginStruct() for the outermost struct and for struct list elements;
  // FieldStructBegin() for a struct-valued field. Each is closed by EndStruct().
  void BeginStruct();
  void EndStruct();
  void FieldStructBegin(int16_t id);

  void FieldBool(int16_t id, bool value);
  void FieldByte(int16_t id, int8_t value);
  void FieldI16(int16_t id, int16_t value);
  void FieldI32(int16_t id, int32_t value);
  void FieldI64(int16_t id, int64_t value);
  void FieldBinary(int16_t id, std::string_view value);

  // A list field header; then `size` elements follow through the Element* calls (or
  // BeginStruct/EndStruct pairs for struct elements).
  void FieldListBegin(int16_t id, ThriftType element_type, int64_t size);
  void ElementI32(int32_t value) { WriteVarint(ZigZag(value)); }
  void ElementBinary(std::string_view value);

  // Building blocks, public for tests.
  void WriteVarint(uint64_t value);
  static uint64_t ZigZag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  }

 private:
  void FieldHeader(int16_t id, ThriftType type);

  std::string* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> saved_field_ids_;
};

}  // namespace tandem::parquet
