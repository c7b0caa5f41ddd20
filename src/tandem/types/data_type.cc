// Names and widths of data types.
#include "tandem/types/data_type.h"

#include <algorithm>

namespace tandem {

double DataType::estimated_bytes() const {
  constexpr double kStringBytes = 16;
  if (is_string_like()) return 8 + kStringBytes;
  if (id == TypeId::kBool) return 1;
  return std::max(1, byte_width());
}

int DataType::byte_width() const {
  switch (id) {
    case TypeId::kBool:
      return 0;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
      return 8;
    case TypeId::kDecimal:
      return precision > kMaxDecimal64Precision ? 16 : 8;
    case TypeId::kString:
    case TypeId::kBinary:
      return 0;
  }
  return 0;
}

std::string DataType::ToString() const {
  switch (id) {
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat32:
      return "float32";
    case TypeId::kFloat64:
      return "float64";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeId::kDate32:
      return "date32";
    case TypeId::kTimestamp:
      return utc ? "timestamp[us, tz=UTC]" : "timestamp[us]";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
  }
  return "unknown";
}

int Schema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string out;
  for (const Field& f : fields) {
    out += f.name + ": " + f.type.ToString() + (f.nullable ? "" : " not null") + "\n";
  }
  return out;
}

}  // namespace tandem
