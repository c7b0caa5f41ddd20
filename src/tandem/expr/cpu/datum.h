// Internal to the CPU evaluator: a Datum is a kernel operand, either a whole column or one scalar
// (literals are never broadcast per row); plus helpers every kernel file shares (validity
// combination, output allocation, bit packing, error text, storage-type dispatch).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"
#include "tandem/types/type_dispatch.h"
#include "tandem/types/value.h"

namespace tandem::cpu::internal {

struct Datum {
  ColumnPtr column;  // null for a scalar
  Value scalar;

  static Datum Of(ColumnPtr c) {
    Datum d;
    d.column = std::move(c);
    return d;
  }
  static Datum Scalar(Value v) {
    Datum d;
    d.scalar = std::move(v);
    return d;
  }
  bool is_scalar() const { return column == nullptr; }
  bool is_null_scalar() const { return column == nullptr && scalar.is_null; }
  const DataType& type() const { return column ? column->type() : scalar.type; }
  bool IsValid(int64_t i) const { return column ? column->IsValid(i) : !scalar.is_null; }
  // All rows NULL (a NULL scalar, or a column whose every value is NULL).
  bool AllNull() const {
    return column ? column->length() > 0 && column->null_count() == column->length()
                  : scalar.is_null;
  }
};

// Everything a kernel needs about the call it runs.
struct CallContext {
  const Expr& expr;
  int64_t rows;
  EvalContext& eval;
};

// "what in <expr> (line L:C)": the one-line error every kernel reports.
Status ExprError(const Expr& e, const std::string& what);

// Validity of a null-propagating result: the AND of the column operands' bitmaps (shared, not
// copied, when only one operand has nulls). Scalars must not be NULL (callers check first).
struct Validity {
  std::shared_ptr<Buffer> bits;
  int64_t null_count = 0;
};
Validity CombineValidity(const std::vector<const Datum*>& operands, int64_t rows);
// Validity from explicit bits (null_count computed; bits dropped when all valid).
Validity MakeValidity(std::shared_ptr<Buffer> bits, int64_t rows);

// A column of `rows` NULLs of this type.
ColumnPtr AllNullColumn(const DataType& type, int64_t rows);
// Broadcasts a scalar to a column (only where a kernel truly needs a column).
ColumnPtr ToColumn(const Datum& d, int64_t rows);
// The value of row `row` (or the scalar).
Value DatumValue(const Datum& d, int64_t row);

// Fixed-width output column of `type` whose values buffer the caller fills (zero-filled).
inline std::shared_ptr<Buffer> AllocateValues(const DataType& type, int64_t rows) {
  const int w = type.id == TypeId::kBool ? 0 : type.byte_width();
  return Buffer::Allocate(w == 0 ? bit_util::BytesForBits(rows) : rows * w);
}
// Same, left uninitialized: only for kernels that write every row (NULL rows included) and,
// for booleans, every byte (FillBits does).
inline std::shared_ptr<Buffer> AllocateOutput(const DataType& type, int64_t rows) {
  const int w = type.id == TypeId::kBool ? 0 : type.byte_width();
  return Buffer::AllocateUninitialized(w == 0 ? bit_util::BytesForBits(rows) : rows * w);
}
inline ColumnPtr MakeColumn(const DataType& type, int64_t rows, const Validity& v,
                            std::shared_ptr<Buffer> values) {
  return std::make_shared<Column>(type, rows, v.null_count, v.null_count ? v.bits : nullptr,
                                  std::move(values));
}

// Packs 8 bytes of 0/1 into one byte, first byte in the lowest bit.
inline uint8_t PackEightBools(const uint8_t* b) {
  uint64_t w;
  std::memcpy(&w, b, 8);
  return static_cast<uint8_t>((w * 0x0102040810204080ULL) >> 56);
}

// Writes bit i = pred(i) for i in [0, n), every byte of the bitmap included (bits past n are 0).
// Rows go 64 at a time through a byte array, so simple predicates compile to vector compares.
template <typename Pred>
inline void FillBits(uint8_t* bits, int64_t n, Pred pred) {
  const int64_t blocks = n / 64;
  alignas(64) uint8_t tmp[64];
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t base = blk * 64;
    for (int j = 0; j < 64; ++j) tmp[j] = pred(base + j) ? 1 : 0;
    for (int k = 0; k < 8; ++k) bits[blk * 8 + k] = PackEightBools(tmp + 8 * k);
  }
  const int64_t done = blocks * 64;
  if (done < n) {
    std::memset(tmp, 0, sizeof(tmp));
    for (int64_t i = done; i < n; ++i) tmp[i - done] = pred(i) ? 1 : 0;
    const int64_t tail_bytes = bit_util::BytesForBits(n - done);
    for (int64_t k = 0; k < tail_bytes; ++k) bits[blocks * 8 + k] = PackEightBools(tmp + 8 * k);
  }
}

// Scalar value as storage type T (int64 for decimal64, int128 for wide decimals, double ...).
template <typename T>
inline T ScalarAs(const Value& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.f64);
  } else if constexpr (sizeof(T) == 16) {
    return static_cast<T>(v.DecimalUnscaled());
  } else {
    return static_cast<T>(v.i64);
  }
}

// Puts a storage-typed scalar into a Value of `type`.
Value MakeScalar(const DataType& type, int128_t int_value, double float_value);

// Calls body.template operator()<T>() with T the storage type of a fixed-width, non-bool type
// (types/type_dispatch.h); bool, string and binary, which callers do not pass, get int64_t.
template <typename Body>
inline auto DispatchFixed(const DataType& t, Body&& body) {
  return VisitStorage(t, [&]<typename StorageTag>(StorageTag) {
    if constexpr (std::is_same_v<StorageTag, BoolTag> || std::is_same_v<StorageTag, StringTag>) {
      return body.template operator()<int64_t>();
    } else {
      return body.template operator()<typename StorageTag::type>();
    }
  });
}

// Indexes of set bits of (values AND validity) over n rows.
void BitsToIndexes(const uint8_t* values, const uint8_t* validity, int64_t n,
                   std::vector<int32_t>* out);

}  // namespace tandem::cpu::internal
