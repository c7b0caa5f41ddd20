// Conversions between udf.h's ABI type numbers and Tandem's DataType, and signature text.
#include "tandem/udf/function.h"

namespace tandem {
namespace {

struct TypePair {
  int32_t abi;
  TypeId id;
};
constexpr TypePair kTypes[] = {
    {TANDEM_UDF_BOOL, TypeId::kBool},       {TANDEM_UDF_INT8, TypeId::kInt8},
    {TANDEM_UDF_INT16, TypeId::kInt16},     {TANDEM_UDF_INT32, TypeId::kInt32},
    {TANDEM_UDF_INT64, TypeId::kInt64},     {TANDEM_UDF_UINT8, TypeId::kUInt8},
    {TANDEM_UDF_UINT16, TypeId::kUInt16},   {TANDEM_UDF_UINT32, TypeId::kUInt32},
    {TANDEM_UDF_UINT64, TypeId::kUInt64},   {TANDEM_UDF_FLOAT32, TypeId::kFloat32},
    {TANDEM_UDF_FLOAT64, TypeId::kFloat64}, {TANDEM_UDF_DECIMAL, TypeId::kDecimal},
    {TANDEM_UDF_DATE32, TypeId::kDate32},   {TANDEM_UDF_TIMESTAMP, TypeId::kTimestamp},
    {TANDEM_UDF_STRING, TypeId::kString},   {TANDEM_UDF_BINARY, TypeId::kBinary}};

}  // namespace

bool FromUdfType(const TandemUdfType& t, DataType* out) {
  for (const TypePair& p : kTypes) {
    if (p.abi != t.id) continue;
    DataType d;
    d.id = p.id;
    if (p.id == TypeId::kDecimal) {
      if (t.precision < 1 || t.precision > kMaxDecimalPrecision || t.scale < 0 ||
          t.scale > t.precision || t.utc != 0) {
        return false;
      }
      d = DataType::Decimal(t.precision, t.scale);
    } else if (t.precision != 0 || t.scale != 0) {
      return false;
    } else if (p.id == TypeId::kTimestamp) {
      if (t.utc != 0 && t.utc != 1) return false;
      d.utc = t.utc == 1;
    } else if (t.utc != 0) {
      return false;
    }
    *out = d;
    return true;
  }
  return false;
}

TandemUdfType ToUdfType(const DataType& t) {
  TandemUdfType u{0, 0, 0, 0};
  for (const TypePair& p : kTypes) {
    if (p.id == t.id) u.id = p.abi;
  }
  if (t.is_decimal()) {
    u.precision = t.precision;
    u.scale = t.scale;
  }
  if (t.id == TypeId::kTimestamp) u.utc = t.utc ? 1 : 0;
  return u;
}

std::string UdfFunction::Signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < arg_types.size(); ++i) s += (i ? ", " : "") + arg_types[i].ToString();
  return s + ") -> " + result_type.ToString();
}

}  // namespace tandem
