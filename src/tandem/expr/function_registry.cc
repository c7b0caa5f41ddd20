// The scalar function registry: overload resolution with Spark SQL's implicit casts and decimal
// rules. Every name here has a CPU kernel in expr/cpu (dispatch in expr/cpu/evaluate_call.cc).
//
// NAMES AND SIGNATURES (T = the arguments' common super type; "int" = the integer types):
//  arithmetic  add, subtract, multiply, modulo (= mod), divide, negate
//      int op int -> T (overflow is an error); float -> float; decimal op decimal -> Spark's
//      decimal result (arguments keep their own decimal types: no cast needed); integer with
//      decimal: the integer is cast to decimal(digits,0); anything with float -> float64.
//      divide: int/int -> float64 (Spark `/`); x / 0 -> NULL (error with ansi).
//      add(date32, int32) -> date32, subtract(date32, int32) -> date32,
//      subtract(date32, date32) -> int64 days (DuckDB's date - date).
//  comparison  eq, ne, lt, le, gt, ge (T, T) -> bool; is_distinct_from, is_not_distinct_from
//  logic       and, or (bool, bool) -> bool (three-valued), not(bool)
//  null tests  is_null(x), is_not_null(x) -> bool (never NULL)
//  strings     like / ilike (string, pattern[, escape]) -> bool; concat(x, ...) -> string (any
//      NULL -> NULL, as Spark and `||`); substring(s, start int64[, len int64]) (1-based,
//      negative start counts from the end, as DuckDB); upper, lower; trim, ltrim, rtrim (s[,
//      chars]); length(s) -> int32 (UTF-8 characters); replace(s, from, to); strpos(s, sub) ->
//      int32 (1-based, 0 = absent; POSITION(sub IN s) binds to strpos(s, sub)); starts_with,
//      ends_with, contains (s, t) -> bool; lpad, rpad (s, len int64[, fill]); split_part(s,
//      delim, n int64); left, right (s, n int64); reverse(s); repeat(s, n int64)
//  date/time   extract_<field>(date32|timestamp) -> int32 for year, quarter, month, week (ISO),
//      day, dayofweek (= dow, 0 = Sunday as DuckDB), isodow (1 = Monday), dayofyear (= doy),
//      hour, minute, second; extract_millisecond, extract_microsecond -> int32 (within the
//      minute, as DuckDB); extract_epoch -> float64 seconds.
//      date_trunc(unit string constant, date32|timestamp) -> same type (unit: year, quarter,
//      month, week, day, hour, minute, second).
//      date_add(date32, int32) -> date32; date_sub(date32, int32) -> date32;
//      datediff(end date32, start date32) -> int32 (Spark); datediff(unit string, start, end)
//      -> int64 (DuckDB: boundaries crossed).
//      add_interval_<unit>(date32|timestamp, n int64) for unit in year, quarter, month, week,
//      day (date32 stays date32), hour, minute, second, millisecond, microsecond (-> timestamp).
//      Months clamp to the month's end (Jan 31 + 1 month = Feb 28/29). `x - INTERVAL` binds to
//      add_interval_<unit>(x, -n).
//      to_date(string[, format]) -> date32 (format as Spark 'yyyy-MM-dd' or strftime '%Y-%m-%d');
//      to_date(timestamp) -> date32; current_date() -> date32; current_timestamp() -> timestamp.
//  math        abs(x) -> same; sign(x) -> int32; round(x[, d int32]) (decimal HALF_UP: result
//      decimal(min(38, p-s+1+s), s), see ResolveRound in functions_constant_args.h for Spark's
//      exact type once d is known); floor, ceil (decimal -> decimal(p-s+1, 0), float -> float64,
//      int -> same); power(f64, f64), sqrt, ln, log10, log2, exp (f64) -> float64 (ln of x <= 0
//      is NULL, sqrt of a negative NaN, as Spark).
//  conditional coalesce(x, ...) -> T; nullif(a, b) -> T; greatest, least (x, ...) -> T
//      (NULLs skipped, as Spark and DuckDB); ifnull/nvl(a, b) = coalesce.
//  internal    ensure_single_row(count int64) -> bool: TRUE for counts 0 and 1, error "scalar
//      subquery returned more than one row" above (decorrelated scalar subqueries; kernel in
//      expr/cpu/kernels_subquery.cc).
//  spark       spark_decimal_average(sum, count, like), unscaled_value(d), make_decimal(x, like):
//      Spark's own formulas for plan fragments (expr/cpu/kernels_spark.cc).
#include "tandem/expr/function_registry.h"

#include <algorithm>
#include <map>

#include "tandem/types/decimal.h"

namespace tandem {
namespace {

// Integer types ordered by width for widening (signed and unsigned mixed: next signed width).
int IntWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 4;
    default:
      return 8;
  }
}

DataType SignedOfWidth(int w) {
  switch (w) {
    case 1:
      return DataType::Int8();
    case 2:
      return DataType::Int16();
    case 4:
      return DataType::Int32();
    default:
      return DataType::Int64();
  }
}

bool IsNumeric(const DataType& t) { return t.is_integer() || t.is_floating() || t.is_decimal(); }
bool IsTemporal(const DataType& t) { return t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp; }

Result<DataType> CommonInteger(const DataType& a, const DataType& b) {
  if (a.id == b.id) return a;
  const int wa = IntWidth(a.id), wb = IntWidth(b.id);
  if (a.is_unsigned() == b.is_unsigned()) return wa >= wb ? a : b;
  // Mixed signedness: a signed type strictly wider than the unsigned one.
  const DataType& u = a.is_unsigned() ? a : b;
  const DataType& s = a.is_unsigned() ? b : a;
  const int wu = IntWidth(u.id), ws = IntWidth(s.id);
  if (ws > wu) return s;
  if (wu < 8) return SignedOfWidth(wu * 2);
  return DataType::Decimal(20, 0);
}

Status CannotApply(const std::string& name, const std::vector<DataType>& args) {
  std::string msg = "cannot apply " + name + " to ";
  for (size_t i = 0; i < args.size(); ++i) {
    msg += (i == 0 ? "" : (i + 1 == args.size() ? " and " : ", ")) + args[i].ToString();
  }
  if (args.empty()) msg += "no arguments";
  return Status::Invalid(msg);
}

Status ArgCount(const std::string& name, const char* expected, size_t got) {
  return Status::Invalid("function " + name + " takes " + expected + " argument" +
                         (std::string(expected) == "1" ? "" : "s") + ", got " +
                         std::to_string(got));
}

ResolvedFunction Make(const std::string& name, std::vector<DataType> args, DataType result,
                      bool null_propagating = true) {
  return ResolvedFunction{name, std::move(args), result, null_propagating};
}

// ---- families --------------------------------------------------------------------------------

Result<ResolvedFunction> ResolveArithmetic(const std::string& name,
                                           const std::vector<DataType>& in) {
  if (in.size() != 2) return ArgCount(name, "2", in.size());
  const DataType& a = in[0];
  const DataType& b = in[1];
  // Date arithmetic.
  if (a.id == TypeId::kDate32 && (name == "add" || name == "subtract") && b.is_integer()) {
    return Make(name, {a, DataType::Int32()}, DataType::Date32());
  }
  if (name == "add" && b.id == TypeId::kDate32 && a.is_integer()) {
    return Make(name, {DataType::Int32(), b}, DataType::Date32());
  }
  if (name == "subtract" && a.id == TypeId::kDate32 && b.id == TypeId::kDate32) {
    return Make(name, {a, b}, DataType::Int64());
  }
  if (!IsNumeric(a) || !IsNumeric(b)) {
    // Strings are cast to float64 in arithmetic (Spark's non-ANSI rule).
    const bool a_ok = IsNumeric(a) || a.id == TypeId::kString;
    const bool b_ok = IsNumeric(b) || b.id == TypeId::kString;
    if (!a_ok || !b_ok) return CannotApply(name, in);
    return ResolveArithmetic(
        name, {IsNumeric(a) ? a : DataType::Float64(), IsNumeric(b) ? b : DataType::Float64()});
  }
  if (a.is_floating() || b.is_floating()) {
    DataType t = (a.id == TypeId::kFloat32 && b.id == TypeId::kFloat32) ||
                         (a.id == TypeId::kFloat32 && b.is_integer() && IntWidth(b.id) <= 2) ||
                         (b.id == TypeId::kFloat32 && a.is_integer() && IntWidth(a.id) <= 2)
                     ? DataType::Float32()
                     : DataType::Float64();
    if (name == "divide") t = DataType::Float64();
    return Make(name, {t, t}, t);
  }
  if (a.is_decimal() || b.is_decimal()) {
    const DataType da = decimal::ForInteger(a);
    const DataType db = decimal::ForInteger(b);
    DataType r;
    if (name == "add" || name == "subtract") {
      r = decimal::AddType(da, db);
    } else if (name == "multiply") {
      r = decimal::MultiplyType(da, db);
    } else if (name == "divide") {
      r = decimal::DivideType(da, db);
    } else {
      r = decimal::ModuloType(da, db);
    }
    return Make(name, {da, db}, r);
  }
  // Both integers.
  if (name == "divide")
    return Make(name, {DataType::Float64(), DataType::Float64()}, DataType::Float64());
  TANDEM_ASSIGN_OR_RAISE(DataType t, CommonInteger(a, b));
  if (t.is_decimal()) return ResolveArithmetic(name, {t, t});
  return Make(name, {t, t}, t);
}

Result<ResolvedFunction> ResolveComparison(const std::string& name,
                                           const std::vector<DataType>& in) {
  if (in.size() != 2) return ArgCount(name, "2", in.size());
  auto common = CommonSuperType(in[0], in[1]);
  if (!common.ok()) return CannotApply(name, in);
  const bool distinct = name == "is_distinct_from" || name == "is_not_distinct_from";
  return Make(name, {*common, *common}, DataType::Bool(), !distinct);
}

// Common super type of all arguments.
Result<DataType> CommonOfAll(const std::string& name, const std::vector<DataType>& in) {
  DataType t = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    auto c = CommonSuperType(t, in[i]);
    if (!c.ok()) return CannotApply(name, in);
    t = *c;
  }
  return t;
}

using Resolver = Result<ResolvedFunction> (*)(const std::string&, const std::vector<DataType>&);

bool IsStringOrCastable(const DataType& t) { return t.id == TypeId::kString; }

// Checks a fixed signature where each argument must already be castable implicitly.
bool ImplicitlyCastable(const DataType& from, const DataType& to) {
  if (from == to) return true;
  if (to.id == TypeId::kString) return from.id == TypeId::kString;
  if (to.is_integer()) return from.is_integer();
  if (to.is_floating()) return IsNumeric(from);
  if (to.id == TypeId::kDate32) return from.id == TypeId::kDate32 || from.id == TypeId::kString;
  if (to.id == TypeId::kTimestamp) {
    return from.id == TypeId::kTimestamp || from.id == TypeId::kDate32 ||
           from.id == TypeId::kString;
  }
  if (to.id == TypeId::kBool) return from.id == TypeId::kBool;
  return false;
}

Result<ResolvedFunction> Fixed(const std::string& name, const std::vector<DataType>& in,
                               std::vector<DataType> sig, size_t min_args, DataType result,
                               bool null_propagating = true) {
  if (in.size() < min_args || in.size() > sig.size()) {
    std::string expected = min_args == sig.size()
                               ? std::to_string(min_args)
                               : std::to_string(min_args) + " or " + std::to_string(sig.size());
    if (sig.size() - min_args > 1) {
      expected = std::to_string(min_args) + " to " + std::to_string(sig.size());
    }
    return ArgCount(name, expected.c_str(), in.size());
  }
  sig.resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (!ImplicitlyCastable(in[i], sig[i])) return CannotApply(name, in);
  }
  return Make(name, std::move(sig), result, null_propagating);
}

const DataType kStr = DataType::String();
const DataType kI64 = DataType::Int64();
const DataType kI32 = DataType::Int32();
const DataType kF64 = DataType::Float64();
const DataType kBool = DataType::Bool();
const DataType kDate = DataType::Date32();

Result<ResolvedFunction> ResolveString(const std::string& n, const std::vector<DataType>& in) {
  if (n == "like" || n == "ilike") return Fixed(n, in, {kStr, kStr, kStr}, 2, kBool);
  if (n == "substring" || n == "substr") {
    return Fixed("substring", in, {kStr, kI64, kI64}, 2, kStr);
  }
  if (n == "upper" || n == "lower" || n == "reverse") return Fixed(n, in, {kStr}, 1, kStr);
  if (n == "trim" || n == "ltrim" || n == "rtrim") return Fixed(n, in, {kStr, kStr}, 1, kStr);
  if (n == "length" || n == "char_length" || n == "character_length") {
    return Fixed("length", in, {kStr}, 1, kI32);
  }
  if (n == "octet_length") return Fixed(n, in, {kStr}, 1, kI32);
  if (n == "replace") return Fixed(n, in, {kStr, kStr, kStr}, 3, kStr);
  if (n == "strpos" || n == "instr") return Fixed("strpos", in, {kStr, kStr}, 2, kI32);
  if (n == "starts_with" || n == "ends_with" || n == "contains") {
    return Fixed(n, in, {kStr, kStr}, 2, kBool);
  }
  if (n == "lpad" || n == "rpad") return Fixed(n, in, {kStr, kI64, kStr}, 2, kStr);
  if (n == "split_part") return Fixed(n, in, {kStr, kStr, kI64}, 3, kStr);
  if (n == "left" || n == "right" || n == "repeat") return Fixed(n, in, {kStr, kI64}, 2, kStr);
  if (n == "concat") {
    if (in.empty()) return ArgCount(n, "at least 1", 0);
    for (const DataType& t : in) {
      if (t.id == TypeId::kBinary) return CannotApply(n, in);
    }
    return Make(n, std::vector<DataType>(in.size(), kStr), kStr);
  }
  return Status::Invalid("unknown function " + n);
}

const char* const kExtractFields[] = {
    "year",      "quarter", "month", "week",   "day",    "dayofweek",   "dow",         "isodow",
    "dayofyear", "doy",     "hour",  "minute", "second", "millisecond", "microsecond", "epoch"};

Result<ResolvedFunction> ResolveDateTime(const std::string& n, const std::vector<DataType>& in) {
  if (n.rfind("extract_", 0) == 0) {
    if (in.size() != 1) return ArgCount(n, "1", in.size());
    DataType t = in[0];
    if (t.id == TypeId::kString) t = DataType::Timestamp(false);
    if (!IsTemporal(t)) return CannotApply(n, in);
    const std::string field = n.substr(8);
    const bool time_field = field == "hour" || field == "minute" || field == "second" ||
                            field == "millisecond" || field == "microsecond";
    if (time_field && t.id == TypeId::kDate32) t = DataType::Timestamp(false);
    return Make(n, {t}, field == "epoch" ? kF64 : kI32);
  }
  if (n == "date_trunc") {
    if (in.size() != 2) return ArgCount(n, "2", in.size());
    DataType t = in[1].id == TypeId::kString ? DataType::Timestamp(false) : in[1];
    if (!IsStringOrCastable(in[0]) || !IsTemporal(t)) return CannotApply(n, in);
    return Make(n, {kStr, t}, t);
  }
  if (n == "date_add" || n == "date_sub") return Fixed(n, in, {kDate, kI32}, 2, kDate);
  if (n == "datediff") {
    if (in.size() == 3) {
      DataType t = in[1].id == TypeId::kTimestamp || in[2].id == TypeId::kTimestamp
                       ? DataType::Timestamp(in[1].utc || in[2].utc)
                       : kDate;
      return Fixed(n, in, {kStr, t, t}, 3, kI64);
    }
    return Fixed(n, in, {kDate, kDate}, 2, kI32);
  }
  if (n.rfind("add_interval_", 0) == 0) {
    if (in.size() != 2) return ArgCount(n, "2", in.size());
    const std::string unit = n.substr(13);
    DataType t = in[0].id == TypeId::kString ? kDate : in[0];
    if (!IsTemporal(t) || !in[1].is_integer()) return CannotApply(n, in);
    const bool date_unit =
        unit == "year" || unit == "quarter" || unit == "month" || unit == "week" || unit == "day";
    if (!date_unit && t.id == TypeId::kDate32) t = DataType::Timestamp(false);
    return Make(n, {t, kI64}, t);
  }
  if (n == "to_date") {
    if (in.size() == 1 && (in[0].id == TypeId::kTimestamp || in[0].id == TypeId::kDate32)) {
      return Make(n, {in[0]}, kDate);
    }
    return Fixed(n, in, {kStr, kStr}, 1, kDate);
  }
  if (n == "current_date") return Fixed(n, in, {}, 0, kDate);
  if (n == "current_timestamp" || n == "now") {
    return Fixed("current_timestamp", in, {}, 0, DataType::Timestamp(true));
  }
  return Status::Invalid("unknown function " + n);
}

Result<ResolvedFunction> ResolveMath(const std::string& n, const std::vector<DataType>& in) {
  if (n == "abs" || n == "sign" || n == "floor" || n == "ceil" || n == "ceiling") {
    const std::string name = n == "ceiling" ? "ceil" : n;
    if (in.size() != 1) return ArgCount(name, "1", in.size());
    const DataType& t = in[0];
    if (!IsNumeric(t)) return CannotApply(name, in);
    if (name == "abs") return Make(name, {t}, t);
    if (name == "sign") return Make(name, {t}, kI32);
    if (t.is_decimal()) {
      return Make(name, {t}, DataType::Decimal(std::min(38, t.precision - t.scale + 1), 0));
    }
    if (t.is_floating()) return Make(name, {kF64}, kF64);
    return Make(name, {t}, t);
  }
  if (n == "round") {
    if (in.empty() || in.size() > 2) return ArgCount(n, "1 or 2", in.size());
    const DataType& t = in[0];
    if (!IsNumeric(t) || (in.size() == 2 && !in[1].is_integer())) return CannotApply(n, in);
    std::vector<DataType> args{t};
    if (in.size() == 2) args.push_back(kI32);
    if (t.is_floating()) args[0] = kF64;
    DataType r = args[0];
    if (t.is_decimal()) {
      r = in.size() == 1 ? DataType::Decimal(std::min(38, t.precision - t.scale + 1), 0)
                         : DataType::Decimal(std::min(38, t.precision + 1), t.scale);
    }
    return Make(n, std::move(args), r);
  }
  if (n == "power" || n == "pow") return Fixed("power", in, {kF64, kF64}, 2, kF64);
  if (n == "sqrt" || n == "ln" || n == "log10" || n == "log2" || n == "exp" || n == "cbrt") {
    return Fixed(n, in, {kF64}, 1, kF64);
  }
  if (n == "mod") return ResolveArithmetic("modulo", in);
  return Status::Invalid("unknown function " + n);
}

Result<ResolvedFunction> ResolveConditional(const std::string& n, const std::vector<DataType>& in) {
  if (n == "coalesce" || n == "greatest" || n == "least" || n == "ifnull" || n == "nvl") {
    const std::string name = (n == "ifnull" || n == "nvl") ? "coalesce" : n;
    if (in.empty()) return ArgCount(name, "at least 1", 0);
    if ((n == "ifnull" || n == "nvl") && in.size() != 2) return ArgCount(n, "2", in.size());
    TANDEM_ASSIGN_OR_RAISE(DataType t, CommonOfAll(name, in));
    return Make(name, std::vector<DataType>(in.size(), t), t, false);
  }
  if (n == "nullif") {
    if (in.size() != 2) return ArgCount(n, "2", in.size());
    TANDEM_ASSIGN_OR_RAISE(DataType t, CommonOfAll(n, in));
    return Make(n, {t, t}, t, false);
  }
  return Status::Invalid("unknown function " + n);
}

Result<ResolvedFunction> ResolveLogic(const std::string& n, const std::vector<DataType>& in) {
  if (n == "and" || n == "or") {
    auto r = Fixed(n, in, {kBool, kBool}, 2, kBool, false);
    return r;
  }
  if (n == "not") return Fixed(n, in, {kBool}, 1, kBool);
  if (n == "is_null" || n == "is_not_null") {
    if (in.size() != 1) return ArgCount(n, "1", in.size());
    return Make(n, {in[0]}, kBool, false);
  }
  return Status::Invalid("unknown function " + n);
}

Result<ResolvedFunction> ResolveNegate(const std::string& n, const std::vector<DataType>& in) {
  if (in.size() != 1) return ArgCount(n, "1", in.size());
  if (!IsNumeric(in[0])) return CannotApply(n, in);
  return Make(n, {in[0]}, in[0]);
}

Result<ResolvedFunction> ResolveInternal(const std::string& n, const std::vector<DataType>& in) {
  if (n == "ensure_single_row") return Fixed(n, in, {kI64}, 1, kBool);
  return Status::Invalid("unknown function " + n);
}

// Functions of Spark plan fragments (expr/cpu/kernels_spark.cc); `like` arguments are typed
// NULL literals that only name the result type.
Result<ResolvedFunction> ResolveSpark(const std::string& n, const std::vector<DataType>& in) {
  auto result = [&](DataType type, bool null_propagating) -> Result<ResolvedFunction> {
    return ResolvedFunction{n, in, type, null_propagating};
  };
  if (n == "spark_decimal_average" && in.size() == 3 && in[0].is_decimal() &&
      in[1].id == TypeId::kInt64 && in[2].is_decimal()) {
    return result(in[2], false);
  }
  if (n == "unscaled_value" && in.size() == 1 && in[0].is_decimal() &&
      in[0].precision <= kMaxDecimal64Precision) {
    return result(DataType::Int64(), true);
  }
  if (n == "make_decimal" && in.size() == 2 && in[0].id == TypeId::kInt64 && in[1].is_decimal() &&
      in[1].precision <= kMaxDecimal64Precision) {
    return result(in[1], false);
  }
  return Status::Invalid("cannot apply " + n + " to these arguments");
}

const std::map<std::string, Resolver>& Registry() {
  static const std::map<std::string, Resolver> registry = [] {
    std::map<std::string, Resolver> m;
    for (const char* n : {"add", "subtract", "multiply", "divide", "modulo"}) {
      m[n] = ResolveArithmetic;
    }
    m["negate"] = ResolveNegate;
    for (const char* n :
         {"eq", "ne", "lt", "le", "gt", "ge", "is_distinct_from", "is_not_distinct_from"}) {
      m[n] = ResolveComparison;
    }
    for (const char* n : {"and", "or", "not", "is_null", "is_not_null"}) m[n] = ResolveLogic;
    for (const char* n : {"like",
                          "ilike",
                          "concat",
                          "substring",
                          "substr",
                          "upper",
                          "lower",
                          "trim",
                          "ltrim",
                          "rtrim",
                          "length",
                          "char_length",
                          "character_length",
                          "octet_length",
                          "replace",
                          "strpos",
                          "instr",
                          "starts_with",
                          "ends_with",
                          "contains",
                          "lpad",
                          "rpad",
                          "split_part",
                          "left",
                          "right",
                          "reverse",
                          "repeat"}) {
      m[n] = ResolveString;
    }
    for (const char* f : kExtractFields) m[std::string("extract_") + f] = ResolveDateTime;
    for (const char* n : {"date_trunc", "date_add", "date_sub", "datediff", "to_date",
                          "current_date", "current_timestamp", "now"}) {
      m[n] = ResolveDateTime;
    }
    for (const char* u : {"year", "quarter", "month", "week", "day", "hour", "minute", "second",
                          "millisecond", "microsecond"}) {
      m[std::string("add_interval_") + u] = ResolveDateTime;
    }
    for (const char* n : {"abs", "sign", "floor", "ceil", "ceiling", "round", "power", "pow",
                          "sqrt", "ln", "log10", "log2", "exp", "cbrt", "mod"}) {
      m[n] = ResolveMath;
    }
    for (const char* n : {"coalesce", "greatest", "least", "ifnull", "nvl", "nullif"}) {
      m[n] = ResolveConditional;
    }
    m["ensure_single_row"] = ResolveInternal;
    for (const char* n : {"spark_decimal_average", "unscaled_value", "make_decimal"}) {
      m[n] = ResolveSpark;
    }
    return m;
  }();
  return registry;
}

}  // namespace

Result<ResolvedFunction> ResolveScalarFunction(const std::string& name,
                                               const std::vector<DataType>& arg_types) {
  const auto& reg = Registry();
  auto it = reg.find(name);
  if (it == reg.end()) return Status::Invalid("unknown function " + name);
  return it->second(name, arg_types);
}

bool IsKnownScalarFunction(const std::string& name) { return Registry().count(name) > 0; }

std::vector<std::string> ScalarFunctionNames() {
  std::vector<std::string> names;
  for (const auto& [n, r] : Registry()) names.push_back(n);
  return names;
}

Result<DataType> CommonSuperType(const DataType& a, const DataType& b) {
  if (a == b) return a;
  auto fail = [&]() -> Result<DataType> {
    return Status::Invalid("no common type for " + a.ToString() + " and " + b.ToString());
  };
  if (a.is_integer() && b.is_integer()) return CommonInteger(a, b);
  if (IsNumeric(a) && IsNumeric(b)) {
    if (a.is_floating() || b.is_floating()) {
      if (a.id == TypeId::kFloat64 || b.id == TypeId::kFloat64 || a.is_decimal() ||
          b.is_decimal()) {
        return DataType::Float64();
      }
      const DataType& other = a.is_floating() ? b : a;
      if (other.id == TypeId::kFloat32 || IntWidth(other.id) <= 2) return DataType::Float32();
      return DataType::Float64();
    }
    return decimal::Wider(decimal::ForInteger(a), decimal::ForInteger(b));
  }
  if (IsTemporal(a) && IsTemporal(b)) {
    return DataType::Timestamp(a.utc || b.utc);
  }
  if (a.id == TypeId::kString || b.id == TypeId::kString) {
    const DataType& other = a.id == TypeId::kString ? b : a;
    if (other.id == TypeId::kBinary) return DataType::Binary();
    if (other.id == TypeId::kBool) return fail();
    return other;  // string vs date -> date, string vs number -> the number's type
  }
  return fail();
}

bool CanCast(const DataType& from, const DataType& to) {
  if (from == to) return true;
  if (from.id == TypeId::kString || to.id == TypeId::kString) return true;
  if (from.id == TypeId::kBinary || to.id == TypeId::kBinary) {
    return from.id == TypeId::kString || to.id == TypeId::kString;
  }
  const bool from_num = IsNumeric(from) || from.id == TypeId::kBool;
  const bool to_num = IsNumeric(to) || to.id == TypeId::kBool;
  if (from_num && to_num) return true;
  if (IsTemporal(from) && IsTemporal(to)) return true;
  return false;
}

}  // namespace tandem
