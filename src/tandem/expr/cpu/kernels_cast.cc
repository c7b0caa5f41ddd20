// CAST between all types. Numbers travel as exact 128-bit integers with a scale (integers,
// decimals, booleans) or as doubles; decimal rescaling rounds HALF_UP, float -> integer
// truncates toward zero with a range check, and a value that does not fit (or text that does not
// parse) is an error naming the value, or NULL for TRY_CAST. Text forms: dates YYYY-MM-DD,
// timestamps 'YYYY-MM-DD HH:MM:SS[.ffffff]', floats shortest round-trip digits.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "tandem/column/column_builder.h"
#include "tandem/expr/cpu/kernels.h"
#include "tandem/format/value_format.h"
#include "tandem/io/csv/csv_value_parse.h"
#include "tandem/types/decimal.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu::internal {
namespace {

constexpr int64_t kMicrosPerDay = 86400000000LL;

// A number read from any numeric or boolean column.
struct Num {
  bool is_float = false;
  double f = 0;
  int128_t v = 0;  // unscaled
  int scale = 0;
};

inline Num ReadNum(const Column& c, int64_t i) {
  const DataType& t = c.type();
  Num n;
  if (t.is_decimal()) n.scale = t.scale;
  VisitStorage(t, Overloaded{[&](BoolTag) { n.v = c.GetBool(i); },
                             [&]<typename T>(Tag<T>) {
                               if constexpr (std::is_floating_point_v<T>) {
                                 n.is_float = true;
                                 n.f = c.Value<T>(i);
                               } else {
                                 n.v = c.Value<T>(i);
                               }
                             },
                             [](StringTag) {}});
  return n;
}

template <typename T>
bool IntegerFits(int128_t v) {
  return v >= static_cast<int128_t>(std::numeric_limits<T>::lowest()) &&
         v <= static_cast<int128_t>(std::numeric_limits<T>::max());
}

// Writes n into row i of a fixed-width output of type `to`; false if it does not fit.
bool WriteNum(const DataType& to, const Num& n, Buffer* out, int64_t i) {
  if (to.is_floating()) {
    const double d = n.is_float ? n.f : decimal::ToDouble(n.v, n.scale);
    if (to.id == TypeId::kFloat32) {
      out->mutable_data_as<float>()[i] = static_cast<float>(d);
    } else {
      out->mutable_data_as<double>()[i] = d;
    }
    return true;
  }
  if (to.id == TypeId::kBool) {
    const bool b = n.is_float ? n.f != 0 : n.v != 0;
    bit_util::SetBitTo(out->mutable_data(), i, b);
    return true;
  }
  if (to.is_decimal()) {
    int128_t v;
    if (n.is_float) {
      if (!decimal::FromDouble(n.f, to.precision, to.scale, &v)) return false;
    } else if (!decimal::Rescale(n.v, n.scale, to.scale, &v) ||
               !decimal::FitsPrecision(v, to.precision)) {
      return false;
    }
    if (to.is_wide_decimal()) {
      out->mutable_data_as<int128_t>()[i] = v;
    } else {
      out->mutable_data_as<int64_t>()[i] = static_cast<int64_t>(v);
    }
    return true;
  }
  // Integers: floats and decimals truncate toward zero.
  int128_t v;
  if (n.is_float) {
    if (!std::isfinite(n.f) || std::fabs(n.f) >= 1.8e19) return false;
    v = static_cast<int128_t>(std::trunc(n.f));
  } else {
    v = n.scale > 0 ? n.v / decimal::Pow10(n.scale) : n.v;
  }
  bool fits = false;
  DispatchFixed(to, [&]<typename T>() {
    if constexpr (std::is_integral_v<T> || sizeof(T) == 16) {
      fits = IntegerFits<T>(v);
      if (fits) out->mutable_data_as<T>()[i] = static_cast<T>(v);
    }
  });
  return fits;
}

void AppendTimestampText(int64_t micros, std::string* out) {
  const int64_t day = micros >= 0 ? micros / kMicrosPerDay : -((-micros - 1) / kMicrosPerDay) - 1;
  const int64_t us = micros - day * kMicrosPerDay;
  format::AppendDate(static_cast<int32_t>(day), out);
  char buf[32];
  std::snprintf(buf, sizeof(buf), " %02d:%02d:%02d", static_cast<int>(us / 3600000000LL),
                static_cast<int>(us / 60000000LL % 60), static_cast<int>(us / 1000000LL % 60));
  out->append(buf);
  if (us % 1000000 != 0) {
    std::snprintf(buf, sizeof(buf), ".%06d", static_cast<int>(us % 1000000));
    std::string frac(buf);
    while (frac.back() == '0') frac.pop_back();
    out->append(frac);
  }
}

// Text of row i for CAST(x AS string).
void ToText(const Column& c, int64_t i, std::string* out) {
  const DataType& t = c.type();
  switch (t.id) {
    case TypeId::kTimestamp:
      AppendTimestampText(c.Value<int64_t>(i), out);
      return;
    case TypeId::kBinary:
      out->append(c.GetString(i));
      return;
    default:
      format::AppendText(c, i, out);
  }
}

// Parses text into row i of a fixed-width output of type `to`; false if it does not parse/fit.
bool FromText(std::string_view s, const DataType& to, Buffer* out, int64_t i) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  switch (to.id) {
    case TypeId::kBool: {
      bool b;
      if (!csv::internal::ParseBool(s, true, &b)) return false;
      bit_util::SetBitTo(out->mutable_data(), i, b);
      return true;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double d;
      if (!csv::internal::ParseDouble(s, &d)) return false;
      Num n;
      n.is_float = true;
      n.f = d;
      return WriteNum(to, n, out, i);
    }
    case TypeId::kDecimal: {
      int128_t v;
      if (!decimal::Parse(s, to.precision, to.scale, &v)) return false;
      Num n;
      n.v = v;
      n.scale = to.scale;
      return WriteNum(to, n, out, i);
    }
    case TypeId::kDate32: {
      int32_t d;
      if (csv::internal::ParseDate(s, &d)) {
        out->mutable_data_as<int32_t>()[i] = d;
        return true;
      }
      int64_t us;
      bool zone;
      if (!csv::internal::ParseTimestamp(s, &us, &zone)) return false;
      out->mutable_data_as<int32_t>()[i] =
          static_cast<int32_t>(us >= 0 ? us / kMicrosPerDay : -((-us - 1) / kMicrosPerDay) - 1);
      return true;
    }
    case TypeId::kTimestamp: {
      int64_t us;
      bool zone;
      if (!csv::internal::ParseTimestamp(s, &us, &zone)) return false;
      out->mutable_data_as<int64_t>()[i] = us;
      return true;
    }
    default: {
      if (to.is_unsigned()) {
        uint64_t u;
        if (!csv::internal::ParseUInt64(s, &u)) return false;
        Num n;
        n.v = u;
        return WriteNum(to, n, out, i);
      }
      int64_t v;
      if (!csv::internal::ParseInt64(s, &v)) {
        // "12.7" -> 12 as Spark: via decimal text, truncated.
        int128_t exact;
        if (!decimal::Parse(s, 38, 6, &exact)) return false;
        Num n;
        n.v = exact;
        n.scale = 6;
        return WriteNum(to, n, out, i);
      }
      Num n;
      n.v = v;
      return WriteNum(to, n, out, i);
    }
  }
}

bool IsNumberLike(const DataType& t) {
  return t.is_integer() || t.is_floating() || t.is_decimal() || t.id == TypeId::kBool;
}

}  // namespace

Result<ColumnPtr> CastColumn(const Expr& e, const Datum& in_d, const DataType& to, int64_t rows,
                             bool try_cast) {
  const ColumnPtr col = ToColumn(in_d, rows);
  const Column& in = *col;
  const DataType& from = in.type();
  const int64_t n = in.length();
  if (from == to) return col;
  // Same bytes, another type.
  if ((from.is_string_like() && to.is_string_like()) ||
      (from.id == TypeId::kTimestamp && to.id == TypeId::kTimestamp)) {
    return std::make_shared<Column>(to, n, in.null_count(), in.validity(), in.values(), in.data(),
                                    in.large_offsets());
  }
  auto fail = [&](int64_t i) {
    std::string text;
    ToText(in, i, &text);
    return ExprError(e, "cannot cast " + (from.is_string_like() ? "'" + text + "'" : text) +
                            " to " + to.ToString());
  };
  if (to.is_string_like()) {
    ColumnBuilder b(to, n);
    std::string text;
    for (int64_t i = 0; i < n; ++i) {
      if (in.IsNull(i)) {
        b.AppendNull();
        continue;
      }
      text.clear();
      ToText(in, i, &text);
      b.AppendString(text);
    }
    return b.Finish();
  }
  auto values = AllocateValues(to, n);
  std::shared_ptr<Buffer> ok;  // rows that became NULL by TRY_CAST
  auto mark_failed = [&](int64_t i) -> Status {
    if (!try_cast) return fail(i);
    if (!ok) {
      ok = Buffer::Allocate(bit_util::BytesForBits(n));
      if (in.validity()) {
        std::memcpy(ok->mutable_data(), in.validity_bits(),
                    static_cast<size_t>(bit_util::BytesForBits(n)));
      } else {
        bit_util::SetBitsTo(ok->mutable_data(), 0, n, true);
      }
    }
    bit_util::ClearBit(ok->mutable_data(), i);
    return Status::OK();
  };
  if (from.is_string_like()) {
    for (int64_t i = 0; i < n; ++i) {
      if (in.IsNull(i)) continue;
      if (!FromText(in.GetString(i), to, values.get(), i)) TANDEM_RETURN_NOT_OK(mark_failed(i));
    }
  } else if (IsNumberLike(from) && IsNumberLike(to)) {
    // Fast paths: decimal64 -> wider decimal64/128 and integer -> decimal need no checks when
    // the target has at least as many integer digits.
    for (int64_t i = 0; i < n; ++i) {
      if (!WriteNum(to, ReadNum(in, i), values.get(), i) && in.IsValid(i)) {
        TANDEM_RETURN_NOT_OK(mark_failed(i));
      }
    }
  } else if (from.id == TypeId::kDate32 && to.id == TypeId::kTimestamp) {
    const int32_t* a = in.values_as<int32_t>();
    int64_t* o = values->mutable_data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = int64_t{a[i]} * kMicrosPerDay;
  } else if (from.id == TypeId::kTimestamp && to.id == TypeId::kDate32) {
    const int64_t* a = in.values_as<int64_t>();
    int32_t* o = values->mutable_data_as<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t us = a[i];
      const int64_t day = us >= 0 ? us / kMicrosPerDay : -((-us - 1) / kMicrosPerDay) - 1;
      o[i] = static_cast<int32_t>(day);
    }
  } else {
    return ExprError(e, "cannot cast " + from.ToString() + " to " + to.ToString());
  }
  Validity v;
  if (ok) {
    v = MakeValidity(ok, n);
  } else if (in.null_count() > 0) {
    v.bits = in.validity();
    v.null_count = in.null_count();
  }
  return MakeColumn(to, n, v, std::move(values));
}

}  // namespace tandem::cpu::internal
