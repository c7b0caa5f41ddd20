// Fragment types, fields and literals (see fragment_json.h).
#include "tandem/spark/fragment_json.h"

#include <cmath>
#include <limits>

#include "tandem/types/decimal.h"

namespace tandem::spark {
namespace {

Status Bad(const std::string& where, const std::string& what) {
  return Status::Invalid("fragment " + where + ": " + what);
}

}  // namespace

Result<const Json*> Member(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object()) return Bad(where, "expected an object");
  auto it = j.find(key);
  if (it == j.end()) return Bad(where, std::string("missing \"") + key + "\"");
  return &*it;
}

Result<std::string> StringMember(const Json& j, const char* key, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* v, Member(j, key, where));
  if (!v->is_string()) return Bad(where, std::string("\"") + key + "\" must be a string");
  return v->get<std::string>();
}

Result<int64_t> IntMember(const Json& j, const char* key, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* v, Member(j, key, where));
  if (!v->is_number_integer()) return Bad(where, std::string("\"") + key + "\" must be an integer");
  return v->get<int64_t>();
}

Result<DataType> TypeFromJson(const Json& j, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string id, StringMember(j, "id", where));
  if (id == "bool") return DataType::Bool();
  if (id == "int8") return DataType::Int8();
  if (id == "int16") return DataType::Int16();
  if (id == "int32") return DataType::Int32();
  if (id == "int64") return DataType::Int64();
  if (id == "float32") return DataType::Float32();
  if (id == "float64") return DataType::Float64();
  if (id == "string") return DataType::String();
  if (id == "binary") return DataType::Binary();
  if (id == "date") return DataType::Date32();
  if (id == "timestamp") return DataType::Timestamp(true);
  if (id == "timestamp_ntz") return DataType::Timestamp(false);
  if (id == "decimal") {
    TANDEM_ASSIGN_OR_RAISE(int64_t p, IntMember(j, "precision", where));
    TANDEM_ASSIGN_OR_RAISE(int64_t s, IntMember(j, "scale", where));
    if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p) {
      return Bad(where, "decimal(" + std::to_string(p) + "," + std::to_string(s) + ") is invalid");
    }
    return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  return Bad(where, "unknown type id '" + id + "'");
}

Json TypeToJson(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return {{"id", "bool"}};
    case TypeId::kInt8:
      return {{"id", "int8"}};
    case TypeId::kInt16:
      return {{"id", "int16"}};
    case TypeId::kInt32:
      return {{"id", "int32"}};
    case TypeId::kInt64:
      return {{"id", "int64"}};
    case TypeId::kFloat32:
      return {{"id", "float32"}};
    case TypeId::kFloat64:
      return {{"id", "float64"}};
    case TypeId::kDecimal:
      return {{"id", "decimal"}, {"precision", t.precision}, {"scale", t.scale}};
    case TypeId::kDate32:
      return {{"id", "date"}};
    case TypeId::kTimestamp:
      return {{"id", t.utc ? "timestamp" : "timestamp_ntz"}};
    case TypeId::kString:
      return {{"id", "string"}};
    case TypeId::kBinary:
      return {{"id", "binary"}};
    default:
      return {{"id", t.ToString()}};  // unsigned types have no Spark twin
  }
}

Result<Field> FieldFromJson(const Json& j, const std::string& where) {
  Field f;
  TANDEM_ASSIGN_OR_RAISE(f.name, StringMember(j, "name", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* type, Member(j, "type", where));
  TANDEM_ASSIGN_OR_RAISE(f.type, TypeFromJson(*type, where + ".type"));
  auto nullable = j.find("nullable");
  f.nullable = nullable == j.end() || !nullable->is_boolean() || nullable->get<bool>();
  return f;
}

Result<Schema> SchemaFromJson(const Json& j, const std::string& where) {
  if (!j.is_array()) return Bad(where, "expected a list of fields");
  Schema s;
  for (size_t i = 0; i < j.size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(Field f, FieldFromJson(j[i], where + "[" + std::to_string(i) + "]"));
    s.fields.push_back(std::move(f));
  }
  return s;
}

Result<Value> ValueFromJson(const Json& j, const DataType& type, const std::string& where) {
  if (j.is_null()) return Value::Null(type);
  auto integer = [&]() -> Result<int64_t> {
    if (!j.is_number_integer()) return Bad(where, "expected an integer for " + type.ToString());
    return j.get<int64_t>();
  };
  Value v;
  v.type = type;
  v.is_null = false;
  switch (type.id) {
    case TypeId::kBool:
      if (!j.is_boolean()) return Bad(where, "expected true or false");
      v.i64 = j.get<bool>() ? 1 : 0;
      return v;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate32:
    case TypeId::kTimestamp: {
      TANDEM_ASSIGN_OR_RAISE(v.i64, integer());
      const int bits = type.id == TypeId::kInt8                                  ? 8
                       : type.id == TypeId::kInt16                               ? 16
                       : type.id == TypeId::kInt32 || type.id == TypeId::kDate32 ? 32
                                                                                 : 64;
      if (bits < 64 &&
          (v.i64 < -(int64_t{1} << (bits - 1)) || v.i64 >= (int64_t{1} << (bits - 1)))) {
        return Bad(where, std::to_string(v.i64) + " does not fit " + type.ToString());
      }
      return v;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double d;
      if (j.is_number()) {
        d = j.get<double>();
      } else if (j == "NaN") {
        d = std::numeric_limits<double>::quiet_NaN();
      } else if (j == "Infinity") {
        d = std::numeric_limits<double>::infinity();
      } else if (j == "-Infinity") {
        d = -std::numeric_limits<double>::infinity();
      } else {
        return Bad(where, "expected a number for " + type.ToString());
      }
      v.f64 = type.id == TypeId::kFloat32 ? static_cast<double>(static_cast<float>(d)) : d;
      return v;
    }
    case TypeId::kDecimal: {
      if (!j.is_string()) return Bad(where, "a decimal literal is its unscaled value as a string");
      const std::string text = j.get<std::string>();
      int128_t unscaled = 0;
      if (!decimal::Parse(text, type.precision, 0, &unscaled)) {
        return Bad(where, "'" + text + "' is not an unscaled " + type.ToString());
      }
      return Value::Decimal(unscaled, type.precision, type.scale);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      if (!j.is_string()) return Bad(where, "expected a string");
      v.str = j.get<std::string>();
      return v;
    default:
      return Bad(where, "no literals of " + type.ToString());
  }
}

}  // namespace tandem::spark
