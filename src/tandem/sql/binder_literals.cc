// Literals and types: numeric constants (int32 if it fits, else int64, else decimal of its
// digits; 0.06 -> decimal(2,2) as Spark types it), strings, booleans, NULL; DATE/TIMESTAMP
// literals parsed at bind time; SQL type names -> DataType; CAST/TRY_CAST/::; INTERVAL values.
//
// Intervals have no column type in Tandem: an INTERVAL literal binds to a marker literal
// (name "__interval_<unit>", value = count as int64) that only date arithmetic accepts
// (binder_expr.cc turns `date + INTERVAL '3' MONTH` into add_interval_month(date, 3)).
#include <cmath>
#include <cstdlib>

#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (civil-from-days inverse).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads up to max_digits digits at s[*i]; false if none.
bool ReadNumber(const std::string& s, size_t* i, int max_digits, int64_t* out) {
  int n = 0;
  int64_t v = 0;
  while (*i < s.size() && n < max_digits && std::isdigit(static_cast<unsigned char>(s[*i]))) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
    ++n;
  }
  *out = v;
  return n > 0;
}

bool ParseDatePart(const std::string& s, size_t* i, int64_t* days) {
  int64_t y, m, d;
  if (!ReadNumber(s, i, 4, &y) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadNumber(s, i, 2, &m) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadNumber(s, i, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<int>(m))) return false;
  *days = DaysFromCivil(y, static_cast<int>(m), static_cast<int>(d));
  return true;
}

std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

bool ParseDate(const std::string& text, int64_t* days) {
  const std::string s = Trimmed(text);
  size_t i = 0;
  return ParseDatePart(s, &i, days) && i == s.size();
}

bool ParseTimestamp(const std::string& text, int64_t* micros) {
  const std::string s = Trimmed(text);
  size_t i = 0;
  int64_t days;
  if (!ParseDatePart(s, &i, &days)) return false;
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (i < s.size() && (s[i] == ' ' || s[i] == 'T')) {
    ++i;
    if (!ReadNumber(s, &i, 2, &h) || i >= s.size() || s[i] != ':') return false;
    ++i;
    if (!ReadNumber(s, &i, 2, &mi)) return false;
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!ReadNumber(s, &i, 2, &sec)) return false;
      if (i < s.size() && s[i] == '.') {
        ++i;
        int n = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
          if (n < 6) frac = frac * 10 + (s[i] - '0');
          ++n;
          ++i;
        }
        if (n == 0) return false;
        for (; n < 6; ++n) frac *= 10;
      }
    }
  }
  if (i != s.size() || h > 23 || mi > 59 || sec > 59) return false;
  *micros = ((days * 24 + h) * 60 + mi) * 60 * 1000000 + sec * 1000000 + frac;
  return true;
}

// Normalizes an interval unit name; multiplier for week/quarter.
bool IntervalUnit(std::string unit, std::string* out, int64_t* multiplier) {
  unit = Lower(unit);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  *multiplier = 1;
  if (unit == "week") {
    *out = "day";
    *multiplier = 7;
    return true;
  }
  if (unit == "quarter") {
    *out = "month";
    *multiplier = 3;
    return true;
  }
  if (unit == "year" || unit == "month" || unit == "day" || unit == "hour" || unit == "minute" ||
      unit == "second") {
    *out = unit;
    return true;
  }
  return false;
}

ExprPtr IntervalMarker(const std::string& unit, int64_t count) {
  auto e = MakeLiteral(Value::Int64(count));
  e->name = "__interval_" + unit;
  return e;
}

bool ParseInt64(const std::string& text, int64_t* out) {
  const std::string s = Trimmed(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

}  // namespace

Result<ExprPtr> Binder::BindConst(const Json& c) {
  const int loc = Int(c, "location", -1);
  ExprPtr e;
  if (Flag(c, "isnull")) {
    e = MakeUntypedNull();
  } else if (c.contains("ival")) {
    // The parser's value (sql/parse_tree_integers.cc restores the ones its JSON drops).
    const int64_t v = Int(Child(c, "ival"), "ival", 0);
    e = v >= INT32_MIN && v <= INT32_MAX ? MakeLiteral(Value::Int32(static_cast<int32_t>(v)))
                                         : MakeLiteral(Value::Int64(v));
  } else if (c.contains("fval")) {
    const std::string text = Str(Child(c, "fval"), "fval");
    const bool neg = !text.empty() && text[0] == '-';
    const std::string body = neg || (!text.empty() && text[0] == '+') ? text.substr(1) : text;
    if (body.find_first_of("eE") != std::string::npos) {
      e = MakeLiteral(Value::Float64(std::strtod(text.c_str(), nullptr)));
    } else {
      const size_t dot = body.find('.');
      std::string digits = body;
      int scale = 0;
      if (dot != std::string::npos) {
        digits = body.substr(0, dot) + body.substr(dot + 1);
        scale = static_cast<int>(body.size() - dot - 1);
      }
      const size_t nz = digits.find_first_not_of('0');
      const std::string significant = nz == std::string::npos ? "" : digits.substr(nz);
      const int precision = std::max<int>(static_cast<int>(significant.size()), scale);
      if (precision > kMaxDecimalPrecision || significant.size() > 38) {
        e = MakeLiteral(Value::Float64(std::strtod(text.c_str(), nullptr)));
      } else {
        int128_t unscaled = 0;
        for (char ch : significant) unscaled = unscaled * 10 + (ch - '0');
        if (neg) unscaled = -unscaled;
        if (scale == 0 && unscaled >= INT64_MIN && unscaled <= INT64_MAX) {
          const int64_t v = static_cast<int64_t>(unscaled);
          e = v >= INT32_MIN && v <= INT32_MAX ? MakeLiteral(Value::Int32(static_cast<int32_t>(v)))
                                               : MakeLiteral(Value::Int64(v));
        } else {
          e = MakeLiteral(Value::Decimal(unscaled, std::max(precision, 1), scale));
        }
      }
    }
  } else if (c.contains("sval")) {
    e = MakeLiteral(Value::String(Str(Child(c, "sval"), "sval")));
  } else if (c.contains("boolval")) {
    e = MakeLiteral(Value::Bool(Flag(Child(c, "boolval"), "boolval")));
  } else if (c.contains("bsval") || c.contains("bitval")) {
    return Unsupported("bit-string literals", loc);
  } else {
    return Error("unrecognized constant", loc);
  }
  e->pos = Pos(loc);
  return e;
}

Result<DataType> Binder::BindTypeName(const Json& tn) {
  const int loc = Int(tn, "location", -1);
  const Json& names = Child(tn, "names");
  if (!names.is_array() || names.empty()) return Error("missing type name", loc);
  if (Child(tn, "arrayBounds").is_array()) return Unsupported("array types", loc);
  const std::string name = Lower(StringValue(names.back()));
  std::vector<int64_t> mods;
  for (const auto& m : Child(tn, "typmods")) {
    if (NodeTag(m) != "A_Const") return Error("type modifiers must be integer constants", loc);
    mods.push_back(Int(Child(NodeBody(m), "ival"), "ival", 0));
  }
  if (name == "bool" || name == "boolean") return DataType::Bool();
  if (name == "int1" || name == "tinyint") return DataType::Int8();
  if (name == "int2" || name == "smallint") return DataType::Int16();
  if (name == "int4" || name == "int" || name == "integer") return DataType::Int32();
  if (name == "int8" || name == "bigint" || name == "long") return DataType::Int64();
  if (name == "utinyint") return DataType::UInt8();
  if (name == "usmallint") return DataType::UInt16();
  if (name == "uinteger") return DataType::UInt32();
  if (name == "ubigint") return DataType::UInt64();
  if (name == "float4" || name == "real") return DataType::Float32();
  if (name == "float8" || name == "double" || name == "float") return DataType::Float64();
  if (name == "numeric" || name == "decimal") {
    int64_t p = 18, s = 3;  // DuckDB's default DECIMAL
    if (mods.size() >= 1) {
      p = mods[0];
      s = mods.size() >= 2 ? mods[1] : 0;
    }
    if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p) {
      return Error("invalid decimal(" + std::to_string(p) + "," + std::to_string(s) +
                       "): precision must be 1..38 and scale 0..precision",
                   loc);
    }
    return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  if (name == "varchar" || name == "text" || name == "bpchar" || name == "char" ||
      name == "string" || name == "character varying" || name == "character") {
    return DataType::String();
  }
  if (name == "bytea" || name == "blob" || name == "binary" || name == "varbinary") {
    return DataType::Binary();
  }
  if (name == "date") return DataType::Date32();
  if (name == "timestamp" || name == "datetime") return DataType::Timestamp(false);
  if (name == "timestamptz") return DataType::Timestamp(true);
  return Error("unknown type " + name, loc);
}

Result<ExprPtr> Binder::BindTypeCast(const Json& cast, ExprContext& ctx) {
  const Json& tn = Child(cast, "typeName");
  const Json& arg = Child(cast, "arg");
  const bool try_cast = Flag(cast, "tandem_try_cast");
  int loc = Int(cast, "location", -1);
  if (loc < 0) loc = Int(tn, "location", -1);
  const Json& names = Child(tn, "names");
  const std::string type_name =
      names.is_array() && !names.empty() ? Lower(StringValue(names.back())) : "";
  if (type_name == "interval") {
    if (NodeTag(arg) != "A_Const") return Unsupported("INTERVAL of a non-constant value", loc);
    const Json& c = NodeBody(arg);
    std::string text;
    if (c.contains("sval")) {
      text = Str(Child(c, "sval"), "sval");
    } else if (c.contains("ival")) {
      TANDEM_ASSIGN_OR_RAISE(auto lit, BindConst(c));
      text = std::to_string(lit->literal.i64);
    } else {
      return Error("invalid INTERVAL value", loc);
    }
    std::vector<int64_t> mods;
    for (const auto& m : Child(tn, "typmods")) {
      mods.push_back(Int(Child(NodeBody(m), "ival"), "ival", 0));
    }
    std::string unit;
    int64_t mult = 1;
    int64_t count = 0;
    if (!mods.empty()) {
      switch (mods[0]) {
        case 4:
          unit = "year";
          break;
        case 2:
          unit = "month";
          break;
        case 8:
          unit = "day";
          break;
        case 1024:
          unit = "hour";
          break;
        case 2048:
          unit = "minute";
          break;
        case 4096:
          unit = "second";
          break;
        default:
          return Unsupported("INTERVAL ranges such as YEAR TO MONTH", loc);
      }
      if (!ParseInt64(text, &count)) {
        return Error("invalid INTERVAL value '" + text + "': expected an integer", loc);
      }
    } else {
      // '3 months', '1 year', '-5 days'
      const std::string t = Trimmed(text);
      const size_t sp = t.find_first_of(" \t");
      if (sp == std::string::npos || !ParseInt64(t.substr(0, sp), &count) ||
          !IntervalUnit(Trimmed(t.substr(sp)), &unit, &mult)) {
        return Unsupported("INTERVAL '" + text + "' (write one integer and one unit)", loc);
      }
    }
    auto e = IntervalMarker(unit, count * mult);
    e->pos = Pos(loc);
    return e;
  }
  TANDEM_ASSIGN_OR_RAISE(DataType to, BindTypeName(tn));
  // Typed string literals are parsed now, so a bad date is a bind error with its position.
  if (NodeTag(arg) == "A_Const" && NodeBody(arg).contains("sval") &&
      (to.id == TypeId::kDate32 || to.id == TypeId::kTimestamp)) {
    const std::string text = Str(Child(NodeBody(arg), "sval"), "sval");
    ExprPtr e;
    if (to.id == TypeId::kDate32) {
      int64_t days;
      if (ParseDate(text, &days) && days >= INT32_MIN && days <= INT32_MAX) {
        e = MakeLiteral(Value::Date32(static_cast<int32_t>(days)));
      }
    } else {
      int64_t micros;
      if (ParseTimestamp(text, &micros)) e = MakeLiteral(Value::Timestamp(micros, to.utc));
    }
    if (!e) {
      if (try_cast) {
        e = MakeLiteral(Value::Null(to));
      } else {
        return Error("invalid " + std::string(to.id == TypeId::kDate32 ? "date" : "timestamp") +
                         " '" + text + "'",
                     LocationOf(arg));
      }
    }
    e->pos = Pos(loc);
    return e;
  }
  TANDEM_ASSIGN_OR_RAISE(ExprPtr value, BindExpr(arg, ctx));
  if (IsUntypedNull(*value)) return WithPos(MakeLiteral(Value::Null(to)), Pos(loc));
  if (value->name.rfind("__interval_", 0) == 0 && value->kind == ExprKind::kLiteral) {
    return Unsupported("casting an INTERVAL", loc);
  }
  if (value->type == to && !try_cast) return value;
  if (!CanCast(value->type, to)) {
    return Error("cannot cast " + value->type.ToString() + " to " + to.ToString(), loc);
  }
  auto e = MakeCast(value, to, try_cast);
  e->pos = Pos(loc);
  return e;
}

}  // namespace tandem::sql::binder
