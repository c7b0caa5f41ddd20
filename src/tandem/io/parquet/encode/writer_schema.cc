// Tandem type -> Parquet physical type, LogicalType and ConvertedType.
#include "tandem/io/parquet/encode/writer_schema.h"

namespace tandem::parquet {

int32_t DecimalByteWidth(int precision) {
  uint128_t max_value = 1;
  for (int i = 0; i < precision; ++i) max_value *= 10;
  max_value -= 1;
  for (int32_t n = 1; n < 16; ++n) {
    if (max_value < (uint128_t{1} << (8 * n - 1))) return n;
  }
  return 16;
}

ColumnWriteSpec MakeColumnWriteSpec(const Field& field) {
  ColumnWriteSpec s;
  s.name = field.name;
  s.type = field.type;
  s.nullable = field.nullable;
  switch (field.type.id) {
    case TypeId::kBool:
      s.physical = PhysicalType::BOOLEAN;
      s.kind = ValueKind::kBool;
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate32:
      s.physical = PhysicalType::INT32;
      s.kind = ValueKind::kInt32;
      break;
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
      s.physical = PhysicalType::INT32;
      s.kind = ValueKind::kUInt32;
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      s.physical = PhysicalType::INT64;
      s.kind = ValueKind::kInt64;
      break;
    case TypeId::kUInt64:
      s.physical = PhysicalType::INT64;
      s.kind = ValueKind::kUInt64;
      break;
    case TypeId::kFloat32:
      s.physical = PhysicalType::FLOAT;
      s.kind = ValueKind::kFloat;
      break;
    case TypeId::kFloat64:
      s.physical = PhysicalType::DOUBLE;
      s.kind = ValueKind::kDouble;
      break;
    case TypeId::kDecimal:
      if (field.type.precision <= 9) {
        s.physical = PhysicalType::INT32;
        s.kind = ValueKind::kInt32;
      } else if (field.type.precision <= kMaxDecimal64Precision) {
        s.physical = PhysicalType::INT64;
        s.kind = ValueKind::kInt64;
      } else {
        s.physical = PhysicalType::FIXED_LEN_BYTE_ARRAY;
        s.kind = ValueKind::kDecimal128;
        s.flba_width = DecimalByteWidth(field.type.precision);
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      s.physical = PhysicalType::BYTE_ARRAY;
      s.kind = ValueKind::kByteArray;
      break;
  }
  return s;
}

namespace {

LogicalType IntegerType(int bits, bool is_signed) {
  LogicalType t;
  t.kind = LogicalType::Kind::kInteger;
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}

void Annotate(const DataType& type, SchemaElement* e) {
  auto integer = [&](int bits, bool is_signed, ConvertedType converted) {
    e->logical_type = IntegerType(bits, is_signed);
    e->converted_type = converted;
  };
  switch (type.id) {
    case TypeId::kInt8:
      integer(8, true, ConvertedType::INT_8);
      break;
    case TypeId::kInt16:
      integer(16, true, ConvertedType::INT_16);
      break;
    case TypeId::kInt32:
      integer(32, true, ConvertedType::INT_32);
      break;
    case TypeId::kUInt8:
      integer(8, false, ConvertedType::UINT_8);
      break;
    case TypeId::kUInt16:
      integer(16, false, ConvertedType::UINT_16);
      break;
    case TypeId::kUInt32:
      integer(32, false, ConvertedType::UINT_32);
      break;
    case TypeId::kUInt64:
      integer(64, false, ConvertedType::UINT_64);
      break;
    case TypeId::kDecimal: {
      LogicalType t;
      t.kind = LogicalType::Kind::kDecimal;
      t.decimal_precision = type.precision;
      t.decimal_scale = type.scale;
      e->logical_type = t;
      e->converted_type = ConvertedType::DECIMAL;
      e->precision = type.precision;
      e->scale = type.scale;
      break;
    }
    case TypeId::kDate32: {
      LogicalType t;
      t.kind = LogicalType::Kind::kDate;
      e->logical_type = t;
      e->converted_type = ConvertedType::DATE;
      break;
    }
    case TypeId::kTimestamp: {
      LogicalType t;
      t.kind = LogicalType::Kind::kTimestamp;
      t.unit = LogicalType::TimeUnit::kMicros;
      t.adjusted_to_utc = type.utc;
      e->logical_type = t;
      // The legacy TIMESTAMP_MICROS means an instant (UTC); local timestamps get none.
      if (type.utc) e->converted_type = ConvertedType::TIMESTAMP_MICROS;
      break;
    }
    case TypeId::kString: {
      LogicalType t;
      t.kind = LogicalType::Kind::kString;
      e->logical_type = t;
      e->converted_type = ConvertedType::UTF8;
      break;
    }
    default:
      break;
  }
}

}  // namespace

Result<std::vector<SchemaElement>> BuildParquetSchema(const Schema& schema) {
  std::vector<SchemaElement> elements;
  elements.reserve(schema.fields.size() + 1);
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.num_fields();
  elements.push_back(root);
  for (const Field& field : schema.fields) {
    if (field.name.empty()) return Status::Invalid("cannot write a column with an empty name");
    if (field.type.is_decimal() &&
        (field.type.precision < 1 || field.type.precision > kMaxDecimalPrecision ||
         field.type.scale < 0 || field.type.scale > field.type.precision)) {
      return Status::Invalid("column " + field.name + ": invalid type " + field.type.ToString());
    }
    const ColumnWriteSpec spec = MakeColumnWriteSpec(field);
    SchemaElement e;
    e.name = field.name;
    e.type = spec.physical;
    if (spec.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY) e.type_length = spec.flba_width;
    e.repetition = field.nullable ? Repetition::OPTIONAL : Repetition::REQUIRED;
    Annotate(field.type, &e);
    elements.push_back(std::move(e));
  }
  return elements;
}

}  // namespace tandem::parquet
