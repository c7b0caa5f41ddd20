// ThriftCompactReader: a bounds-checked decoder for the Thrift compact protocol, the encoding of
// Parquet's footer and page headers. Every read checks the remaining input, structs nest at most
// kMaxDepth deep, and fields of any type can be skipped, so a damaged or hostile footer yields an
// Invalid status instead of a crash or a hang.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/common/status.h"
#include "tandem/io/parquet/thrift_compact_types.h"

namespace tandem::parquet {

class ThriftCompactReader {
 public:
  static constexpr int kMaxDepth = 64;
  // Largest list the reader accepts; larger ones are surely corrupt metadata.
  static constexpr int64_t kMaxListSize = int64_t{1} << 28;

  ThriftCompactReader(const uint8_t* data, int64_t size)
      : pos_(data), begin_(data), end_(data + size) {}

  int64_t consumed() const { return pos_ - begin_; }
  int64_t remaining() const { return end_ - pos_; }

  // Struct framing: BeginStruct saves the last field id and starts a new one (depth-limited);
  // EndStruct restores it. ReadFieldHeader returns *type == kStop at the struct's end.
  Status BeginStruct();
  void EndStruct();
  Status ReadFieldHeader(int16_t* field_id, ThriftType* type);
  // The value of a boolean field comes from its header type (kBoolTrue / kBoolFalse).
  static bool BoolFromFieldType(ThriftType type) { return type == ThriftType::kBoolTrue; }

  Status ReadListHeader(ThriftType* element_type, int64_t* size);
  Status ReadVarint(uint64_t* value);
  Status ReadI16(int16_t* value);
  Status ReadI32(int32_t* value);
  Status ReadI64(int64_t* value);
  Status ReadByte(int8_t* value);
  Status ReadDouble(double* value);
  Status ReadBool(bool* value);  // list elements only (one byte: 1 true, 2 or 0 false)
  Status ReadBinary(std::string* value);

  // Skips one value of the given type (structs, lists, sets and maps recursively).
  Status Skip(ThriftType type);

  // Reads an integer field of any integer wire type into an int64 (type checked).
  Status ReadInteger(ThriftType type, int64_t* value);

 private:
  Status Truncated() const;
  Status SkipDepth(ThriftType type, int depth);

  const uint8_t* pos_;
  const uint8_t* begin_;
  const uint8_t* end_;
  int16_t last_field_id_ = 0;
  int depth_ = 0;
  int16_t saved_ids_[kMaxDepth + 1] = {};
};

}  // namespace tandem::parquet
