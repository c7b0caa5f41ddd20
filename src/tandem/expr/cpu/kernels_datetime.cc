// Date and time kernels: extract_<field>, date_trunc, date_add / date_sub, datediff (Spark's
// two-argument and DuckDB's unit form), add_interval_<unit> with month-end clamping, to_date,
// current_date / current_timestamp. Dates are days since 1970-01-01, timestamps microseconds
// (proleptic Gregorian, dates before 1970 included: all divisions floor).
#include <chrono>

#include "tandem/expr/cpu/kernels.h"
#include "tandem/format/value_format.h"
#include "tandem/io/csv/csv_value_parse.h"

namespace tandem::cpu::internal {
namespace {

constexpr int64_t kMicrosPerDay = 86400000000LL;

inline int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Day number and microseconds within the day of a date or timestamp operand value.
struct DayTime {
  int64_t day;
  int64_t micros;
};
inline DayTime Split(bool is_ts, int64_t v) {
  if (!is_ts) return {v, 0};
  const int64_t d = FloorDiv(v, kMicrosPerDay);
  return {d, v - d * kMicrosPerDay};
}

inline int64_t RawAt(const Datum& d, int64_t i) {
  if (d.is_scalar()) return d.scalar.i64;
  return d.type().id == TypeId::kDate32 ? d.column->values_as<int32_t>()[i]
                                        : d.column->values_as<int64_t>()[i];
}

int IsoWeekday(int64_t day) { return static_cast<int>(FloorMod(day + 3, 7)) + 1; }  // Mon = 1

int IsoWeek(int64_t day) {
  const int64_t thursday = day - IsoWeekday(day) + 4;
  const int64_t year = format::CivilFromDays(thursday).year;
  return static_cast<int>((thursday - format::DaysFromCivil(year, 1, 1)) / 7 + 1);
}

Result<ColumnPtr> Extract(const CallContext& cc, const std::vector<Datum>& args) {
  const std::string field = cc.expr.name.substr(8);
  const Datum& x = args[0];
  const bool ts = x.type().id == TypeId::kTimestamp;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x}, n);
  auto values = AllocateValues(cc.expr.type, n);
  if (field == "epoch") {
    double* out = values->mutable_data_as<double>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = RawAt(x, i);
      out[i] = ts ? static_cast<double>(r) / 1e6 : static_cast<double>(r) * 86400.0;
    }
    return MakeColumn(cc.expr.type, n, v, std::move(values));
  }
  int32_t* out = values->mutable_data_as<int32_t>();
  auto each = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(f(Split(ts, RawAt(x, i))));
  };
  if (field == "year") {
    each([](DayTime t) { return format::CivilFromDays(t.day).year; });
  } else if (field == "quarter") {
    each([](DayTime t) { return (format::CivilFromDays(t.day).month - 1) / 3 + 1; });
  } else if (field == "month") {
    each([](DayTime t) { return format::CivilFromDays(t.day).month; });
  } else if (field == "day") {
    each([](DayTime t) { return format::CivilFromDays(t.day).day; });
  } else if (field == "week") {
    each([](DayTime t) { return IsoWeek(t.day); });
  } else if (field == "dayofweek" || field == "dow") {
    each([](DayTime t) { return IsoWeekday(t.day) % 7; });
  } else if (field == "isodow") {
    each([](DayTime t) { return IsoWeekday(t.day); });
  } else if (field == "dayofyear" || field == "doy") {
    each([](DayTime t) {
      return t.day - format::DaysFromCivil(format::CivilFromDays(t.day).year, 1, 1) + 1;
    });
  } else if (field == "hour") {
    each([](DayTime t) { return t.micros / 3600000000LL; });
  } else if (field == "minute") {
    each([](DayTime t) { return t.micros / 60000000LL % 60; });
  } else if (field == "second") {
    each([](DayTime t) { return t.micros / 1000000LL % 60; });
  } else if (field == "millisecond") {
    each([](DayTime t) { return t.micros / 1000LL % 60000; });
  } else if (field == "microsecond") {
    each([](DayTime t) { return t.micros % 60000000LL; });
  } else {
    return ExprError(cc.expr, "unknown date field " + field);
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

// Adds months with month-end clamping; false when the year leaves +-5 million.
bool AddMonths(int64_t day, int64_t months, int64_t* out) {
  const format::CivilDate c = format::CivilFromDays(day);
  if (months > 60000000 || months < -60000000) return false;
  const int64_t total = c.year * 12 + (c.month - 1) + months;
  const int64_t y = FloorDiv(total, 12);
  const int m = static_cast<int>(FloorMod(total, 12)) + 1;
  if (y > 5000000 || y < -5000000) return false;
  const int d = std::min(c.day, format::DaysInMonth(y, m));
  *out = format::DaysFromCivil(y, m, d);
  return true;
}

Result<ColumnPtr> AddInterval(const CallContext& cc, const std::vector<Datum>& args) {
  const std::string unit = cc.expr.name.substr(13);
  const Datum& x = args[0];
  const Datum& k = args[1];
  const bool ts_in = x.type().id == TypeId::kTimestamp;
  const bool ts_out = cc.expr.type.id == TypeId::kTimestamp;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&x, &k}, n);
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  auto values = AllocateValues(cc.expr.type, n);
  int64_t months_per = 0, micros_per = 0;
  if (unit == "year")
    months_per = 12;
  else if (unit == "quarter")
    months_per = 3;
  else if (unit == "month")
    months_per = 1;
  else if (unit == "week")
    micros_per = 7 * kMicrosPerDay;
  else if (unit == "day")
    micros_per = kMicrosPerDay;
  else if (unit == "hour")
    micros_per = 3600000000LL;
  else if (unit == "minute")
    micros_per = 60000000LL;
  else if (unit == "second")
    micros_per = 1000000LL;
  else if (unit == "millisecond")
    micros_per = 1000LL;
  else if (unit == "microsecond")
    micros_per = 1;
  else
    return ExprError(cc.expr, "unknown interval unit " + unit);
  for (int64_t i = 0; i < n; ++i) {
    if (valid && !bit_util::GetBit(valid, i)) continue;
    const int64_t raw = RawAt(x, i);
    const int64_t amount = k.is_scalar() ? k.scalar.i64 : k.column->values_as<int64_t>()[i];
    int64_t micros = ts_in ? raw : raw * kMicrosPerDay;  // |days| < 2^31: no overflow
    bool ok = true;
    if (months_per) {
      const DayTime t = Split(true, micros);
      int64_t day = 0;
      int64_t m;
      ok = !__builtin_mul_overflow(amount, months_per, &m) && AddMonths(t.day, m, &day);
      micros = day * kMicrosPerDay + t.micros;
    } else {
      int64_t delta;
      ok = !__builtin_mul_overflow(amount, micros_per, &delta) &&
           !__builtin_add_overflow(micros, delta, &micros);
    }
    if (!ts_out) {
      const int64_t day = FloorDiv(micros, kMicrosPerDay);
      ok = ok && day >= INT32_MIN && day <= INT32_MAX;
      if (ok) values->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(day);
    } else if (ok) {
      values->mutable_data_as<int64_t>()[i] = micros;
    }
    if (!ok) return ExprError(cc.expr, "date out of range");
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

Result<ColumnPtr> DateAddSub(const CallContext& cc, const std::vector<Datum>& args) {
  const bool sub = cc.expr.name == "date_sub";
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&args[0], &args[1]}, n);
  auto values = AllocateValues(cc.expr.type, n);
  int32_t* out = values->mutable_data_as<int32_t>();
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t d = static_cast<int32_t>(RawAt(args[0], i));
    const int32_t k = args[1].is_scalar() ? static_cast<int32_t>(args[1].scalar.i64)
                                          : args[1].column->values_as<int32_t>()[i];
    const bool bad =
        sub ? __builtin_sub_overflow(d, k, out + i) : __builtin_add_overflow(d, k, out + i);
    if (bad && (!valid || bit_util::GetBit(valid, i)))
      return ExprError(cc.expr, "date out of range");
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

// DuckDB's datediff(unit, start, end): unit boundaries crossed.
Result<int64_t> DiffUnits(const CallContext& cc, const std::string& unit, int64_t a_us,
                          int64_t b_us) {
  const DayTime a = Split(true, a_us), b = Split(true, b_us);
  const format::CivilDate ca = format::CivilFromDays(a.day), cb = format::CivilFromDays(b.day);
  if (unit == "year") return cb.year - ca.year;
  if (unit == "quarter")
    return (cb.year * 4 + (cb.month - 1) / 3) - (ca.year * 4 + (ca.month - 1) / 3);
  if (unit == "month") return (cb.year * 12 + cb.month) - (ca.year * 12 + ca.month);
  if (unit == "week") {
    return FloorDiv(b.day - IsoWeekday(b.day) + 1, 7) - FloorDiv(a.day - IsoWeekday(a.day) + 1, 7);
  }
  if (unit == "day") return b.day - a.day;
  if (unit == "hour") return FloorDiv(b_us, 3600000000LL) - FloorDiv(a_us, 3600000000LL);
  if (unit == "minute") return FloorDiv(b_us, 60000000LL) - FloorDiv(a_us, 60000000LL);
  if (unit == "second") return FloorDiv(b_us, 1000000LL) - FloorDiv(a_us, 1000000LL);
  if (unit == "millisecond") return FloorDiv(b_us, 1000LL) - FloorDiv(a_us, 1000LL);
  if (unit == "microsecond") return b_us - a_us;
  return ExprError(cc.expr, "unknown date part " + unit);
}

Result<ColumnPtr> DateDiff(const CallContext& cc, const std::vector<Datum>& args) {
  const int64_t n = cc.rows;
  std::vector<const Datum*> ops;
  for (const Datum& d : args) ops.push_back(&d);
  Validity v = CombineValidity(ops, n);
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  auto values = AllocateValues(cc.expr.type, n);
  if (args.size() == 2) {
    int32_t* out = values->mutable_data_as<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<int32_t>(RawAt(args[0], i) - RawAt(args[1], i));
    }
    return MakeColumn(cc.expr.type, n, v, std::move(values));
  }
  int64_t* out = values->mutable_data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (valid && !bit_util::GetBit(valid, i)) continue;
    std::string unit(args[0].is_scalar() ? std::string_view(args[0].scalar.str)
                                         : args[0].column->GetString(i));
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!unit.empty() && unit.back() == 's') unit.pop_back();
    const bool ts = args[1].type().id == TypeId::kTimestamp;
    const int64_t a = ts ? RawAt(args[1], i) : RawAt(args[1], i) * kMicrosPerDay;
    const int64_t b = ts ? RawAt(args[2], i) : RawAt(args[2], i) * kMicrosPerDay;
    TANDEM_ASSIGN_OR_RAISE(out[i], DiffUnits(cc, unit, a, b));
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

Result<ColumnPtr> DateTrunc(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& x = args[1];
  const bool ts = x.type().id == TypeId::kTimestamp;
  const int64_t n = cc.rows;
  Validity v = CombineValidity({&args[0], &x}, n);
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  auto values = AllocateValues(cc.expr.type, n);
  for (int64_t i = 0; i < n; ++i) {
    if (valid && !bit_util::GetBit(valid, i)) continue;
    std::string unit(args[0].is_scalar() ? std::string_view(args[0].scalar.str)
                                         : args[0].column->GetString(i));
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    DayTime t = Split(ts, RawAt(x, i));
    const format::CivilDate c = format::CivilFromDays(t.day);
    if (unit == "year") {
      t = {format::DaysFromCivil(c.year, 1, 1), 0};
    } else if (unit == "quarter") {
      t = {format::DaysFromCivil(c.year, (c.month - 1) / 3 * 3 + 1, 1), 0};
    } else if (unit == "month") {
      t = {format::DaysFromCivil(c.year, c.month, 1), 0};
    } else if (unit == "week") {
      t = {t.day - IsoWeekday(t.day) + 1, 0};
    } else if (unit == "day") {
      t.micros = 0;
    } else if (unit == "hour") {
      t.micros -= t.micros % 3600000000LL;
    } else if (unit == "minute") {
      t.micros -= t.micros % 60000000LL;
    } else if (unit == "second") {
      t.micros -= t.micros % 1000000LL;
    } else if (unit == "millisecond") {
      t.micros -= t.micros % 1000LL;
    } else if (unit != "microsecond") {
      return ExprError(cc.expr, "unknown date_trunc unit '" + unit + "'");
    }
    if (ts) {
      values->mutable_data_as<int64_t>()[i] = t.day * kMicrosPerDay + t.micros;
    } else {
      values->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(t.day);
    }
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

// Parses `s` with a Spark ('yyyy-MM-dd') or strftime ('%Y-%m-%d') format.
bool ParseWithFormat(std::string_view s, std::string_view f, int32_t* out) {
  int64_t y = 1970;
  int m = 1, d = 1;
  size_t i = 0, k = 0;
  auto digits = [&](int max_digits, int64_t* v) {
    int count = 0;
    bool neg = false;
    if (max_digits > 2 && i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    *v = 0;
    while (i < s.size() && count < max_digits && s[i] >= '0' && s[i] <= '9') {
      *v = *v * 10 + (s[i++] - '0');
      ++count;
    }
    if (neg) *v = -*v;
    return count > 0;
  };
  while (k < f.size()) {
    int64_t val;
    if (f.substr(k, 4) == "yyyy" || f.substr(k, 2) == "%Y") {
      if (!digits(7, &val)) return false;
      y = val;
      k += f[k] == '%' ? 2 : 4;
    } else if (f.substr(k, 2) == "MM" || f.substr(k, 2) == "%m") {
      if (!digits(2, &val)) return false;
      m = static_cast<int>(val);
      k += 2;
    } else if (f.substr(k, 2) == "dd" || f.substr(k, 2) == "%d") {
      if (!digits(2, &val)) return false;
      d = static_cast<int>(val);
      k += 2;
    } else {
      if (i >= s.size() || s[i] != f[k]) return false;
      ++i;
      ++k;
    }
  }
  if (i != s.size() || m < 1 || m > 12 || d < 1 || d > format::DaysInMonth(y, m)) return false;
  const int64_t days = format::DaysFromCivil(y, m, d);
  if (days < INT32_MIN || days > INT32_MAX) return false;
  *out = static_cast<int32_t>(days);
  return true;
}

Result<ColumnPtr> ToDate(const CallContext& cc, const std::vector<Datum>& args) {
  const int64_t n = cc.rows;
  std::vector<const Datum*> ops;
  for (const Datum& d : args) ops.push_back(&d);
  Validity v = CombineValidity(ops, n);
  auto values = AllocateValues(cc.expr.type, n);
  int32_t* out = values->mutable_data_as<int32_t>();
  const DataType& t = args[0].type();
  if (t.id != TypeId::kString) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<int32_t>(Split(t.id == TypeId::kTimestamp, RawAt(args[0], i)).day);
    }
    return MakeColumn(cc.expr.type, n, v, std::move(values));
  }
  auto bits = Buffer::Allocate(bit_util::BytesForBits(n));
  uint8_t* ok_bits = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (v.null_count && !bit_util::GetBit(v.bits->data(), i)) continue;
    std::string_view s =
        args[0].is_scalar() ? std::string_view(args[0].scalar.str) : args[0].column->GetString(i);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    bool ok;
    if (args.size() > 1) {
      const std::string_view f =
          args[1].is_scalar() ? std::string_view(args[1].scalar.str) : args[1].column->GetString(i);
      ok = ParseWithFormat(s, f, out + i);
    } else {
      ok = csv::internal::ParseDate(s, out + i);
    }
    if (ok) {
      bit_util::SetBit(ok_bits, i);
    } else if (cc.eval.ansi) {
      return ExprError(cc.expr, "invalid date '" + std::string(s) + "'");
    }
  }
  return MakeColumn(cc.expr.type, n, MakeValidity(std::move(bits), n), std::move(values));
}

Result<ColumnPtr> Now(const CallContext& cc, const std::vector<Datum>&) {
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  Value v = cc.expr.name == "current_date"
                ? Value::Date32(static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay)))
                : Value::Timestamp(micros, true);
  return ToColumn(Datum::Scalar(v), cc.rows);
}

}  // namespace

void RegisterDateTimeKernels(KernelMap* map) {
  for (const char* f :
       {"year", "quarter", "month", "week", "day", "dayofweek", "dow", "isodow", "dayofyear", "doy",
        "hour", "minute", "second", "millisecond", "microsecond", "epoch"}) {
    (*map)[std::string("extract_") + f] = {Extract, true};
  }
  for (const char* u : {"year", "quarter", "month", "week", "day", "hour", "minute", "second",
                        "millisecond", "microsecond"}) {
    (*map)[std::string("add_interval_") + u] = {AddInterval, true};
  }
  (*map)["date_add"] = {DateAddSub, true};
  (*map)["date_sub"] = {DateAddSub, true};
  (*map)["datediff"] = {DateDiff, true};
  (*map)["date_trunc"] = {DateTrunc, true};
  (*map)["to_date"] = {ToDate, true};
  (*map)["current_date"] = {Now, true};
  (*map)["current_timestamp"] = {Now, true};
}

}  // namespace tandem::cpu::internal
