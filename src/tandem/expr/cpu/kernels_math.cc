// Math kernels: abs, sign, floor, ceil, round (HALF_UP: decimals exactly, floats half away from
// zero), power, sqrt, ln, log10, log2, exp, cbrt. Logarithms of x <= 0 are NULL and sqrt of a
// negative is NaN, as in Spark.
#include <cmath>

#include "tandem/expr/cpu/kernels.h"
#include "tandem/types/decimal.h"

namespace tandem::cpu::internal {
namespace {

inline int128_t DecAt(const Datum& d, int64_t i) {
  if (d.is_scalar()) return d.scalar.DecimalUnscaled();
  return d.type().is_wide_decimal() ? d.column->values_as<int128_t>()[i]
                                    : int128_t{d.column->values_as<int64_t>()[i]};
}

void PutDec(const DataType& t, Buffer* values, int64_t i, int128_t v) {
  if (t.is_wide_decimal()) {
    values->mutable_data_as<int128_t>()[i] = v;
  } else {
    values->mutable_data_as<int64_t>()[i] = static_cast<int64_t>(v);
  }
}

Status Overflow(const CallContext& cc, const Datum& x, int64_t i) {
  return ExprError(cc.expr, "overflow (" + DatumValue(x, i).ToString() + ")");
}

Result<ColumnPtr> Abs(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& x = args[0];
  const DataType& t = cc.expr.type;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x}, n);
  auto values = AllocateValues(t, n);
  int64_t bad_row = -1;
  DispatchFixed(t, [&]<typename T>() {
    const T* in = x.column->values_as<T>();
    T* out = values->mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_unsigned_v<T>) {
        out[i] = in[i];
      } else if constexpr (std::is_floating_point_v<T>) {
        out[i] = std::fabs(in[i]);
      } else {
        if (in[i] < 0 && __builtin_sub_overflow(T{0}, in[i], out + i)) {
          if (bad_row < 0 && x.IsValid(i)) bad_row = i;
        } else if (in[i] >= 0) {
          out[i] = in[i];
        }
      }
    }
  });
  // Spark's LEGACY mode keeps the wrapped value (Java's Math.abs(MIN_VALUE) is MIN_VALUE).
  if (bad_row >= 0 && !cc.eval.legacy_overflow) return Overflow(cc, x, bad_row);
  return MakeColumn(t, n, v, std::move(values));
}

Result<ColumnPtr> Sign(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& x = args[0];
  const int64_t n = cc.rows;
  auto values = AllocateValues(cc.expr.type, n);
  int32_t* out = values->mutable_data_as<int32_t>();
  DispatchFixed(x.type(), [&]<typename T>() {
    const T* in = x.column->values_as<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = (in[i] > T{0}) - (in[i] < T{0});
  });
  return MakeColumn(cc.expr.type, n, CombineValidity({&x}, n), std::move(values));
}

Result<ColumnPtr> FloorCeil(const CallContext& cc, const std::vector<Datum>& args) {
  const bool ceil = cc.expr.name == "ceil";
  const Datum& x = args[0];
  const DataType& in_t = x.type();
  const DataType& t = cc.expr.type;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x}, n);
  if (in_t.is_integer()) return x.column;
  auto values = AllocateValues(t, n);
  if (in_t.is_floating()) {
    const double* in = x.column->values_as<double>();
    double* out = values->mutable_data_as<double>();
    for (int64_t i = 0; i < n; ++i) out[i] = ceil ? std::ceil(in[i]) : std::floor(in[i]);
    return MakeColumn(t, n, v, std::move(values));
  }
  const int128_t p = decimal::Pow10(in_t.scale);
  for (int64_t i = 0; i < n; ++i) {
    const int128_t a = DecAt(x, i);
    int128_t q = a / p;
    const int128_t r = a % p;
    if (ceil && r > 0) ++q;
    if (!ceil && r < 0) --q;
    int128_t out;
    if (!decimal::Rescale(q, 0, t.scale, &out)) return Overflow(cc, x, i);
    PutDec(t, values.get(), i, out);
  }
  return MakeColumn(t, n, v, std::move(values));
}

Result<ColumnPtr> Round(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& x = args[0];
  const DataType& in_t = x.type();
  const DataType& t = cc.expr.type;
  const int64_t n = cc.rows;
  Validity v = args.size() > 1 ? CombineValidity({&x, &args[1]}, n) : CombineValidity({&x}, n);
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  auto digits_at = [&](int64_t i) -> int64_t {
    if (args.size() < 2) return 0;
    return args[1].is_scalar() ? args[1].scalar.i64 : args[1].column->values_as<int32_t>()[i];
  };
  auto values = AllocateValues(t, n);
  if (in_t.is_floating()) {
    const double* in = x.column->values_as<double>();
    double* out = values->mutable_data_as<double>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = std::clamp<int64_t>(digits_at(i), -308, 308);
      if (d == 0) {
        out[i] = std::round(in[i]);
      } else {
        const double f = std::pow(10.0, static_cast<double>(d));
        const double r = std::round(in[i] * f) / f;
        out[i] = std::isfinite(r) ? r : in[i];
      }
    }
    return MakeColumn(t, n, v, std::move(values));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (valid && !bit_util::GetBit(valid, i)) continue;
    const int64_t d = std::clamp<int64_t>(digits_at(i), -40, 40);
    const int s = in_t.is_decimal() ? in_t.scale : 0;
    const int128_t a = in_t.is_decimal() ? DecAt(x, i) : int128_t{DatumValue(x, i).i64};
    int128_t r = a;
    int at_scale = s;
    if (d < s) {
      r = decimal::DivPow10Round(a, static_cast<int>(s - d));  // now at scale d
      at_scale = static_cast<int>(d);
    }
    int128_t out;
    // From scale at_scale (may be negative) to the result scale.
    const int up = t.is_decimal() ? t.scale - at_scale : -at_scale;
    if (up >= 0) {
      if (!decimal::Rescale(r, 0, up, &out)) return Overflow(cc, x, i);
    } else {
      out = decimal::DivPow10Round(r, -up);
    }
    if (t.is_decimal()) {
      if (!decimal::FitsPrecision(out, t.precision)) return Overflow(cc, x, i);
      PutDec(t, values.get(), i, out);
    } else {
      bool fits = true;
      DispatchFixed(t, [&]<typename T>() {
        fits = out >= static_cast<int128_t>(std::numeric_limits<T>::lowest()) &&
               out <= static_cast<int128_t>(std::numeric_limits<T>::max());
        values->mutable_data_as<T>()[i] = static_cast<T>(out);
      });
      if (!fits) return Overflow(cc, x, i);
    }
  }
  return MakeColumn(t, n, v, std::move(values));
}

Result<ColumnPtr> Unary(const CallContext& cc, const std::vector<Datum>& args) {
  const std::string& name = cc.expr.name;
  const Datum& x = args[0];
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x}, n);
  auto values = AllocateValues(cc.expr.type, n);
  const double* in = x.column->values_as<double>();
  double* out = values->mutable_data_as<double>();
  bool is_log = false;
  if (name == "sqrt") {
    for (int64_t i = 0; i < n; ++i) out[i] = std::sqrt(in[i]);
  } else if (name == "exp") {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
  } else if (name == "cbrt") {
    for (int64_t i = 0; i < n; ++i) out[i] = std::cbrt(in[i]);
  } else {
    is_log = true;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = name == "ln"      ? std::log(in[i])
               : name == "log10" ? std::log10(in[i])
                                 : std::log2(in[i]);
    }
  }
  if (is_log) {
    bool any = false;
    for (int64_t i = 0; i < n; ++i) any |= !(in[i] > 0);
    if (any) {
      auto bits = Buffer::Allocate(bit_util::BytesForBits(n));
      FillBits(bits->mutable_data(), n,
               [&](int64_t i) { return (in[i] > 0 || std::isnan(in[i])) && x.IsValid(i); });
      v = MakeValidity(std::move(bits), n);
    }
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

Result<ColumnPtr> Power(const CallContext& cc, const std::vector<Datum>& args) {
  const int64_t n = cc.rows;
  auto values = AllocateValues(cc.expr.type, n);
  double* out = values->mutable_data_as<double>();
  auto at = [](const Datum& d, int64_t i) {
    return d.is_scalar() ? d.scalar.f64 : d.column->values_as<double>()[i];
  };
  for (int64_t i = 0; i < n; ++i) out[i] = std::pow(at(args[0], i), at(args[1], i));
  return MakeColumn(cc.expr.type, n, CombineValidity({&args[0], &args[1]}, n), std::move(values));
}

}  // namespace

void RegisterMathKernels(KernelMap* map) {
  (*map)["abs"] = {Abs, true};
  (*map)["sign"] = {Sign, true};
  (*map)["floor"] = {FloorCeil, true};
  (*map)["ceil"] = {FloorCeil, true};
  (*map)["round"] = {Round, true};
  for (const char* n : {"sqrt", "exp", "cbrt", "ln", "log10", "log2"}) (*map)[n] = {Unary, true};
  (*map)["power"] = {Power, true};
}

}  // namespace tandem::cpu::internal
