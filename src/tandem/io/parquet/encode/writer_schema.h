// How each Tandem column is stored in a Parquet file: the physical type, the logical and legacy
// converted annotations, and which value kind the encoders use. Shared by the schema written in
// the footer and by the column chunk encoder, so the two can never disagree.
#pragma once

#include <string>
#include <vector>

#include "tandem/io/parquet/metadata.h"
#include "tandem/types/data_type.h"

namespace tandem::parquet {

// Physical value representations the encoders handle.
enum class ValueKind {
  kBool,        // BOOLEAN
  kInt32,       // INT32, signed order
  kUInt32,      // INT32 holding uint8/16/32, unsigned order
  kInt64,       // INT64, signed order
  kUInt64,      // INT64 holding uint64, unsigned order
  kFloat,       // FLOAT
  kDouble,      // DOUBLE
  kDecimal128,  // FIXED_LEN_BYTE_ARRAY, big-endian two's complement of flba_width bytes
  kByteArray,   // BYTE_ARRAY
};

struct ColumnWriteSpec {
  std::string name;
  DataType type;
  bool nullable = true;
  PhysicalType physical = PhysicalType::INT32;
  ValueKind kind = ValueKind::kInt32;
  int32_t flba_width = 0;  // kDecimal128 only
};

// Fewest bytes whose two's complement holds every decimal of `precision` digits.
int32_t DecimalByteWidth(int precision);

ColumnWriteSpec MakeColumnWriteSpec(const Field& field);

// The footer's schema: a root group "schema" followed by one leaf per field. Invalid (naming the
// field) for types Parquet cannot hold as Tandem has them.
Result<std::vector<SchemaElement>> BuildParquetSchema(const Schema& schema);

}  // namespace tandem::parquet
