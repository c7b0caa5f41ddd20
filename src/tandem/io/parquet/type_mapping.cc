// Parquet schema -> Tandem types. Logical types win over converted types; legacy converted types
// are honoured (TIMESTAMP_MILLIS/MICROS mean UTC instants, as parquet-format specifies). INT96 is
// the legacy Impala/Spark timestamp: read as a local timestamp in microseconds, like pyarrow.
#include "tandem/io/parquet/type_mapping.h"

#include <string>

namespace tandem::parquet {

void MapLeafType(const SchemaElement& e, LeafColumn* leaf);

namespace {

constexpr int kMaxSchemaDepth = 100;

struct Walker {
  const std::vector<SchemaElement>& schema;
  std::vector<LeafColumn>* leaves;
  size_t next = 1;

  Status Walk(const std::string& prefix, int depth, int16_t def, int16_t rep, bool nested) {
    if (depth > kMaxSchemaDepth) return Status::Invalid("Parquet schema nested too deeply");
    if (next >= schema.size()) return Status::Invalid("Parquet schema has too few elements");
    const size_t index = next++;
    const SchemaElement& e = schema[index];
    const Repetition rep_type = e.repetition.value_or(Repetition::REQUIRED);
    if (rep_type == Repetition::OPTIONAL) ++def;
    if (rep_type == Repetition::REPEATED) {
      ++def;
      ++rep;
      nested = true;
    }
    const std::string name = prefix.empty() ? e.name : prefix + "." + e.name;
    const bool is_group = e.num_children.has_value() && (*e.num_children > 0 || !e.type);
    if (is_group) {
      const int32_t n = *e.num_children;
      if (n < 0 || static_cast<size_t>(n) > schema.size() - next) {
        return Status::Invalid("Parquet schema element '" + e.name + "' has a bad child count");
      }
      for (int32_t i = 0; i < n; ++i) {
        TANDEM_RETURN_NOT_OK(Walk(name, depth + 1, def, rep, /*nested=*/true));
      }
      return Status::OK();
    }
    if (!e.type) return Status::Invalid("Parquet leaf column '" + name + "' has no type");
    LeafColumn leaf;
    leaf.name = name;
    leaf.schema_index = static_cast<int>(index);
    leaf.physical = *e.type;
    leaf.type_length = e.type_length.value_or(0);
    leaf.max_definition_level = def;
    leaf.max_repetition_level = rep;
    leaf.nullable = rep_type != Repetition::REQUIRED || def > 0;
    MapLeafType(e, &leaf);
    if (nested && leaf.unsupported.empty()) leaf.unsupported = "nested column";
    leaves->push_back(std::move(leaf));
    return Status::OK();
  }
};

void SetDecimal(int precision, int scale, Conversion narrow, Conversion wide, LeafColumn* leaf) {
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 || scale > precision) {
    leaf->unsupported = "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    return;
  }
  leaf->type = DataType::Decimal(precision, scale);
  leaf->conversion = precision > kMaxDecimal64Precision ? wide : narrow;
}

void SetUnsupported(LeafColumn* leaf, const std::string& what) {
  leaf->unsupported = what;
  leaf->type = DataType::Binary();
}

// Logical type derived from a legacy converted type (the mapping parquet-format specifies).
std::optional<LogicalType> FromConvertedType(const SchemaElement& e) {
  if (!e.converted_type) return std::nullopt;
  LogicalType lt;
  using K = LogicalType::Kind;
  auto integer = [&](int bits, bool is_signed) {
    lt.kind = K::kInteger;
    lt.bit_width = static_cast<int8_t>(bits);
    lt.is_signed = is_signed;
  };
  switch (*e.converted_type) {
    case ConvertedType::UTF8:
      lt.kind = K::kString;
      break;
    case ConvertedType::ENUM:
      lt.kind = K::kEnum;
      break;
    case ConvertedType::JSON:
      lt.kind = K::kJson;
      break;
    case ConvertedType::BSON:
      lt.kind = K::kBson;
      break;
    case ConvertedType::DATE:
      lt.kind = K::kDate;
      break;
    case ConvertedType::DECIMAL:
      lt.kind = K::kDecimal;
      lt.decimal_precision = e.precision.value_or(0);
      lt.decimal_scale = e.scale.value_or(0);
      break;
    case ConvertedType::TIME_MILLIS:
    case ConvertedType::TIME_MICROS:
      lt.kind = K::kTime;
      break;
    case ConvertedType::TIMESTAMP_MILLIS:
    case ConvertedType::TIMESTAMP_MICROS:
      lt.kind = K::kTimestamp;
      lt.adjusted_to_utc = true;
      lt.unit = *e.converted_type == ConvertedType::TIMESTAMP_MILLIS
                    ? LogicalType::TimeUnit::kMillis
                    : LogicalType::TimeUnit::kMicros;
      break;
    case ConvertedType::UINT_8:
      integer(8, false);
      break;
    case ConvertedType::UINT_16:
      integer(16, false);
      break;
    case ConvertedType::UINT_32:
      integer(32, false);
      break;
    case ConvertedType::UINT_64:
      integer(64, false);
      break;
    case ConvertedType::INT_8:
      integer(8, true);
      break;
    case ConvertedType::INT_16:
      integer(16, true);
      break;
    case ConvertedType::INT_32:
      integer(32, true);
      break;
    case ConvertedType::INT_64:
      integer(64, true);
      break;
    case ConvertedType::INTERVAL:
      lt.kind = K::kOther;
      break;
    default:
      return std::nullopt;  // MAP, LIST, MAP_KEY_VALUE: groups, no leaf meaning
  }
  return lt;
}

}  // namespace

Result<std::vector<LeafColumn>> MapParquetSchema(const std::vector<SchemaElement>& schema) {
  std::vector<LeafColumn> leaves;
  if (schema.empty()) return Status::Invalid("empty Parquet schema");
  const int32_t root_children = schema[0].num_children.value_or(0);
  if (root_children < 0 || static_cast<size_t>(root_children) > schema.size() - 1) {
    return Status::Invalid("Parquet schema root has a bad child count");
  }
  Walker walker{schema, &leaves};
  for (int32_t i = 0; i < root_children; ++i) {
    TANDEM_RETURN_NOT_OK(walker.Walk("", 1, 0, 0, false));
  }
  if (walker.next != schema.size()) {
    return Status::Invalid("Parquet schema has elements outside the tree");
  }
  return leaves;
}

void MapLeafType(const SchemaElement& e, LeafColumn* leaf) {
  using K = LogicalType::Kind;
  std::optional<LogicalType> lt = e.logical_type;
  if (!lt || lt->kind == K::kNone || lt->kind == K::kOther) {
    std::optional<LogicalType> legacy = FromConvertedType(e);
    if (legacy) lt = legacy;
  }
  const K kind = lt ? lt->kind : K::kNone;
  switch (leaf->physical) {
    case PhysicalType::BOOLEAN:
      leaf->type = DataType::Bool();
      leaf->conversion = Conversion::kBool;
      return;
    case PhysicalType::INT32:
      leaf->conversion = Conversion::kCopy;
      leaf->type = DataType::Int32();
      if (kind == K::kInteger) {
        const bool s = lt->is_signed;
        if (lt->bit_width == 8) {
          leaf->type = s ? DataType::Int8() : DataType::UInt8();
          leaf->conversion = Conversion::kInt32ToInt8;
        } else if (lt->bit_width == 16) {
          leaf->type = s ? DataType::Int16() : DataType::UInt16();
          leaf->conversion = Conversion::kInt32ToInt16;
        } else if (!s) {
          leaf->type = DataType::UInt32();
        }
      } else if (kind == K::kDecimal) {
        SetDecimal(lt->decimal_precision, lt->decimal_scale, Conversion::kInt32ToInt64,
                   Conversion::kInt32ToInt128, leaf);
      } else if (kind == K::kDate) {
        leaf->type = DataType::Date32();
      } else if (kind == K::kTime) {
        SetUnsupported(leaf, "TIME type");
      }
      return;
    case PhysicalType::INT64:
      leaf->conversion = Conversion::kCopy;
      leaf->type = DataType::Int64();
      if (kind == K::kInteger && !lt->is_signed) {
        leaf->type = DataType::UInt64();
      } else if (kind == K::kDecimal) {
        SetDecimal(lt->decimal_precision, lt->decimal_scale, Conversion::kCopy,
                   Conversion::kInt64ToInt128, leaf);
      } else if (kind == K::kTimestamp) {
        leaf->type = DataType::Timestamp(lt->adjusted_to_utc);
        if (lt->unit == LogicalType::TimeUnit::kMillis)
          leaf->conversion = Conversion::kMillisToMicros;
        if (lt->unit == LogicalType::TimeUnit::kNanos)
          leaf->conversion = Conversion::kNanosToMicros;
      } else if (kind == K::kTime) {
        SetUnsupported(leaf, "TIME type");
      }
      return;
    case PhysicalType::INT96:
      leaf->type = DataType::Timestamp(false);
      leaf->conversion = Conversion::kInt96ToMicros;
      return;
    case PhysicalType::FLOAT:
      leaf->type = DataType::Float32();
      leaf->conversion = Conversion::kCopy;
      return;
    case PhysicalType::DOUBLE:
      leaf->type = DataType::Float64();
      leaf->conversion = Conversion::kCopy;
      return;
    case PhysicalType::BYTE_ARRAY:
      leaf->conversion = Conversion::kByteArray;
      leaf->type = DataType::Binary();
      if (kind == K::kString || kind == K::kEnum || kind == K::kJson) {
        leaf->type = DataType::String();
      } else if (kind == K::kDecimal) {
        SetDecimal(lt->decimal_precision, lt->decimal_scale, Conversion::kByteArrayDecimal,
                   Conversion::kByteArrayDecimal, leaf);
      }
      return;
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      leaf->conversion = Conversion::kFixedToBinary;
      leaf->type = DataType::Binary();
      if (leaf->type_length <= 0) {
        SetUnsupported(leaf, "FIXED_LEN_BYTE_ARRAY without a positive type_length");
      } else if (kind == K::kDecimal) {
        SetDecimal(lt->decimal_precision, lt->decimal_scale, Conversion::kFixedDecimal,
                   Conversion::kFixedDecimal, leaf);
      } else if (kind == K::kFloat16) {
        if (leaf->type_length != 2) {
          SetUnsupported(leaf, "FLOAT16 with type_length " + std::to_string(leaf->type_length));
        } else {
          leaf->type = DataType::Float32();
          leaf->conversion = Conversion::kHalfToFloat;
        }
      }
      return;
  }
  SetUnsupported(leaf, "physical type " + std::to_string(static_cast<int>(leaf->physical)));
}

}  // namespace tandem::parquet
