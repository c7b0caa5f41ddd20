// Boolean kernels with SQL's three-valued logic, computed a byte (8 rows) at a time on the value
// and validity bitmaps: AND is FALSE if either side is a known FALSE, OR is TRUE if either side is
// a known TRUE, otherwise NULL when a side is NULL. Also NOT, IS NULL, IS NOT NULL.
#include <cstring>

#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

// Value and validity bytes of a boolean operand (scalars expand to 0x00 / 0xFF).
struct BoolBytes {
  std::vector<uint8_t> scalar_values, scalar_valid;
  const uint8_t* values;
  const uint8_t* valid;  // nullptr: all valid
};

BoolBytes BytesOf(const Datum& d, int64_t bytes) {
  BoolBytes b;
  if (d.is_scalar()) {
    b.scalar_values.assign(static_cast<size_t>(bytes), d.scalar.AsBool() ? 0xFF : 0x00);
    b.values = b.scalar_values.data();
    if (d.scalar.is_null) {
      b.scalar_valid.assign(static_cast<size_t>(bytes), 0);
      b.valid = b.scalar_valid.data();
    } else {
      b.valid = nullptr;
    }
    return b;
  }
  b.values = d.column->values()->data();
  b.valid = d.column->null_count() > 0 ? d.column->validity_bits() : nullptr;
  return b;
}

Result<ColumnPtr> AndOr(const CallContext& cc, const std::vector<Datum>& args) {
  const bool is_and = cc.expr.name == "and";
  const int64_t n = cc.rows;
  const int64_t bytes = bit_util::BytesForBits(n);
  BoolBytes a = BytesOf(args[0], bytes), b = BytesOf(args[1], bytes);
  auto values = Buffer::AllocateUninitialized(bytes);
  uint8_t* out = values->mutable_data();
  if (!a.valid && !b.valid) {
    for (int64_t i = 0; i < bytes; ++i)
      out[i] = is_and ? a.values[i] & b.values[i] : a.values[i] | b.values[i];
    return MakeColumn(DataType::Bool(), n, Validity{}, std::move(values));
  }
  auto valid = Buffer::AllocateUninitialized(bytes);
  uint8_t* vout = valid->mutable_data();
  for (int64_t i = 0; i < bytes; ++i) {
    const uint8_t am = a.valid ? a.valid[i] : 0xFF, bm = b.valid ? b.valid[i] : 0xFF;
    const uint8_t av = a.values[i] & am, bv = b.values[i] & bm;
    if (is_and) {
      const uint8_t known_false = static_cast<uint8_t>((am & ~av) | (bm & ~bv));
      vout[i] = static_cast<uint8_t>((am & bm) | known_false);
      out[i] = static_cast<uint8_t>(av & bv);
    } else {
      const uint8_t known_true = static_cast<uint8_t>(av | bv);
      vout[i] = static_cast<uint8_t>((am & bm) | known_true);
      out[i] = known_true;
    }
  }
  return MakeColumn(DataType::Bool(), n, MakeValidity(std::move(valid), n), std::move(values));
}

Result<ColumnPtr> Not(const CallContext& cc, const std::vector<Datum>& args) {
  const int64_t n = cc.rows;
  const int64_t bytes = bit_util::BytesForBits(n);
  auto values = Buffer::AllocateUninitialized(bytes);
  const uint8_t* in = args[0].column->values()->data();
  uint8_t* out = values->mutable_data();
  for (int64_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(~in[i]);
  return MakeColumn(DataType::Bool(), n, CombineValidity({&args[0]}, n), std::move(values));
}

Result<ColumnPtr> NullTest(const CallContext& cc, const std::vector<Datum>& args) {
  const bool want_null = cc.expr.name == "is_null";
  const int64_t n = cc.rows;
  const int64_t bytes = bit_util::BytesForBits(n);
  auto values = Buffer::AllocateUninitialized(bytes);
  uint8_t* out = values->mutable_data();
  const Datum& d = args[0];
  if (bytes == 0) {
    // no rows: nothing to write (and no buffer to write it to)
  } else if (d.is_scalar()) {
    std::memset(out, d.scalar.is_null == want_null ? 0xFF : 0, static_cast<size_t>(bytes));
  } else if (d.column->null_count() == 0 || !d.column->validity()) {
    std::memset(out, want_null ? 0 : 0xFF, static_cast<size_t>(bytes));
  } else {
    const uint8_t* v = d.column->validity_bits();
    for (int64_t i = 0; i < bytes; ++i) out[i] = want_null ? static_cast<uint8_t>(~v[i]) : v[i];
  }
  return MakeColumn(DataType::Bool(), n, Validity{}, std::move(values));
}

}  // namespace

void RegisterLogicKernels(KernelMap* map) {
  (*map)["and"] = {AndOr, false};
  (*map)["or"] = {AndOr, false};
  (*map)["not"] = {Not, true};
  (*map)["is_null"] = {NullTest, false};
  (*map)["is_not_null"] = {NullTest, false};
}

const KernelEntry* FindKernel(const std::string& name) {
  static const KernelMap map = [] {
    KernelMap m;
    RegisterArithmeticKernels(&m);
    RegisterComparisonKernels(&m);
    RegisterLogicKernels(&m);
    RegisterStringKernels(&m);
    RegisterLikeKernels(&m);
    RegisterDateTimeKernels(&m);
    RegisterMathKernels(&m);
    RegisterConditionalKernels(&m);
    RegisterSubqueryKernels(&m);
    RegisterSparkKernels(&m);
    return m;
  }();
  auto it = map.find(name);
  return it == map.end() ? nullptr : &it->second;
}

}  // namespace tandem::cpu::internal
