// Arithmetic kernels: add, subtract, multiply, divide, modulo, negate on integers (overflow is an
// error), floats, decimals (Spark's result types; exact 64/128-bit math with HALF_UP rounding and
// precision checks) and dates. Loops run over raw value arrays with a column or scalar on either
// side; overflow flags are OR-ed in the loop and only a flagged batch is re-scanned to find the
// first offending non-NULL row. Division (and modulo) by zero gives NULL, or an error with ansi.
#include <algorithm>
#include <cmath>

#include "tandem/expr/cpu/kernels.h"
#include "tandem/types/decimal.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu::internal {
namespace {

enum class Op { kAdd, kSub, kMul, kDiv, kMod };

Op OpOf(const std::string& name) {
  if (name == "add") return Op::kAdd;
  if (name == "subtract") return Op::kSub;
  if (name == "multiply") return Op::kMul;
  if (name == "divide") return Op::kDiv;
  return Op::kMod;
}

// Runs f(a, b, &out) -> bad over all rows; returns whether any row was flagged.
template <typename A, typename B, typename R, typename F>
bool BinaryLoop(const Datum& x, const Datum& y, int64_t n, R* out, F f) {
  bool bad = false;
  if (x.is_scalar()) {
    const A a = ScalarAs<A>(x.scalar);
    const B* b = y.column->values_as<B>();
    for (int64_t i = 0; i < n; ++i) bad |= f(a, b[i], out + i);
  } else if (y.is_scalar()) {
    const A* a = x.column->values_as<A>();
    const B b = ScalarAs<B>(y.scalar);
    for (int64_t i = 0; i < n; ++i) bad |= f(a[i], b, out + i);
  } else {
    const A* a = x.column->values_as<A>();
    const B* b = y.column->values_as<B>();
    for (int64_t i = 0; i < n; ++i) bad |= f(a[i], b[i], out + i);
  }
  return bad;
}

// First non-NULL row where f flags a problem, or -1.
template <typename A, typename B, typename R, typename F>
int64_t FirstBadRow(const Datum& x, const Datum& y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) {
    if (!x.IsValid(i) || !y.IsValid(i)) continue;
    const A a = x.is_scalar() ? ScalarAs<A>(x.scalar) : x.column->values_as<A>()[i];
    const B b = y.is_scalar() ? ScalarAs<B>(y.scalar) : y.column->values_as<B>()[i];
    R r;
    if (f(a, b, &r)) return i;
  }
  return -1;
}

// Reads an operand value as int64 for the fast path; false when it does not fit.
template <typename T>
inline bool NarrowTo64(T v, int64_t* out) {
  *out = static_cast<int64_t>(v);
  if constexpr (sizeof(T) > 8) return static_cast<T>(*out) == v;
  return true;
}

// Runs fast(a, b, &r) over every row in blocks of kBlock; a block where fast flags a row (an
// int64 overflow, a value outside int64) is computed again with slow, the exact kernel. Returns
// whether slow flagged any row (then FirstBadRow with slow finds the first non-NULL one).
template <typename A, typename B, typename R, typename Fast, typename Slow>
bool TwoSpeedLoop(const Datum& x, const Datum& y, int64_t n, R* out, Fast fast, Slow slow) {
  constexpr int64_t kBlock = 1024;
  const bool xs = x.is_scalar(), ys = y.is_scalar();
  const A as = xs ? ScalarAs<A>(x.scalar) : A{};
  const B bs = ys ? ScalarAs<B>(y.scalar) : B{};
  const A* a = xs ? nullptr : x.column->values_as<A>();
  const B* b = ys ? nullptr : y.column->values_as<B>();
  bool bad = false;
  for (int64_t begin = 0; begin < n; begin += kBlock) {
    const int64_t end = std::min(n, begin + kBlock);
    bool flagged = false;
    if (xs) {
      for (int64_t i = begin; i < end; ++i) flagged |= fast(as, b[i], out + i);
    } else if (ys) {
      for (int64_t i = begin; i < end; ++i) flagged |= fast(a[i], bs, out + i);
    } else {
      for (int64_t i = begin; i < end; ++i) flagged |= fast(a[i], b[i], out + i);
    }
    if (!flagged) continue;
    for (int64_t i = begin; i < end; ++i) {
      bad |= slow(xs ? as : a[i], ys ? bs : b[i], out + i);
    }
  }
  return bad;
}

// `v` with the rows where f flags an overflow made NULL (Spark's LEGACY decimal arithmetic).
template <typename A, typename B, typename R, typename F>
Validity NullWhereFlagged(const Datum& x, const Datum& y, int64_t n, const Validity& v, F f) {
  auto bits = Buffer::AllocateUninitialized(bit_util::BytesForBits(n));
  FillBits(bits->mutable_data(), n, [&](int64_t i) {
    if (v.bits && !bit_util::GetBit(v.bits->data(), i)) return false;
    if (!x.IsValid(i) || !y.IsValid(i)) return false;
    const A a = x.is_scalar() ? ScalarAs<A>(x.scalar) : x.column->values_as<A>()[i];
    const B b = y.is_scalar() ? ScalarAs<B>(y.scalar) : y.column->values_as<B>()[i];
    R r;
    return !f(a, b, &r);
  });
  return MakeValidity(std::move(bits), n);
}

// Marks rows whose divisor is zero as NULL (or fails in ANSI mode).
template <typename B>
Result<Validity> DivisorValidity(const CallContext& cc, const Datum& x, const Datum& y,
                                 Validity v) {
  const int64_t n = cc.rows;
  bool any_zero = false;
  if (y.is_scalar()) {
    any_zero = ScalarAs<B>(y.scalar) == B{};
  } else {
    const B* b = y.column->values_as<B>();
    for (int64_t i = 0; i < n; ++i) any_zero |= b[i] == B{};
  }
  if (!any_zero) return v;
  auto bits = Buffer::AllocateUninitialized(bit_util::BytesForBits(n));
  uint8_t* o = bits->mutable_data();
  FillBits(o, n, [&](int64_t i) {
    const B b = y.is_scalar() ? ScalarAs<B>(y.scalar) : y.column->values_as<B>()[i];
    return b != B{} && (!v.bits || bit_util::GetBit(v.bits->data(), i));
  });
  if (cc.eval.ansi) {
    for (int64_t i = 0; i < n; ++i) {
      if (x.IsValid(i) && y.IsValid(i) && !bit_util::GetBit(o, i)) {
        return ExprError(cc.expr, "division by zero");
      }
    }
  }
  return MakeValidity(std::move(bits), n);
}

template <typename T>
Result<ColumnPtr> IntegerArith(const CallContext& cc, Op op, const Datum& x, const Datum& y) {
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x, &y}, n);
  auto values = AllocateOutput(cc.expr.type, n);
  T* out = values->mutable_data_as<T>();
  auto run = [&](auto f) -> Status {
    // In Spark's LEGACY mode the wrapped results the loop stored are the answers.
    if (BinaryLoop<T, T, T>(x, y, n, out, f) && !cc.eval.legacy_overflow) {
      const int64_t row = FirstBadRow<T, T, T>(x, y, n, f);
      if (row >= 0) {
        return ExprError(cc.expr, "integer overflow (" + DatumValue(x, row).ToString() + ", " +
                                      DatumValue(y, row).ToString() + ")");
      }
    }
    return Status::OK();
  };
  switch (op) {
    case Op::kAdd:
      TANDEM_RETURN_NOT_OK(run([](T a, T b, T* r) { return __builtin_add_overflow(a, b, r); }));
      break;
    case Op::kSub:
      TANDEM_RETURN_NOT_OK(run([](T a, T b, T* r) { return __builtin_sub_overflow(a, b, r); }));
      break;
    case Op::kMul:
      TANDEM_RETURN_NOT_OK(run([](T a, T b, T* r) { return __builtin_mul_overflow(a, b, r); }));
      break;
    case Op::kDiv:
    case Op::kMod: {
      TANDEM_ASSIGN_OR_RAISE(v, DivisorValidity<T>(cc, x, y, std::move(v)));
      auto f = [op](T a, T b, T* r) {
        if (b == T{}) {
          *r = 0;
        } else if constexpr (std::is_signed_v<T>) {
          if (b == T(-1)) {
            *r = op == Op::kMod ? T{0} : static_cast<T>(T{0} - a);  // avoids MIN / -1 traps
            return op == Op::kDiv && a == std::numeric_limits<T>::min();
          }
          *r = op == Op::kMod ? static_cast<T>(a % b) : static_cast<T>(a / b);
        } else {
          *r = op == Op::kMod ? static_cast<T>(a % b) : static_cast<T>(a / b);
        }
        return false;
      };
      TANDEM_RETURN_NOT_OK(run(f));
      break;
    }
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

template <typename T>
Result<ColumnPtr> FloatArith(const CallContext& cc, Op op, const Datum& x, const Datum& y) {
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x, &y}, n);
  auto values = AllocateOutput(cc.expr.type, n);
  T* out = values->mutable_data_as<T>();
  switch (op) {
    case Op::kAdd:
      BinaryLoop<T, T, T>(x, y, n, out, [](T a, T b, T* r) {
        *r = a + b;
        return false;
      });
      break;
    case Op::kSub:
      BinaryLoop<T, T, T>(x, y, n, out, [](T a, T b, T* r) {
        *r = a - b;
        return false;
      });
      break;
    case Op::kMul:
      BinaryLoop<T, T, T>(x, y, n, out, [](T a, T b, T* r) {
        *r = a * b;
        return false;
      });
      break;
    case Op::kDiv: {
      TANDEM_ASSIGN_OR_RAISE(v, DivisorValidity<T>(cc, x, y, std::move(v)));
      BinaryLoop<T, T, T>(x, y, n, out, [](T a, T b, T* r) {
        *r = a / b;
        return false;
      });
      break;
    }
    case Op::kMod: {
      TANDEM_ASSIGN_OR_RAISE(v, DivisorValidity<T>(cc, x, y, std::move(v)));
      BinaryLoop<T, T, T>(x, y, n, out, [](T a, T b, T* r) {
        *r = std::fmod(a, b);
        return false;
      });
      break;
    }
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

// Decimal arithmetic with storage types A, B (operands) and R (result).
template <typename A, typename B, typename R>
Result<ColumnPtr> DecimalArithTyped(const CallContext& cc, Op op, const Datum& x, const Datum& y) {
  const int64_t n = cc.rows;
  const DataType& ta = x.type();
  const DataType& tb = y.type();
  const DataType& tr = cc.expr.type;
  Validity v = CombineValidity({&x, &y}, n);
  auto values = AllocateOutput(tr, n);
  R* out = values->mutable_data_as<R>();
  const int128_t max128 = decimal::MaxUnscaled(tr.precision);
  const R max = static_cast<R>(max128);
  bool bad = false;
  auto fail = [&](auto f) -> Status {
    if (cc.eval.legacy_overflow) {  // Spark's LEGACY mode: overflowing rows are NULL
      v = NullWhereFlagged<A, B, R>(x, y, n, v, f);
      return Status::OK();
    }
    const int64_t row = FirstBadRow<A, B, R>(x, y, n, f);
    if (row < 0) return Status::OK();
    return ExprError(cc.expr, "decimal overflow (" + DatumValue(x, row).ToString() + ", " +
                                  DatumValue(y, row).ToString() + " as " + tr.ToString() + ")");
  };
  switch (op) {
    case Op::kAdd:
    case Op::kSub: {
      if (tr.scale < std::max(ta.scale, tb.scale)) {
        // Precision loss (decimal(38, s) operands): the exact sum rounded to the result's scale.
        const bool sub = op == Op::kSub;
        const int sa = ta.scale, sb = tb.scale, sr = tr.scale;
        auto f = [=](A a, B b, R* r) {
          int128_t s;
          const bool ok = decimal::AddRescaled(a, sa, b, sb, sub, sr, &s);
          *r = static_cast<R>(s);
          return !ok || s > max128 || s < -max128;
        };
        if (BinaryLoop<A, B, R>(x, y, n, out, f)) TANDEM_RETURN_NOT_OK(fail(f));
        break;
      }
      const R ma = static_cast<R>(decimal::Pow10(tr.scale - ta.scale));
      const R mb = static_cast<R>(decimal::Pow10(tr.scale - tb.scale));
      const bool sub = op == Op::kSub;
      auto f = [=](A a, B b, R* r) {
        R sa, sb;
        bool o = __builtin_mul_overflow(static_cast<R>(a), ma, &sa);
        o |= __builtin_mul_overflow(static_cast<R>(b), mb, &sb);
        o |= sub ? __builtin_sub_overflow(sa, sb, r) : __builtin_add_overflow(sa, sb, r);
        return o | (*r > max) | (*r < -max);
      };
      if (tr.scale - ta.scale <= 18 && tr.scale - tb.scale <= 18) {
        // int64 math, widened at the store; the precision check only where int64 can pass it.
        const int64_t ma64 = static_cast<int64_t>(ma), mb64 = static_cast<int64_t>(mb);
        const int64_t max64 = static_cast<int64_t>(std::min<int128_t>(max128, INT64_MAX));
        auto fast = [=](A a, B b, R* r) {
          int64_t a64, b64, sa, sb, s64;
          const bool a_wide = !NarrowTo64(a, &a64);  // both always narrowed
          const bool b_wide = !NarrowTo64(b, &b64);
          bool o = a_wide || b_wide;
          o |= __builtin_mul_overflow(a64, ma64, &sa);
          o |= __builtin_mul_overflow(b64, mb64, &sb);
          o |= sub ? __builtin_sub_overflow(sa, sb, &s64) : __builtin_add_overflow(sa, sb, &s64);
          *r = static_cast<R>(s64);
          return o | (s64 > max64) | (s64 < -max64);
        };
        if (TwoSpeedLoop<A, B, R>(x, y, n, out, fast, f)) TANDEM_RETURN_NOT_OK(fail(f));
      } else if (BinaryLoop<A, B, R>(x, y, n, out, f)) {
        TANDEM_RETURN_NOT_OK(fail(f));
      }
      break;
    }
    case Op::kMul: {
      const int drop = ta.scale + tb.scale - tr.scale;
      if (drop == 0) {
        auto f = [=](A a, B b, R* r) {
          bool o = __builtin_mul_overflow(static_cast<R>(a), static_cast<R>(b), r);
          return o | (*r > max) | (*r < -max);
        };
        // int64 product, widened at the store; int128 only for blocks where it overflows.
        const int64_t max64 = static_cast<int64_t>(std::min<int128_t>(max128, INT64_MAX));
        auto fast = [=](A a, B b, R* r) {
          int64_t a64, b64, p;
          const bool a_wide = !NarrowTo64(a, &a64);  // both always narrowed
          const bool b_wide = !NarrowTo64(b, &b64);
          bool o = a_wide || b_wide;
          o |= __builtin_mul_overflow(a64, b64, &p);
          *r = static_cast<R>(p);
          return o | (p > max64) | (p < -max64);
        };
        if (TwoSpeedLoop<A, B, R>(x, y, n, out, fast, f)) TANDEM_RETURN_NOT_OK(fail(f));
      } else {
        auto f = [=](A a, B b, R* r) {
          int128_t p;
          const bool ok = decimal::MultiplyRescaled(a, b, drop, &p);
          *r = static_cast<R>(p);
          return !ok || p > max128 || p < -max128;
        };
        bad = BinaryLoop<A, B, R>(x, y, n, out, f);
        if (bad) TANDEM_RETURN_NOT_OK(fail(f));
      }
      break;
    }
    case Op::kDiv: {
      TANDEM_ASSIGN_OR_RAISE(v, DivisorValidity<B>(cc, x, y, std::move(v)));
      const int up = tr.scale - ta.scale + tb.scale;
      auto f = [=](A a, B b, R* r) {
        if (b == 0) {
          *r = 0;
          return false;
        }
        int128_t q;
        const bool ok = decimal::DivideScaled(a, up, b, &q);
        *r = static_cast<R>(q);
        return !ok || q > max128 || q < -max128;
      };
      if (BinaryLoop<A, B, R>(x, y, n, out, f)) TANDEM_RETURN_NOT_OK(fail(f));
      break;
    }
    case Op::kMod: {
      TANDEM_ASSIGN_OR_RAISE(v, DivisorValidity<B>(cc, x, y, std::move(v)));
      const int s = std::max(ta.scale, tb.scale);
      const int128_t ma = decimal::Pow10(s - ta.scale), mb = decimal::Pow10(s - tb.scale);
      const int rs = tr.scale;
      auto f = [=](A a, B b, R* r) {
        if (b == 0) {
          *r = 0;
          return false;
        }
        int128_t sa, sb;
        bool o = __builtin_mul_overflow(static_cast<int128_t>(a), ma, &sa);
        o |= __builtin_mul_overflow(static_cast<int128_t>(b), mb, &sb);
        int128_t m = o ? 0 : sa % sb, out128;
        o |= !decimal::Rescale(m, s, rs, &out128);
        *r = static_cast<R>(out128);
        return o;
      };
      if (BinaryLoop<A, B, R>(x, y, n, out, f)) TANDEM_RETURN_NOT_OK(fail(f));
      break;
    }
  }
  return MakeColumn(tr, n, v, std::move(values));
}

Result<ColumnPtr> DecimalArith(const CallContext& cc, Op op, const Datum& x, const Datum& y) {
  const bool wa = x.type().is_wide_decimal(), wb = y.type().is_wide_decimal();
  const bool wr = cc.expr.type.is_wide_decimal();
  if (!x.type().is_decimal() || !y.type().is_decimal() || !cc.expr.type.is_decimal()) {
    return Status::Internal("decimal arithmetic on non-decimal operands: " + cc.expr.ToString());
  }
#define TANDEM_DEC_CASE(WA, WB, WR, A, B, R) \
  if (wa == WA && wb == WB && wr == WR) return DecimalArithTyped<A, B, R>(cc, op, x, y);
  TANDEM_DEC_CASE(false, false, false, int64_t, int64_t, int64_t)
  TANDEM_DEC_CASE(false, false, true, int64_t, int64_t, int128_t)
  TANDEM_DEC_CASE(true, false, true, int128_t, int64_t, int128_t)
  TANDEM_DEC_CASE(false, true, true, int64_t, int128_t, int128_t)
  TANDEM_DEC_CASE(true, true, true, int128_t, int128_t, int128_t)
  TANDEM_DEC_CASE(true, false, false, int128_t, int64_t, int64_t)
  TANDEM_DEC_CASE(false, true, false, int64_t, int128_t, int64_t)
  TANDEM_DEC_CASE(true, true, false, int128_t, int128_t, int64_t)
#undef TANDEM_DEC_CASE
  return Status::Internal("unreachable decimal case");
}

Result<ColumnPtr> DateArith(const CallContext& cc, Op op, const Datum& x, const Datum& y) {
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x, &y}, n);
  if (cc.expr.type.id == TypeId::kInt64) {  // date - date
    auto values = AllocateOutput(cc.expr.type, n);
    BinaryLoop<int32_t, int32_t, int64_t>(x, y, n, values->mutable_data_as<int64_t>(),
                                          [](int32_t a, int32_t b, int64_t* r) {
                                            *r = int64_t{a} - b;
                                            return false;
                                          });
    return MakeColumn(cc.expr.type, n, v, std::move(values));
  }
  auto values = AllocateOutput(cc.expr.type, n);
  int32_t* out = values->mutable_data_as<int32_t>();
  auto f = [op](int32_t a, int32_t b, int32_t* r) {
    return op == Op::kSub ? __builtin_sub_overflow(a, b, r) : __builtin_add_overflow(a, b, r);
  };
  if (BinaryLoop<int32_t, int32_t, int32_t>(x, y, n, out, f) &&
      FirstBadRow<int32_t, int32_t, int32_t>(x, y, n, f) >= 0) {
    return ExprError(cc.expr, "date out of range");
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

Result<ColumnPtr> Arith(const CallContext& cc, const std::vector<Datum>& args) {
  if (args.size() != 2) return Status::Internal("arithmetic needs 2 arguments");
  const Op op = OpOf(cc.expr.name);
  const DataType& t = cc.expr.type;
  const Datum& x = args[0];
  const Datum& y = args[1];
  if (x.type().id == TypeId::kDate32 || y.type().id == TypeId::kDate32) {
    return DateArith(cc, op, x, y);
  }
  if (t.is_decimal()) return DecimalArith(cc, op, x, y);
  if (x.type() != t || y.type() != t) {
    return Status::Internal("arithmetic operand types differ from the result type: " +
                            cc.expr.ToString());
  }
  auto unsupported = [&]() -> Result<ColumnPtr> {
    return Status::Internal("arithmetic on " + t.ToString());
  };
  // Integers and floats only: a timestamp is stored as int64 but has no arithmetic here.
  if (!t.is_integer() && !t.is_floating()) return unsupported();
  auto arith = [&]<typename T>(Tag<T>) -> Result<ColumnPtr> {
    if constexpr (std::is_floating_point_v<T>) {
      return FloatArith<T>(cc, op, x, y);
    } else if constexpr (sizeof(T) <= 8) {
      return IntegerArith<T>(cc, op, x, y);
    } else {
      return unsupported();
    }
  };
  return VisitStorage(t, Overloaded{arith, [&](auto) { return unsupported(); }});
}

Result<ColumnPtr> Negate(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& x = args[0];
  const DataType& t = cc.expr.type;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x}, n);
  auto values = AllocateOutput(t, n);
  bool bad = false;
  DispatchFixed(t, [&]<typename T>() {
    const T* in = x.column->values_as<T>();
    T* out = values->mutable_data_as<T>();
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
    } else if constexpr (std::is_unsigned_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<T>(T{0} - in[i]);
        bad |= in[i] != 0 && x.IsValid(i);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) bad |= __builtin_sub_overflow(T{0}, in[i], out + i);
    }
  });
  if (bad && !cc.eval.legacy_overflow) {  // LEGACY mode keeps the wrapped value, as Java does
    for (int64_t i = 0; i < n; ++i) {
      if (!x.IsValid(i)) continue;
      Value val = DatumValue(x, i);
      if (t.is_unsigned() ? val.i64 != 0
                          : (t.byte_width() == 8 && val.i64 == INT64_MIN) ||
                                (t.id == TypeId::kInt32 && val.i64 == INT32_MIN) ||
                                (t.id == TypeId::kInt16 && val.i64 == INT16_MIN) ||
                                (t.id == TypeId::kInt8 && val.i64 == INT8_MIN)) {
        return ExprError(cc.expr, "integer overflow (" + val.ToString() + ")");
      }
    }
  }
  return MakeColumn(t, n, v, std::move(values));
}

}  // namespace

void RegisterArithmeticKernels(KernelMap* map) {
  for (const char* n : {"add", "subtract", "multiply", "divide", "modulo"}) {
    (*map)[n] = {Arith, true};
  }
  (*map)["negate"] = {Negate, true};
}

}  // namespace tandem::cpu::internal
