// Fragment expressions -> Tandem expressions with Spark's semantics (see fragment_expr.h).
#include "tandem/spark/fragment_expr.h"

#include <set>

#include "tandem/expr/function_registry.h"
#include "tandem/spark/spark_udfs.h"

namespace tandem::spark {
namespace {

Status Unsupported(const std::string& why) { return Status::Unsupported(why); }

// Functions whose Tandem kernels compute exactly what Spark's counterparts do for every input
// (given the argument checks in CheckCallArguments). Anything else is not translated.
const std::set<std::string>& ExactFunctions() {
  static const std::set<std::string> names = {
      "eq",
      "ne",
      "lt",
      "le",
      "gt",
      "ge",
      "is_distinct_from",
      "is_not_distinct_from",
      "and",
      "or",
      "not",
      "is_null",
      "is_not_null",
      "add",
      "subtract",
      "multiply",
      "divide",
      "modulo",
      "negate",
      "abs",
      "like",
      "starts_with",
      "ends_with",
      "contains",
      "substring",
      "length",
      "concat",
      "coalesce",
      "extract_year",
      "extract_month",
      "extract_day",
      "extract_quarter",
      "date_add",
      "date_sub",
      "datediff",
      "sqrt",
      "exp",
      "ln",
      "log10",
      "log2",
      "cbrt",
      "power",
      "floor",
      "ceil",
      "round",
      "greatest",
      "least",
      "trim",
      "ltrim",
      "rtrim",
      "replace",
      "lpad",
      "rpad",
      "reverse",
      "repeat",
      "strpos",
      "extract_dayofweek",
      "extract_dayofyear",
      "extract_hour",
      "extract_minute",
      "extract_second",
  };
  return names;
}

// Functions with an eval mode (Spark's evalMode or failOnError).
bool HasEvalMode(const std::string& fn) {
  return fn == "add" || fn == "subtract" || fn == "multiply" || fn == "divide" || fn == "modulo" ||
         fn == "negate" || fn == "abs";
}

bool IsLiteralInt(const Expr& e, int64_t* v) {
  if (e.kind != ExprKind::kLiteral || e.literal.is_null || !e.type.is_integer()) return false;
  *v = e.literal.i64;
  return true;
}

// Decimal digits an integer type needs.
int IntegerDigits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 3;
    case TypeId::kInt16:
      return 5;
    case TypeId::kInt32:
      return 10;
    default:
      return 19;
  }
}

int IntegerRank(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
      return 3;
    case TypeId::kInt64:
      return 4;
    default:
      return 99;  // unsigned types have no Spark twin
  }
}

// Whether Tandem's CAST from `from` to `to` gives Spark's value for every input (and can fail
// only where Spark's ANSI cast fails). `ansi`: Spark's eval mode of the cast is ANSI.
std::string CastMismatch(const DataType& from, const DataType& to, bool ansi) {
  if (from == to) return "";
  const std::string what = "CAST(" + from.ToString() + " AS " + to.ToString() + ")";
  if (from.is_integer() && to.is_integer()) {
    if (IntegerRank(from.id) <= IntegerRank(to.id)) return "";
    return ansi ? "" : what + " wraps in Spark's LEGACY mode";
  }
  if (from.is_integer() && to.id == TypeId::kFloat64) return "";
  if (from.id == TypeId::kFloat32 && to.id == TypeId::kFloat64) return "";
  if (from.is_integer() && to.is_decimal()) {
    if (to.precision - to.scale >= IntegerDigits(from.id)) return "";
    return ansi ? "" : what + " gives NULL on overflow in Spark's LEGACY mode";
  }
  if (from.is_decimal() && to.is_decimal()) {
    // Rescaling rounds HALF_UP in both; overflow is an error in ANSI mode in both.
    if (to.precision - to.scale >= from.precision - from.scale) return "";
    return ansi ? "" : what + " gives NULL on overflow in Spark's LEGACY mode";
  }
  if (from.is_decimal() && to.id == TypeId::kFloat64) return "";
  if ((from.is_integer() || from.is_decimal()) && to.id == TypeId::kString) return "";
  if (from.id == TypeId::kDate32 && to.id == TypeId::kString) return "";
  return what + " may differ from Spark's";
}

Result<ExprPtr> CastExactly(ExprPtr arg, const DataType& to, bool ansi) {
  if (arg->type == to) return arg;
  const std::string why = CastMismatch(arg->type, to, ansi);
  if (!why.empty()) return Unsupported(why);
  return MakeCast(std::move(arg), to);
}

// Argument conditions under which a Tandem function is Spark's.
Status CheckCallArguments(const std::string& fn, const std::vector<ExprPtr>& args,
                          const SparkSettings& s) {
  if (fn == "substring") {
    // Spark counts a start of 0 as 1 and a negative start from the end differently.
    int64_t start = 0, len = 0;
    if (args.size() < 2 || !IsLiteralInt(*args[1], &start) || start < 1) {
      return Unsupported("substring with a start that is not a constant >= 1");
    }
    if (args.size() == 3 && (!IsLiteralInt(*args[2], &len) || len < 0)) {
      return Unsupported("substring with a length that is not a constant >= 0");
    }
  }
  if (fn == "length" && (args.empty() || args[0]->type.id != TypeId::kString)) {
    return Unsupported("length of anything but a string");
  }
  const bool time_of_day = fn == "extract_hour" || fn == "extract_minute" || fn == "extract_second";
  if (time_of_day) {
    if (args.empty() || args[0]->type.id != TypeId::kTimestamp) {
      return Unsupported(fn + " of anything but a timestamp");
    }
    if (!s.utc()) return Unsupported(fn + " in the session time zone " + s.time_zone);
  } else if (fn.rfind("extract_", 0) == 0 &&
             (args.empty() || args[0]->type.id != TypeId::kDate32)) {
    return Unsupported(fn + " of anything but a date");
  }
  if ((fn == "floor" || fn == "ceil") && (args.empty() || args[0]->type.is_floating())) {
    return Unsupported(fn +
                       " of a floating-point value (Spark's is a bigint, saturating, 0 for "
                       "NaN)");
  }
  if (fn == "round" && (args.empty() || args[0]->type.is_floating())) {
    return Unsupported("round of a floating-point value (Spark rounds its shortest decimal form)");
  }
  if (fn == "modulo" && !args.empty() && args[0]->type.is_floating()) {
    return Unsupported("% of floating-point values");
  }
  return Status::OK();
}

Status CheckMode(const Json& j, const std::string& fn, const SparkSettings& settings,
                 const std::string& where) {
  auto mode = j.find("mode");
  if (mode == j.end()) {
    if (HasEvalMode(fn)) return Status::Invalid("fragment " + where + ": " + fn + " needs a mode");
    return Status::OK();
  }
  if (!mode->is_string()) return Status::Invalid("fragment " + where + ": mode must be a string");
  const std::string m = mode->get<std::string>();
  if (m == "try") return Unsupported(fn + " in TRY mode (try_* functions)");
  if (m != "ansi" && m != "legacy") {
    return Status::Invalid("fragment " + where + ": unknown mode '" + m + "'");
  }
  if ((m == "ansi") != settings.ansi) {
    return Unsupported(fn + " in " + m + " mode inside a query whose spark.sql.ansi.enabled is " +
                       (settings.ansi ? "true" : "false"));
  }
  return Status::OK();
}

Result<std::vector<ExprPtr>> Args(const Json& j, const Schema& input, const SparkSettings& s,
                                  const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* args, Member(j, "args", where));
  if (!args->is_array()) return Status::Invalid("fragment " + where + ": args must be a list");
  std::vector<ExprPtr> out;
  for (size_t i = 0; i < args->size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(
        ExprPtr e, ExprFromJson((*args)[i], input, s, where + ".args[" + std::to_string(i) + "]"));
    out.push_back(std::move(e));
  }
  return out;
}

Result<ExprPtr> Call(const Json& j, const Schema& input, const SparkSettings& s,
                     const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string fn, StringMember(j, "fn", where));
  TANDEM_RETURN_NOT_OK(CheckMode(j, fn, s, where));
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> args, Args(j, input, s, where));
  if (!ExactFunctions().count(fn)) {
    return Unsupported("function " + fn +
                       (IsKnownScalarFunction(fn) ? " (its Tandem semantics are not Spark's yet)"
                                                  : " (Tandem has no such function)"));
  }
  TANDEM_RETURN_NOT_OK(CheckCallArguments(fn, args, s));
  std::vector<DataType> types;
  for (const auto& a : args) types.push_back(a->type);
  Result<ResolvedFunction> r = ResolveScalarFunction(fn, types);
  if (!r.ok()) return Unsupported(r.status().message());
  if (r->arg_types.size() == args.size()) {
    for (size_t i = 0; i < args.size(); ++i) {
      TANDEM_ASSIGN_OR_RAISE(args[i], CastExactly(args[i], r->arg_types[i], s.ansi));
    }
  }
  bool nullable = !r->null_propagating;
  for (const auto& a : args) nullable |= a->nullable;
  return MakeCall(r->name, std::move(args), r->result_type, nullable);
}

Result<ExprPtr> Case(const Json& j, const Schema& input, const SparkSettings& s,
                     const std::string& where, const DataType& type) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> args, Args(j, input, s, where));
  auto has_else = j.find("has_else");
  const bool with_else = has_else != j.end() && has_else->is_boolean() && has_else->get<bool>();
  const size_t branches = (args.size() - (with_else ? 1 : 0)) / 2;
  if (args.empty() || branches * 2 + (with_else ? 1 : 0) != args.size()) {
    return Status::Invalid("fragment " + where + ": a case needs when/then pairs");
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCase;
  e->has_else = with_else;
  e->type = type;
  e->nullable = !with_else;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool is_condition = i < branches * 2 && i % 2 == 0;
    if (is_condition) {
      if (args[i]->type.id != TypeId::kBool)
        return Unsupported("a CASE condition that is not boolean");
    } else {
      TANDEM_ASSIGN_OR_RAISE(args[i], CastExactly(args[i], type, s.ansi));
      e->nullable |= args[i]->nullable;
    }
  }
  e->args = std::move(args);
  return ExprPtr(e);
}

Result<ExprPtr> In(const Json& j, const Schema& input, const SparkSettings& s,
                   const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> args, Args(j, input, s, where));
  if (args.size() < 2) return Status::Invalid("fragment " + where + ": an IN needs a list");
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i]->type != args[0]->type) {
      return Unsupported("IN list of " + args[i]->type.ToString() + " for a " +
                         args[0]->type.ToString() + " value");
    }
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kInList;
  e->type = DataType::Bool();
  for (const auto& a : args) e->nullable |= a->nullable;
  e->args = std::move(args);
  return ExprPtr(e);
}

// Spark types round(decimal(p, s), d) as decimal(p - s + 1 + min(s, d), min(s, d)); Tandem keeps
// the scale (decimal(p + 1, s)). The value, rounded at scale d, fits Spark's type exactly.
ExprPtr WithSparkRoundType(ExprPtr e, const DataType& spark) {
  if (e->kind != ExprKind::kCall || e->name != "round" || !e->type.is_decimal() ||
      !spark.is_decimal() || e->type == spark || e->args.size() != 2) {
    return e;
  }
  int64_t d = 0;
  const DataType& in = e->args[0]->type;
  if (!IsLiteralInt(*e->args[1], &d) || d < 0 || !in.is_decimal()) return e;
  const int scale = static_cast<int>(std::min<int64_t>(in.scale, d));
  if (spark.scale != scale ||
      spark.precision != std::min(38, in.precision - in.scale + 1 + scale)) {
    return e;
  }
  return MakeCast(std::move(e), spark);
}

}  // namespace

bool SparkSettings::utc() const {
  return time_zone == "UTC" || time_zone == "Etc/UTC" || time_zone == "Z" ||
         time_zone == "+00:00" || time_zone == "GMT" || time_zone == "Etc/GMT";
}

Result<ExprPtr> ExprFromJson(const Json& j, const Schema& input, const SparkSettings& settings,
                             const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string kind, StringMember(j, "kind", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* type_json, Member(j, "type", where));
  TANDEM_ASSIGN_OR_RAISE(DataType type, TypeFromJson(*type_json, where + ".type"));
  ExprPtr e;
  if (kind == "col") {
    TANDEM_ASSIGN_OR_RAISE(int64_t index, IntMember(j, "index", where));
    if (index < 0 || index >= input.num_fields()) {
      return Status::Invalid("fragment " + where + ": column " + std::to_string(index) +
                             " of an input with " + std::to_string(input.num_fields()));
    }
    const Field& f = input.field(static_cast<int>(index));
    e = MakeColumnRef(static_cast<int>(index), f.type, f.nullable, f.name);
  } else if (kind == "lit") {
    TANDEM_ASSIGN_OR_RAISE(const Json* value, Member(j, "value", where));
    TANDEM_ASSIGN_OR_RAISE(Value v, ValueFromJson(*value, type, where + ".value"));
    e = MakeLiteral(std::move(v));
  } else if (kind == "call") {
    TANDEM_ASSIGN_OR_RAISE(e, Call(j, input, settings, where));
    e = WithSparkRoundType(std::move(e), type);
  } else if (kind == "cast") {
    TANDEM_ASSIGN_OR_RAISE(const Json* arg, Member(j, "arg", where));
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, ExprFromJson(*arg, input, settings, where + ".arg"));
    const std::string mode = j.value("mode", settings.ansi ? "ansi" : "legacy");
    if (mode == "try") return Unsupported("try_cast");
    TANDEM_ASSIGN_OR_RAISE(e, CastExactly(std::move(x), type, mode == "ansi"));
  } else if (kind == "udf") {
    TANDEM_ASSIGN_OR_RAISE(std::string name, StringMember(j, "name", where));
    TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> args, Args(j, input, settings, where));
    TANDEM_ASSIGN_OR_RAISE(e, UdfCall(name, std::move(args), type));
  } else if (kind == "case") {
    TANDEM_ASSIGN_OR_RAISE(e, Case(j, input, settings, where, type));
  } else if (kind == "in") {
    TANDEM_ASSIGN_OR_RAISE(e, In(j, input, settings, where));
  } else {
    return Status::Invalid("fragment " + where + ": unknown expression kind '" + kind + "'");
  }
  if (e->type != type) {
    return Unsupported("Spark types " + (kind == "call" ? j.value("fn", kind) : kind) + " as " +
                       type.ToString() + ", Tandem as " + e->type.ToString());
  }
  return e;
}

Result<std::vector<ExprPtr>> ExprList(const Json& j, const char* key, const Schema& input,
                                      const SparkSettings& s, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* list, Member(j, key, where));
  if (!list->is_array()) {
    return Status::Invalid("fragment " + where + ": " + key + " must be a list");
  }
  std::vector<ExprPtr> out;
  for (size_t i = 0; i < list->size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(
        ExprPtr e,
        ExprFromJson((*list)[i], input, s, where + "." + key + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<SortKey>> SortKeys(const Json& j, const char* key, const Schema& input,
                                      const SparkSettings& s, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* list, Member(j, key, where));
  if (!list->is_array()) {
    return Status::Invalid("fragment " + where + ": " + key + " must be a list");
  }
  std::vector<SortKey> keys;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = where + "." + key + "[" + std::to_string(i) + "]";
    TANDEM_ASSIGN_OR_RAISE(const Json* e, Member((*list)[i], "expr", at));
    SortKey k;
    TANDEM_ASSIGN_OR_RAISE(k.expr, ExprFromJson(*e, input, s, at + ".expr"));
    k.ascending = (*list)[i].value("ascending", true);
    k.nulls_first = (*list)[i].value("nulls_first", k.ascending);
    keys.push_back(std::move(k));
  }
  return keys;
}

}  // namespace tandem::spark
