// Shared helpers of the CPU kernels: validity combination, NULL columns, error text.
#include "tandem/expr/cpu/datum.h"

#include <cstring>

#include "tandem/column/take.h"

namespace tandem::cpu::internal {

Status ExprError(const Expr& e, const std::string& what) {
  std::string msg = what + " in " + e.ToString();
  if (e.pos.line > 0) msg += " (line " + e.pos.ToString() + ")";
  return Status::Invalid(msg);
}

Validity MakeValidity(std::shared_ptr<Buffer> bits, int64_t rows) {
  Validity v;
  if (!bits) return v;
  v.null_count = rows - bit_util::CountSetBits(bits->data(), 0, rows);
  if (v.null_count > 0) v.bits = std::move(bits);
  return v;
}

Validity CombineValidity(const std::vector<const Datum*>& operands, int64_t rows) {
  std::vector<const Column*> with_nulls;
  for (const Datum* d : operands) {
    if (d->column && d->column->null_count() > 0 && d->column->validity()) {
      with_nulls.push_back(d->column.get());
    }
  }
  Validity v;
  if (with_nulls.empty()) return v;
  if (with_nulls.size() == 1) {
    v.bits = with_nulls[0]->validity();
    v.null_count = with_nulls[0]->null_count();
    return v;
  }
  const int64_t bytes = bit_util::BytesForBits(rows);
  auto out = Buffer::Allocate(bytes);
  uint8_t* o = out->mutable_data();
  std::memcpy(o, with_nulls[0]->validity_bits(), static_cast<size_t>(bytes));
  for (size_t k = 1; k < with_nulls.size(); ++k) {
    const uint8_t* b = with_nulls[k]->validity_bits();
    for (int64_t i = 0; i < bytes; ++i) o[i] &= b[i];
  }
  return MakeValidity(std::move(out), rows);
}

ColumnPtr AllNullColumn(const DataType& type, int64_t rows) {
  return BroadcastValue(Value::Null(type), rows);
}

ColumnPtr ToColumn(const Datum& d, int64_t rows) {
  if (d.column) return d.column;
  return BroadcastValue(d.scalar, rows);
}

Value DatumValue(const Datum& d, int64_t row) {
  if (d.column) return GetValue(*d.column, row);
  return d.scalar;
}

Value MakeScalar(const DataType& type, int128_t int_value, double float_value) {
  Value v = Value::Null(type);
  v.is_null = false;
  if (type.is_floating()) {
    v.f64 = float_value;
  } else if (type.is_wide_decimal()) {
    v.i128 = int_value;
  } else {
    v.i64 = static_cast<int64_t>(int_value);
  }
  return v;
}

void BitsToIndexes(const uint8_t* values, const uint8_t* validity, int64_t n,
                   std::vector<int32_t>* out) {
  out->clear();
  const int64_t words = n / 64;
  out->reserve(static_cast<size_t>(n / 4 + 8));
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word;
    std::memcpy(&word, values + w * 8, 8);
    if (validity) {
      uint64_t vw;
      std::memcpy(&vw, validity + w * 8, 8);
      word &= vw;
    }
    const int32_t base = static_cast<int32_t>(w * 64);
    while (word) {
      out->push_back(base + __builtin_ctzll(word));
      word &= word - 1;
    }
  }
  for (int64_t i = words * 64; i < n; ++i) {
    if (bit_util::GetBit(values, i) && (!validity || bit_util::GetBit(validity, i))) {
      out->push_back(static_cast<int32_t>(i));
    }
  }
}

}  // namespace tandem::cpu::internal
