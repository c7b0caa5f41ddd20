// The GPU expression interpreter: runs a compiled program (program.h) for one row on a small
// per-thread stack of tagged values. One generic kernel (evaluate.cu) calls it for every row, so
// any expression the compiler accepts runs without generating code per expression. Each opcode
// reproduces its CPU kernel (expr/cpu/kernels_*.cc) for one row: NULL propagation, three-valued
// logic, overflow and invalid-cast errors (reported as the first failing (instruction, row)),
// division by zero giving NULL or, in ANSI mode, an error.
#pragma once

#include <cstdint>

#include "tandem/expr/gpu/device_numeric.cuh"
#include "tandem/expr/gpu/device_strings.cuh"
#include "tandem/expr/gpu/program_code.h"
#include "tandem/types/type_id.h"

namespace tandem::gpu::internal {

struct Val {
  union {
    int64_t i;
    double f;
    i128 d;
    struct {
      const uint8_t* p;
      int64_t len;
    } s;
  };
  uint8_t null;
  uint8_t fold;
};

struct ColView {
  const void* values = nullptr;
  const uint8_t* validity = nullptr;  // null: all valid
  const uint8_t* data = nullptr;      // string bytes
  int32_t type = 0;                   // TypeId
  int32_t wide = 0;                   // 128-bit decimal storage
};

struct DeviceStatus {
  unsigned long long error_key;  // (instruction << 44) | row of the first error; ~0 when none
  unsigned long long null_count;
};
constexpr int kErrorRowBits = 44;

struct InterpParams {
  const Instr* code;
  int32_t ncode;
  const ConstVal* consts;
  const uint8_t* pool;
  const ColView* cols;
  DeviceStatus* status;
  bool ansi;
};

__device__ inline StrView View(const Val& v) { return StrView{v.s.p, v.s.len, v.fold}; }
__device__ inline void SetView(Val& v, const StrView& s) {
  v.s.p = s.p;
  v.s.len = s.len;
  v.fold = s.fold;
}

__device__ inline int FloatOrder(double a, double b) {
  const bool na = a != a, nb = b != b;
  if (na || nb) return na && nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

__device__ inline int Order(const Val& x, const Val& y, int cls) {
  switch (cls) {
    case kCmpSigned:
      return x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
    case kCmpUnsigned: {
      const uint64_t a = static_cast<uint64_t>(x.i), b = static_cast<uint64_t>(y.i);
      return a < b ? -1 : (a > b ? 1 : 0);
    }
    case kCmpFloat:
      return FloatOrder(x.f, y.f);
    case kCmpDec:
      return x.d < y.d ? -1 : (x.d > y.d ? 1 : 0);
    default:
      return CompareStr(View(x), View(y));
  }
}

__device__ inline bool OrderHolds(int op, int ord) {
  switch (op) {
    case kEq:
      return ord == 0;
    case kNe:
      return ord != 0;
    case kLt:
      return ord < 0;
    case kLe:
      return ord <= 0;
    case kGt:
      return ord > 0;
    default:
      return ord >= 0;
  }
}

// Value range of an integer TypeId (as int128).
__device__ inline void IntRange(int type, i128* lo, i128* hi) {
  switch (static_cast<TypeId>(type)) {
    case TypeId::kInt8:
      *lo = -128, *hi = 127;
      return;
    case TypeId::kInt16:
      *lo = -32768, *hi = 32767;
      return;
    case TypeId::kInt32:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return;
    case TypeId::kUInt8:
      *lo = 0, *hi = 255;
      return;
    case TypeId::kUInt16:
      *lo = 0, *hi = 65535;
      return;
    case TypeId::kUInt32:
      *lo = 0, *hi = UINT32_MAX;
      return;
    case TypeId::kUInt64:
      *lo = 0, *hi = static_cast<i128>(UINT64_MAX);
      return;
    default:
      *lo = INT64_MIN, *hi = INT64_MAX;
      return;
  }
}

__device__ inline i128 IntValue(const Val& v, int type) {
  if (static_cast<TypeId>(type) == TypeId::kUInt64)
    return static_cast<i128>(static_cast<uint64_t>(v.i));
  return v.i;
}
__device__ inline int64_t FromInt128(i128 v) {
  return static_cast<int64_t>(static_cast<uint64_t>(static_cast<u128>(v)));
}

// Correctly rounded int128 -> double (the CPU's conversion rounds to nearest as well).
__device__ inline double I128ToDouble(i128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return static_cast<double>(static_cast<int64_t>(v));
  const u128 m = decimal::Magnitude(v);
  const uint64_t hi = static_cast<uint64_t>(m >> 64);
  const int shift = 64 - __clzll(static_cast<long long>(hi));
  uint64_t top = static_cast<uint64_t>(m >> shift);
  if ((m & ((u128{1} << shift) - 1)) != 0) top |= 1;  // sticky bit keeps ties honest
  const double r = ldexp(static_cast<double>(top), shift);
  return v < 0 ? -r : r;
}

__device__ inline double DecToDouble(i128 unscaled, int scale) {
  const i128 p = decimal::Pow10(scale);
  const i128 ip = unscaled / p, fp = unscaled % p;
  return I128ToDouble(ip) + I128ToDouble(fp) / I128ToDouble(p);
}

__device__ inline bool IsIntegerType(int t) {
  return t >= static_cast<int>(TypeId::kInt8) && t <= static_cast<int>(TypeId::kUInt64);
}

// CAST between numbers and booleans (CPU ReadNum/WriteNum); false when the value does not fit.
__device__ inline bool CastNum(Val& v, int from, int to, int64_t meta) {
  const int from_scale = static_cast<int>(meta & 0xFF);
  const int to_precision = static_cast<int>((meta >> 8) & 0xFF);
  const int to_scale = static_cast<int>((meta >> 16) & 0xFF);
  const TypeId f = static_cast<TypeId>(from), t = static_cast<TypeId>(to);
  const bool is_float = f == TypeId::kFloat32 || f == TypeId::kFloat64;
  double fv = 0;
  i128 iv = 0;
  int scale = 0;
  if (is_float) {
    fv = v.f;
  } else if (f == TypeId::kDecimal) {
    iv = v.d;
    scale = from_scale;
  } else {
    iv = IntValue(v, from);
  }
  if (t == TypeId::kFloat32 || t == TypeId::kFloat64) {
    const double d = is_float ? fv : (scale == 0 ? I128ToDouble(iv) : DecToDouble(iv, scale));
    v.f = t == TypeId::kFloat32 ? static_cast<double>(static_cast<float>(d)) : d;
    return true;
  }
  if (t == TypeId::kBool) {
    v.i = is_float ? fv != 0 : iv != 0;
    return true;
  }
  if (t == TypeId::kDecimal) {
    i128 out;
    if (!decimal::Rescale(iv, scale, to_scale, &out) || !decimal::FitsPrecision(out, to_precision))
      return false;
    v.d = out;
    return true;
  }
  i128 x;
  if (is_float) {
    if (!isfinite(fv) || fabs(fv) >= 1.8e19) return false;
    const double tr = trunc(fv);
    x = tr >= 0 ? static_cast<i128>(static_cast<uint64_t>(tr))
                : -static_cast<i128>(static_cast<uint64_t>(-tr));
  } else {
    x = scale > 0 ? iv / decimal::Pow10(scale) : iv;
  }
  i128 lo, hi;
  IntRange(to, &lo, &hi);
  if (x < lo || x > hi) return false;
  v.i = FromInt128(x);
  return true;
}

// Exact powers of ten as the CPU's std::pow(10.0, d) gives them (correctly rounded).
__device__ inline double Pow10Double(int64_t d) {
  const double kPos[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const double kNeg[] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                         1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                         1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
  if (d >= 0 && d <= 22) return kPos[d];
  if (d < 0 && d >= -22) return kNeg[-d];
  return pow(10.0, static_cast<double>(d));
}

__device__ inline int64_t DiffUnits(int unit, int64_t a_us, int64_t b_us) {
  const int64_t ad = DFloorDiv(a_us, kDevMicrosPerDay), bd = DFloorDiv(b_us, kDevMicrosPerDay);
  const DCivil ca = DCivilFromDays(ad), cb = DCivilFromDays(bd);
  switch (unit) {
    case kTYear:
      return cb.year - ca.year;
    case kTQuarter:
      return (cb.year * 4 + (cb.month - 1) / 3) - (ca.year * 4 + (ca.month - 1) / 3);
    case kTMonth:
      return (cb.year * 12 + cb.month) - (ca.year * 12 + ca.month);
    case kTWeek:
      return DFloorDiv(bd - DIsoWeekday(bd) + 1, 7) - DFloorDiv(ad - DIsoWeekday(ad) + 1, 7);
    case kTDay:
      return bd - ad;
    case kTHour:
      return DFloorDiv(b_us, 3600000000LL) - DFloorDiv(a_us, 3600000000LL);
    case kTMinute:
      return DFloorDiv(b_us, 60000000LL) - DFloorDiv(a_us, 60000000LL);
    case kTSecond:
      return DFloorDiv(b_us, 1000000LL) - DFloorDiv(a_us, 1000000LL);
    case kTMillisecond:
      return DFloorDiv(b_us, 1000LL) - DFloorDiv(a_us, 1000LL);
    default:
      return b_us - a_us;
  }
}

__device__ __constant__ const uint8_t kSpace[1] = {' '};

// Instruction `in` (at `pc`) for `row` on the stack st[0..sp): one function per opcode (or per
// opcodes that share their code), ExecOp<op> naming it. A jump sets pc to the instruction before
// its target. False when the row raised an error (recorded in the status). The interpreter
// (RunRow) reaches them through Exec's switch; a generated kernel (kernel_gen.h) calls
// ExecOp<op> once per instruction with `in` a compile-time constant, so the compiler sees only
// the code of the opcodes the expression uses. Each body sits in a do-while: `break` and
// `continue` at its top level end the instruction.
#define TANDEM_INTERP_ARGS \
  const InterpParams &P, const Instr in, int &pc, int64_t row, Val *st, int &sp

__device__ __forceinline__ bool Fail(const InterpParams& P, int at, int64_t row) {
  const unsigned long long key =
      (static_cast<unsigned long long>(at) << kErrorRowBits) | static_cast<unsigned long long>(row);
  atomicMin(&P.status->error_key, key);
  return false;
}

template <Op kOp>
__device__ __forceinline__ bool ExecOp(TANDEM_INTERP_ARGS);
// ExecOp<op> is `fn`.
#define TANDEM_EXEC_OP(op, fn)                                         \
  template <>                                                          \
  __device__ __forceinline__ bool ExecOp<Op::op>(TANDEM_INTERP_ARGS) { \
    return fn(P, in, pc, row, st, sp);                                 \
  }

__device__ __forceinline__ bool ExecColumn(TANDEM_INTERP_ARGS) {
  do {
    {
      const ColView& c = P.cols[in.imm];
      Val& v = st[sp++];
      v.fold = 0;
      v.null = c.validity && !((c.validity[row >> 3] >> (row & 7)) & 1);
      switch (static_cast<TypeId>(in.a)) {
        case TypeId::kBool:
        case TypeId::kUInt8:
          v.i = static_cast<const uint8_t*>(c.values)[row];
          break;
        case TypeId::kInt8:
          v.i = static_cast<const int8_t*>(c.values)[row];
          break;
        case TypeId::kInt16:
          v.i = static_cast<const int16_t*>(c.values)[row];
          break;
        case TypeId::kUInt16:
          v.i = static_cast<const uint16_t*>(c.values)[row];
          break;
        case TypeId::kInt32:
        case TypeId::kDate32:
          v.i = static_cast<const int32_t*>(c.values)[row];
          break;
        case TypeId::kUInt32:
          v.i = static_cast<const uint32_t*>(c.values)[row];
          break;
        case TypeId::kFloat32:
          v.f = static_cast<const float*>(c.values)[row];
          break;
        case TypeId::kFloat64:
          v.f = static_cast<const double*>(c.values)[row];
          break;
        case TypeId::kDecimal:
          v.d = c.wide ? static_cast<const i128*>(c.values)[row]
                       : i128{static_cast<const int64_t*>(c.values)[row]};
          break;
        case TypeId::kString:
        case TypeId::kBinary: {
          const int64_t* off = static_cast<const int64_t*>(c.values);
          v.s.p = c.data + off[row];
          v.s.len = off[row + 1] - off[row];
          break;
        }
        default:  // int64, uint64, timestamp
          v.i = static_cast<const int64_t*>(c.values)[row];
          break;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kColumn, ExecColumn)

__device__ __forceinline__ bool ExecConst(TANDEM_INTERP_ARGS) {
  do {
    {
      const ConstVal& c = P.consts[in.imm];
      Val& v = st[sp++];
      v.null = c.is_null;
      v.fold = 0;
      switch (static_cast<VClass>(in.b)) {
        case VClass::kDec:
          v.d = c.dec;
          break;
        case VClass::kFlt:
          v.f = c.f;
          break;
        case VClass::kStr:
          v.s.p = P.pool + c.str_offset;
          v.s.len = c.str_length;
          break;
        default:
          v.i = c.i;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kConst, ExecConst)

__device__ __forceinline__ bool ExecDrop(TANDEM_INTERP_ARGS) {
  do {
    sp -= in.a;
    break;
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDrop, ExecDrop)

__device__ __forceinline__ bool ExecArithInt(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      const i128 a = IntValue(x, in.b), b = IntValue(y, in.b);
      i128 lo, hi, r = 0;
      IntRange(in.b, &lo, &hi);
      const bool is_signed = lo < 0;
      switch (in.a) {
        case kAdd:
          r = a + b;
          break;
        case kSub:
          r = a - b;
          break;
        case kMul:
          if (!is_signed) {
            const u128 p = static_cast<u128>(a) * static_cast<u128>(b);
            if (p > static_cast<u128>(hi)) return Fail(P, pc, row);
            r = static_cast<i128>(p);
          } else {
            r = a * b;
          }
          break;
        default: {  // divide, modulo
          if (b == 0) {
            if (P.ansi) return Fail(P, pc, row);
            x.null = 1;
            x.i = 0;
            continue;
          }
          if (is_signed && b == -1) {
            r = in.a == kMod ? 0 : -a;
            if (in.a == kDiv && a == lo) return Fail(P, pc, row);
          } else {
            r = in.a == kMod ? a % b : a / b;
          }
        }
      }
      if (r < lo || r > hi) return Fail(P, pc, row);
      x.i = FromInt128(r);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kArithInt, ExecArithInt)

__device__ __forceinline__ bool ExecArithFloat(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      if ((in.a == kDiv || in.a == kMod) && y.f == 0) {
        if (P.ansi) return Fail(P, pc, row);
        x.null = 1;
        break;
      }
      if (in.b) {
        const float a = static_cast<float>(x.f), b = static_cast<float>(y.f);
        float r = in.a == kAdd   ? a + b
                  : in.a == kSub ? a - b
                  : in.a == kMul ? a * b
                  : in.a == kDiv ? a / b
                                 : fmodf(a, b);
        x.f = r;
      } else {
        const double a = x.f, b = y.f;
        x.f = in.a == kAdd   ? a + b
              : in.a == kSub ? a - b
              : in.a == kMul ? a * b
              : in.a == kDiv ? a / b
                             : fmod(a, b);
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kArithFloat, ExecArithFloat)

__device__ __forceinline__ bool ExecArithDec(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      const int sa = static_cast<int>(in.imm & 0xFF), sb = static_cast<int>((in.imm >> 8) & 0xFF);
      const int sr = static_cast<int>((in.imm >> 16) & 0xFF);
      const i128 max = decimal::MaxUnscaled(in.c);
      const i128 a = x.d, b = y.d;
      i128 r = 0;
      bool bad = false;
      switch (in.a) {
        case kAdd:
        case kSub: {
          if (sr < (sa > sb ? sa : sb)) {  // precision loss: exact sum rounded to sr
            bad = !decimal::AddRescaled(a, sa, b, sb, in.a == kSub, sr, &r);
            break;
          }
          i128 xa, xb;
          bad |= decimal::MulOverflow(a, decimal::Pow10(sr - sa), &xa);
          bad |= decimal::MulOverflow(b, decimal::Pow10(sr - sb), &xb);
          bad |= in.a == kSub ? decimal::SubOverflow(xa, xb, &r) : decimal::AddOverflow(xa, xb, &r);
          break;
        }
        case kMul: {
          const int drop = sa + sb - sr;
          if (drop == 0) {
            bad = decimal::MulOverflow(a, b, &r);
          } else {
            bad = !decimal::MultiplyRescaled(a, b, drop, &r);
          }
          break;
        }
        case kDiv: {
          if (b == 0) {
            if (P.ansi) return Fail(P, pc, row);
            x.null = 1;
            continue;
          }
          bad = !decimal::DivideScaled(a, sr - sa + sb, b, &r);
          break;
        }
        default: {  // modulo
          if (b == 0) {
            if (P.ansi) return Fail(P, pc, row);
            x.null = 1;
            continue;
          }
          const int s = sa > sb ? sa : sb;
          i128 xa, xb;
          bool o = decimal::MulOverflow(a, decimal::Pow10(s - sa), &xa);
          o |= decimal::MulOverflow(b, decimal::Pow10(s - sb), &xb);
          const i128 m = o ? 0 : xa % xb;
          o |= !decimal::Rescale(m, s, sr, &r);
          if (o) return Fail(P, pc, row);
          x.d = r;
          continue;
        }
      }
      if (bad || r > max || r < -max) return Fail(P, pc, row);
      x.d = r;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kArithDec, ExecArithDec)

__device__ __forceinline__ bool ExecDateArith(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      if (in.b) {
        x.i = x.i - y.i;
        break;
      }
      const int64_t r = in.a == kSub ? x.i - y.i : x.i + y.i;
      if (r < INT32_MIN || r > INT32_MAX) return Fail(P, pc, row);
      x.i = r;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDateArith, ExecDateArith)

__device__ __forceinline__ bool ExecNegateAbs(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const TypeId t = static_cast<TypeId>(in.b);
      const bool neg = in.op == Op::kNegate;
      if (t == TypeId::kFloat32 || t == TypeId::kFloat64) {
        x.f = neg ? -x.f : fabs(x.f);
      } else if (t == TypeId::kDecimal) {
        x.d = neg || x.d < 0 ? -x.d : x.d;
      } else {
        i128 lo, hi;
        IntRange(in.b, &lo, &hi);
        if (lo == 0) {  // unsigned
          if (neg && x.i != 0) return Fail(P, pc, row);
        } else if (neg || x.i < 0) {
          if (x.i == lo) return Fail(P, pc, row);
          x.i = -x.i;
        }
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kNegate, ExecNegateAbs)
TANDEM_EXEC_OP(kAbs, ExecNegateAbs)

__device__ __forceinline__ bool ExecSign(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const TypeId t = static_cast<TypeId>(in.b);
      if (t == TypeId::kFloat32 || t == TypeId::kFloat64) {
        x.i = (x.f > 0) - (x.f < 0);
      } else if (t == TypeId::kDecimal) {
        x.i = (x.d > 0) - (x.d < 0);
      } else if (t == TypeId::kUInt64) {
        x.i = x.i != 0;
      } else {
        x.i = (x.i > 0) - (x.i < 0);
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kSign, ExecSign)

__device__ __forceinline__ bool ExecCompare(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      x.i = OrderHolds(in.a, Order(x, y, in.b));
      x.fold = 0;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kCompare, ExecCompare)

__device__ __forceinline__ bool ExecDistinct(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      const bool distinct = in.a == 1;
      bool value;
      if (x.null || y.null) {
        value = (x.null != y.null) == distinct;
      } else {
        value = (Order(x, y, in.b) != 0) == distinct;
      }
      x.null = 0;
      x.fold = 0;
      x.i = value;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDistinct, ExecDistinct)

__device__ __forceinline__ bool ExecAndOr(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      const bool av = !x.null && x.i, bv = !y.null && y.i;
      if (in.op == Op::kAnd) {
        const bool known_false = (!x.null && !x.i) || (!y.null && !y.i);
        x.null = !((!x.null && !y.null) || known_false);
        x.i = av && bv;
      } else {
        const bool known_true = av || bv;
        x.null = !((!x.null && !y.null) || known_true);
        x.i = known_true;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kAnd, ExecAndOr)
TANDEM_EXEC_OP(kOr, ExecAndOr)

__device__ __forceinline__ bool ExecNot(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (!x.null) x.i = !x.i;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kNot, ExecNot)

__device__ __forceinline__ bool ExecIsNullIsNotNull(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      x.i = (x.null != 0) == (in.op == Op::kIsNull);
      x.null = 0;
      x.fold = 0;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kIsNull, ExecIsNullIsNotNull)
TANDEM_EXEC_OP(kIsNotNull, ExecIsNullIsNotNull)

__device__ __forceinline__ bool ExecJumpIfNotTrue(TANDEM_INTERP_ARGS) {
  do {
    {
      const Val& x = st[--sp];
      if (x.null || !x.i) pc = static_cast<int>(in.imm) - 1;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kJumpIfNotTrue, ExecJumpIfNotTrue)

__device__ __forceinline__ bool ExecJump(TANDEM_INTERP_ARGS) {
  do {
    pc = static_cast<int>(in.imm) - 1;
    break;
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kJump, ExecJump)

__device__ __forceinline__ bool ExecCoalesce(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a;
      Val* args = st + sp - k;
      int pick = -1;
      for (int j = 0; j < k && pick < 0; ++j) {
        if (!args[j].null) pick = j;
      }
      if (pick > 0) args[0] = args[pick];
      if (pick < 0) args[0].null = 1;
      sp -= k - 1;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kCoalesce, ExecCoalesce)

__device__ __forceinline__ bool ExecNullIf(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (!x.null && !y.null && Order(x, y, in.b) == 0) x.null = 1;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kNullIf, ExecNullIf)

__device__ __forceinline__ bool ExecGreatestLeast(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a;
      Val* args = st + sp - k;
      int best = -1;
      for (int j = 0; j < k; ++j) {
        if (args[j].null) continue;
        if (best < 0) {
          best = j;
          continue;
        }
        const int ord = Order(args[j], args[best], in.b);
        if (in.c ? ord > 0 : ord < 0) best = j;
      }
      if (best > 0) args[0] = args[best];
      if (best < 0) args[0].null = 1;
      sp -= k - 1;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kGreatestLeast, ExecGreatestLeast)

__device__ __forceinline__ bool ExecInList(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a;
      Val* probe = st + sp - k - 1;
      if (!probe->null) {
        bool hit = false, saw_null = false;
        for (int j = 1; j <= k && !hit; ++j) {
          if (probe[j].null) {
            saw_null = true;
            continue;
          }
          hit = Order(*probe, probe[j], in.b) == 0;
        }
        probe->null = !(hit || !saw_null);
        probe->i = hit != (in.c != 0);
        probe->fold = 0;
      }
      sp -= k;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kInList, ExecInList)

__device__ __forceinline__ bool ExecCastNum(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      if (!CastNum(x, in.a, in.b, in.imm)) {
        if (!in.c) return Fail(P, pc, row);
        x.null = 1;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kCastNum, ExecCastNum)

__device__ __forceinline__ bool ExecCastDateToTs(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      x.i = x.i * kDevMicrosPerDay;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kCastDateToTs, ExecCastDateToTs)

__device__ __forceinline__ bool ExecCastTsToDate(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      x.i = DFloorDiv(x.i, kDevMicrosPerDay);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kCastTsToDate, ExecCastTsToDate)

__device__ __forceinline__ bool ExecLike(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const uint16_t* tok = reinterpret_cast<const uint16_t*>(P.pool + in.imm);
      x.i = LikeMatch(View(x), tok, in.imm2, in.a != 0);
      x.fold = 0;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kLike, ExecLike)

__device__ __forceinline__ bool ExecSubstring(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a ? 3 : 2;
      Val* args = st + sp - k;
      sp -= k - 1;
      bool null = false;
      for (int j = 0; j < k; ++j) null |= args[j].null;
      if (null) {
        args[0].null = 1;
        break;
      }
      SetView(args[0], Substring(View(args[0]), args[1].i, in.a != 0, in.a ? args[2].i : 0));
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kSubstring, ExecSubstring)

__device__ __forceinline__ bool ExecTrim(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.b ? 2 : 1;
      Val* args = st + sp - k;
      sp -= k - 1;
      if (args[0].null || (in.b && args[1].null)) {
        args[0].null = 1;
        break;
      }
      const StrView chars = in.b ? View(args[1]) : StrView{kSpace, 1, 0};
      SetView(args[0], Trim(View(args[0]), chars, (in.a & 1) != 0, (in.a & 2) != 0));
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kTrim, ExecTrim)

__device__ __forceinline__ bool ExecLeftRight(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      SetView(x, LeftRight(View(x), y.i, in.a != 0));
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kLeftRight, ExecLeftRight)

__device__ __forceinline__ bool ExecFold(TANDEM_INTERP_ARGS) {
  do {
    st[sp - 1].fold = static_cast<uint8_t>(in.a);
    break;
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kFold, ExecFold)

__device__ __forceinline__ bool ExecLength(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const int64_t n = in.a ? x.s.len : CharCount(View(x));
      x.i = static_cast<int32_t>(n);
      x.fold = 0;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kLength, ExecLength)

__device__ __forceinline__ bool ExecStrposAffix(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      const StrView s = View(x), t = View(y);
      int64_t r;
      if (in.op == Op::kStrpos) {
        const int64_t at = Find(s, t);
        r = at < 0 ? 0 : static_cast<int32_t>(CharCount(Sub(s, 0, at)) + 1);
      } else if (in.a == 0) {
        r = t.len <= s.len ? EqualAt(s, 0, t) : CompareStr(s, t) == 0;
      } else if (in.a == 1) {
        r = s.len >= t.len && EqualAt(s, s.len - t.len, t);
      } else {
        r = t.len == 0 || Find(s, t) >= 0;
      }
      x.i = r;
      x.fold = 0;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kStrpos, ExecStrposAffix)
TANDEM_EXEC_OP(kAffix, ExecStrposAffix)

__device__ __forceinline__ bool ExecExtract(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const int64_t raw = x.i;
      if (in.a == kEpoch) {
        x.f = in.b ? static_cast<double>(raw) / 1e6 : static_cast<double>(raw) * 86400.0;
        break;
      }
      const int64_t day = in.b ? DFloorDiv(raw, kDevMicrosPerDay) : raw;
      const int64_t us = in.b ? raw - day * kDevMicrosPerDay : 0;
      int64_t r = 0;
      switch (in.a) {
        case kYear:
          r = DCivilFromDays(day).year;
          break;
        case kQuarter:
          r = (DCivilFromDays(day).month - 1) / 3 + 1;
          break;
        case kMonth:
          r = DCivilFromDays(day).month;
          break;
        case kDay:
          r = DCivilFromDays(day).day;
          break;
        case kWeek:
          r = DIsoWeek(day);
          break;
        case kDayOfWeek:
          r = DIsoWeekday(day) % 7;
          break;
        case kIsoDow:
          r = DIsoWeekday(day);
          break;
        case kDayOfYear:
          r = day - DDaysFromCivil(DCivilFromDays(day).year, 1, 1) + 1;
          break;
        case kHour:
          r = us / 3600000000LL;
          break;
        case kMinute:
          r = us / 60000000LL % 60;
          break;
        case kSecond:
          r = us / 1000000LL % 60;
          break;
        case kMillisecond:
          r = us / 1000LL % 60000;
          break;
        default:
          r = us % 60000000LL;
      }
      x.i = static_cast<int32_t>(r);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kExtract, ExecExtract)

__device__ __forceinline__ bool ExecDateTrunc(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      int64_t day = in.b ? DFloorDiv(x.i, kDevMicrosPerDay) : x.i;
      int64_t us = in.b ? x.i - day * kDevMicrosPerDay : 0;
      const DCivil c = DCivilFromDays(day);
      switch (in.a) {
        case kTYear:
          day = DDaysFromCivil(c.year, 1, 1), us = 0;
          break;
        case kTQuarter:
          day = DDaysFromCivil(c.year, (c.month - 1) / 3 * 3 + 1, 1), us = 0;
          break;
        case kTMonth:
          day = DDaysFromCivil(c.year, c.month, 1), us = 0;
          break;
        case kTWeek:
          day = day - DIsoWeekday(day) + 1, us = 0;
          break;
        case kTDay:
          us = 0;
          break;
        case kTHour:
          us -= us % 3600000000LL;
          break;
        case kTMinute:
          us -= us % 60000000LL;
          break;
        case kTSecond:
          us -= us % 1000000LL;
          break;
        case kTMillisecond:
          us -= us % 1000LL;
          break;
        default:
          break;
      }
      x.i = in.b ? day * kDevMicrosPerDay + us : static_cast<int32_t>(day);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDateTrunc, ExecDateTrunc)

__device__ __forceinline__ bool ExecAddInterval(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& k = st[--sp];
      if (x.null || k.null) {
        x.null = 1;
        break;
      }
      int64_t micros = in.b ? x.i : x.i * kDevMicrosPerDay;
      bool ok = true;
      if (in.a) {
        const int64_t day = DFloorDiv(micros, kDevMicrosPerDay);
        const int64_t us = micros - day * kDevMicrosPerDay;
        const i128 m = static_cast<i128>(k.i) * in.a;
        int64_t out_day = 0;
        ok = m >= INT64_MIN && m <= INT64_MAX && DAddMonths(day, static_cast<int64_t>(m), &out_day);
        micros = out_day * kDevMicrosPerDay + us;
      } else {
        const i128 sum = static_cast<i128>(k.i) * in.imm;
        ok = sum >= INT64_MIN && sum <= INT64_MAX;
        const i128 total = static_cast<i128>(micros) + sum;
        ok = ok && total >= INT64_MIN && total <= INT64_MAX;
        micros = static_cast<int64_t>(total);
      }
      if (!in.c) {
        const int64_t day = DFloorDiv(micros, kDevMicrosPerDay);
        ok = ok && day >= INT32_MIN && day <= INT32_MAX;
        x.i = day;
      } else {
        x.i = micros;
      }
      if (!ok) return Fail(P, pc, row);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kAddInterval, ExecAddInterval)

__device__ __forceinline__ bool ExecDateAddSub(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      const int64_t r = in.a ? x.i - y.i : x.i + y.i;
      if (r < INT32_MIN || r > INT32_MAX) return Fail(P, pc, row);
      x.i = r;
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDateAddSub, ExecDateAddSub)

__device__ __forceinline__ bool ExecDateDiff2(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      x.i = static_cast<int32_t>(x.i - y.i);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDateDiff2, ExecDateDiff2)

__device__ __forceinline__ bool ExecDateDiff3(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      const int64_t a = in.b ? x.i : x.i * kDevMicrosPerDay;
      const int64_t b = in.b ? y.i : y.i * kDevMicrosPerDay;
      x.i = DiffUnits(in.a, a, b);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kDateDiff3, ExecDateDiff3)

__device__ __forceinline__ bool ExecFloorCeil(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      if (static_cast<VClass>(in.b) == VClass::kFlt) {
        x.f = in.a ? ceil(x.f) : floor(x.f);
      } else {
        const i128 p = decimal::Pow10(static_cast<int>(in.imm));
        i128 q = x.d / p;
        const i128 r = x.d % p;
        if (in.a && r > 0) ++q;
        if (!in.a && r < 0) --q;
        x.d = q;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kFloorCeil, ExecFloorCeil)

__device__ __forceinline__ bool ExecRoundFloat(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a ? 2 : 1;
      Val* args = st + sp - k;
      sp -= k - 1;
      if (args[0].null || (in.a && args[1].null)) {
        args[0].null = 1;
        break;
      }
      int64_t d = in.a ? args[1].i : 0;
      d = d < -308 ? -308 : (d > 308 ? 308 : d);
      const double v = args[0].f;
      if (d == 0) {
        args[0].f = round(v);
      } else {
        const double f = Pow10Double(d);
        const double r = round(v * f) / f;
        args[0].f = isfinite(r) ? r : v;
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kRoundFloat, ExecRoundFloat)

__device__ __forceinline__ bool ExecRoundExact(TANDEM_INTERP_ARGS) {
  do {
    {
      const int k = in.a ? 2 : 1;
      Val* args = st + sp - k;
      sp -= k - 1;
      if (args[0].null || (in.a && args[1].null)) {
        args[0].null = 1;
        break;
      }
      int64_t d = in.a ? args[1].i : 0;
      d = d < -40 ? -40 : (d > 40 ? 40 : d);
      const int s = static_cast<int>(in.imm & 0xFF);
      const int rp = static_cast<int>((in.imm >> 8) & 0xFF);
      const int rs = static_cast<int>((in.imm >> 16) & 0xFF);
      const bool out_dec = static_cast<TypeId>(in.b) == TypeId::kDecimal;
      const i128 a = in.c ? args[0].d : i128{args[0].i};
      i128 r = a;
      int at_scale = s;
      if (d < s) {
        r = decimal::DivPow10Round(a, static_cast<int>(s - d));
        at_scale = static_cast<int>(d);
      }
      i128 out;
      const int up = out_dec ? rs - at_scale : -at_scale;
      if (up >= 0) {
        if (!decimal::Rescale(r, 0, up, &out)) return Fail(P, pc, row);
      } else {
        out = decimal::DivPow10Round(r, -up);
      }
      if (out_dec) {
        if (!decimal::FitsPrecision(out, rp)) return Fail(P, pc, row);
        args[0].d = out;
      } else {
        i128 lo, hi;
        IntRange(in.b, &lo, &hi);
        if (out < lo || out > hi) return Fail(P, pc, row);
        args[0].i = FromInt128(out);
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kRoundExact, ExecRoundExact)

__device__ __forceinline__ bool ExecMath(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 1];
      if (x.null) break;
      const double v = x.f;
      switch (in.a) {
        case kSqrt:
          x.f = sqrt(v);
          break;
        case kExp:
          x.f = exp(v);
          break;
        case kCbrt:
          x.f = cbrt(v);
          break;
        default:
          if (!(v > 0) && !(v != v)) {
            x.null = 1;
            break;
          }
          x.f = in.a == kLn ? log(v) : (in.a == kLog10 ? log10(v) : log2(v));
      }
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kMath, ExecMath)

__device__ __forceinline__ bool ExecPower(TANDEM_INTERP_ARGS) {
  do {
    {
      Val& x = st[sp - 2];
      const Val& y = st[--sp];
      if (x.null || y.null) {
        x.null = 1;
        break;
      }
      x.f = pow(x.f, y.f);
      break;
    }
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kPower, ExecPower)

__device__ __forceinline__ bool ExecConcat(TANDEM_INTERP_ARGS) {
  do {
    return true;  // the root: the output stage reads the arguments
  } while (false);
  return true;
}
TANDEM_EXEC_OP(kConcat, ExecConcat)

// Instruction `in` for `row`, whatever its opcode (the interpreter's dispatch).
__device__ __forceinline__ bool Exec(TANDEM_INTERP_ARGS) {
  switch (in.op) {
    case Op::kColumn:
      return ExecOp<Op::kColumn>(P, in, pc, row, st, sp);
    case Op::kConst:
      return ExecOp<Op::kConst>(P, in, pc, row, st, sp);
    case Op::kDrop:
      return ExecOp<Op::kDrop>(P, in, pc, row, st, sp);
    case Op::kArithInt:
      return ExecOp<Op::kArithInt>(P, in, pc, row, st, sp);
    case Op::kArithFloat:
      return ExecOp<Op::kArithFloat>(P, in, pc, row, st, sp);
    case Op::kArithDec:
      return ExecOp<Op::kArithDec>(P, in, pc, row, st, sp);
    case Op::kDateArith:
      return ExecOp<Op::kDateArith>(P, in, pc, row, st, sp);
    case Op::kNegate:
      return ExecOp<Op::kNegate>(P, in, pc, row, st, sp);
    case Op::kAbs:
      return ExecOp<Op::kAbs>(P, in, pc, row, st, sp);
    case Op::kSign:
      return ExecOp<Op::kSign>(P, in, pc, row, st, sp);
    case Op::kCompare:
      return ExecOp<Op::kCompare>(P, in, pc, row, st, sp);
    case Op::kDistinct:
      return ExecOp<Op::kDistinct>(P, in, pc, row, st, sp);
    case Op::kAnd:
      return ExecOp<Op::kAnd>(P, in, pc, row, st, sp);
    case Op::kOr:
      return ExecOp<Op::kOr>(P, in, pc, row, st, sp);
    case Op::kNot:
      return ExecOp<Op::kNot>(P, in, pc, row, st, sp);
    case Op::kIsNull:
      return ExecOp<Op::kIsNull>(P, in, pc, row, st, sp);
    case Op::kIsNotNull:
      return ExecOp<Op::kIsNotNull>(P, in, pc, row, st, sp);
    case Op::kJumpIfNotTrue:
      return ExecOp<Op::kJumpIfNotTrue>(P, in, pc, row, st, sp);
    case Op::kJump:
      return ExecOp<Op::kJump>(P, in, pc, row, st, sp);
    case Op::kCoalesce:
      return ExecOp<Op::kCoalesce>(P, in, pc, row, st, sp);
    case Op::kNullIf:
      return ExecOp<Op::kNullIf>(P, in, pc, row, st, sp);
    case Op::kGreatestLeast:
      return ExecOp<Op::kGreatestLeast>(P, in, pc, row, st, sp);
    case Op::kInList:
      return ExecOp<Op::kInList>(P, in, pc, row, st, sp);
    case Op::kCastNum:
      return ExecOp<Op::kCastNum>(P, in, pc, row, st, sp);
    case Op::kCastDateToTs:
      return ExecOp<Op::kCastDateToTs>(P, in, pc, row, st, sp);
    case Op::kCastTsToDate:
      return ExecOp<Op::kCastTsToDate>(P, in, pc, row, st, sp);
    case Op::kLike:
      return ExecOp<Op::kLike>(P, in, pc, row, st, sp);
    case Op::kSubstring:
      return ExecOp<Op::kSubstring>(P, in, pc, row, st, sp);
    case Op::kTrim:
      return ExecOp<Op::kTrim>(P, in, pc, row, st, sp);
    case Op::kLeftRight:
      return ExecOp<Op::kLeftRight>(P, in, pc, row, st, sp);
    case Op::kFold:
      return ExecOp<Op::kFold>(P, in, pc, row, st, sp);
    case Op::kLength:
      return ExecOp<Op::kLength>(P, in, pc, row, st, sp);
    case Op::kStrpos:
      return ExecOp<Op::kStrpos>(P, in, pc, row, st, sp);
    case Op::kAffix:
      return ExecOp<Op::kAffix>(P, in, pc, row, st, sp);
    case Op::kExtract:
      return ExecOp<Op::kExtract>(P, in, pc, row, st, sp);
    case Op::kDateTrunc:
      return ExecOp<Op::kDateTrunc>(P, in, pc, row, st, sp);
    case Op::kAddInterval:
      return ExecOp<Op::kAddInterval>(P, in, pc, row, st, sp);
    case Op::kDateAddSub:
      return ExecOp<Op::kDateAddSub>(P, in, pc, row, st, sp);
    case Op::kDateDiff2:
      return ExecOp<Op::kDateDiff2>(P, in, pc, row, st, sp);
    case Op::kDateDiff3:
      return ExecOp<Op::kDateDiff3>(P, in, pc, row, st, sp);
    case Op::kFloorCeil:
      return ExecOp<Op::kFloorCeil>(P, in, pc, row, st, sp);
    case Op::kRoundFloat:
      return ExecOp<Op::kRoundFloat>(P, in, pc, row, st, sp);
    case Op::kRoundExact:
      return ExecOp<Op::kRoundExact>(P, in, pc, row, st, sp);
    case Op::kMath:
      return ExecOp<Op::kMath>(P, in, pc, row, st, sp);
    case Op::kPower:
      return ExecOp<Op::kPower>(P, in, pc, row, st, sp);
    case Op::kConcat:
      return ExecOp<Op::kConcat>(P, in, pc, row, st, sp);
  }
  return true;
}
#undef TANDEM_EXEC_OP
#undef TANDEM_INTERP_ARGS

// Runs the program for `row`; the result is st[0] (or st[0..a) for a kConcat root). False when
// the row raised an error (recorded in the status).
__device__ inline bool RunRow(const InterpParams& P, int64_t row, Val* st) {
  int sp = 0;
  for (int pc = 0; pc < P.ncode; ++pc) {
    const Instr in = P.code[pc];
    if (!Exec(P, in, pc, row, st, sp)) return false;
    if (in.op == Op::kConcat) return true;
  }
  return true;
}

}  // namespace tandem::gpu::internal
