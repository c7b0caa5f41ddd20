// Maps a Parquet schema (the flattened SchemaElement tree) to Tandem leaf columns: for every
// leaf, its Tandem DataType and how its physical values convert into Tandem storage. Columns
// Tandem cannot read yet (nested, TIME, intervals...) are kept with a reason, so the file still
// opens and only reading them fails.
#pragma once

#include <string>
#include <vector>

#include "tandem/io/parquet/metadata.h"
#include "tandem/types/data_type.h"

namespace tandem::parquet {

// How stored (physical) values become Tandem storage values.
enum class Conversion {
  kCopy,              // same bytes: INT32->int32/uint32/date32, INT64->int64/uint64/ts(us), floats
  kBool,              // BOOLEAN -> bit-packed bool
  kByteArray,         // BYTE_ARRAY -> string / binary
  kFixedToBinary,     // FIXED_LEN_BYTE_ARRAY -> binary
  kInt32ToInt8,       // INT32 -> int8 / uint8 (truncating, as the logical type promises)
  kInt32ToInt16,      // INT32 -> int16 / uint16
  kInt32ToInt64,      // INT32 decimal -> 64-bit decimal
  kInt32ToInt128,     // INT32 decimal -> 128-bit decimal
  kInt64ToInt128,     // INT64 decimal -> 128-bit decimal
  kMillisToMicros,    // INT64 timestamp(ms) -> us
  kNanosToMicros,     // INT64 timestamp(ns) -> us (floor division)
  kInt96ToMicros,     // INT96 (Julian day + nanoseconds of day) -> us
  kFixedDecimal,      // FIXED_LEN_BYTE_ARRAY big-endian two's complement -> decimal
  kByteArrayDecimal,  // BYTE_ARRAY big-endian two's complement -> decimal
  kHalfToFloat,       // FIXED_LEN_BYTE_ARRAY(2) FLOAT16 -> float32
};

struct LeafColumn {
  std::string name;      // dotted path for nested leaves, else the field name
  int schema_index = 0;  // index into FileMetaData::schema
  PhysicalType physical = PhysicalType::INT32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  DataType type;
  bool nullable = true;
  Conversion conversion = Conversion::kCopy;
  std::string unsupported;  // non-empty: what is not supported ("nested column", "TIME type")
};

// Fills leaf->type, conversion and unsupported from a leaf element's physical and logical type.
void MapLeafType(const SchemaElement& element, LeafColumn* leaf);

// Walks the schema tree; Invalid if it is malformed (bad child counts, missing leaf types).
Result<std::vector<LeafColumn>> MapParquetSchema(const std::vector<SchemaElement>& schema);

}  // namespace tandem::parquet
