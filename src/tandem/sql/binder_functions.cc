// Function calls: scalar functions through the registry (with SQL-syntax forms EXTRACT,
// SUBSTRING ... FROM ... FOR, POSITION ... IN, TRIM(BOTH/LEADING/TRAILING), and common
// synonyms), aggregate calls (DISTINCT, FILTER) collected into the query's Aggregate, and
// window calls (binder_window.cc), and user-defined functions (udf/registry.h) by their
// declared signature.
#include "tandem/sql/binder_internal.h"
#include "tandem/udf/registry.h"

namespace tandem::sql::binder {
namespace {

// Registry name for a SQL spelling the registry does not know itself.
std::string CanonicalFunction(const std::string& name) {
  static const std::pair<const char*, const char*> kSynonyms[] = {{"btrim", "trim"},
                                                                  {"ceiling", "ceil"},
                                                                  {"pow", "power"},
                                                                  {"char_length", "length"},
                                                                  {"character_length", "length"},
                                                                  {"substr", "substring"},
                                                                  {"position", "strpos"},
                                                                  {"log", "log10"}};
  if (IsKnownScalarFunction(name)) return name;
  for (const auto& [from, to] : kSynonyms) {
    if (name == from && IsKnownScalarFunction(to)) return to;
  }
  // DuckDB's year(x), month(x) ... are extract_<field>(x).
  if (IsKnownScalarFunction("extract_" + name)) return "extract_" + name;
  return name;
}

std::string ExtractField(std::string field) {
  field = Lower(field);
  if (field == "dow") return "dayofweek";
  if (field == "doy") return "dayofyear";
  if (field == "years") return "year";
  if (field == "months") return "month";
  if (field == "days") return "day";
  return field;
}

// Whether an argument of type `from` may be cast implicitly to a UDF's declared type `to`: when
// `to` is what the two types are brought to anyway (int -> bigint -> double ...), or a decimal
// wide enough for every value of `from`.
bool ImplicitlyCastsTo(const DataType& from, const DataType& to) {
  if (from == to) return true;
  if (from.is_decimal() && to.is_decimal()) {
    return to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
  }
  Result<DataType> common = CommonSuperType(from, to);
  return common.ok() && *common == to;
}

// A call of a user-defined function: arguments cast to the declared types, result nullable.
Result<ExprPtr> BindUdfCall(const Binder& b, const UdfFunctionPtr& f, std::vector<ExprPtr> args,
                            int loc) {
  if (args.size() != f->arg_types.size()) {
    return b.Error("function " + f->Signature() + " takes " + std::to_string(f->arg_types.size()) +
                       " argument" + (f->arg_types.size() == 1 ? "" : "s") + ", got " +
                       std::to_string(args.size()),
                   loc);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const DataType& want = f->arg_types[i];
    if (!IsUntypedNull(*args[i]) && !ImplicitlyCastsTo(args[i]->type, want)) {
      return b.Error("function " + f->Signature() + " expects " + want.ToString() +
                         " for argument " + std::to_string(i + 1) + ", got " +
                         args[i]->type.ToString() + " (add a CAST)",
                     loc);
    }
    args[i] = CastTo(args[i], want);
  }
  auto e = MakeCall(f->name, std::move(args), f->result_type, /*nullable=*/true);
  e->udf = f;
  e->pos = b.Pos(loc);
  return e;
}

}  // namespace

Result<ExprPtr> Binder::BindFuncCall(const Json& call, ExprContext& ctx) {
  const int loc = Int(call, "location", -1);
  const Json& names = Child(call, "funcname");
  if (!names.is_array() || names.empty()) return Error("missing function name", loc);
  const std::string name = Lower(StringValue(names.back()));
  if (call.contains("over")) return BindWindowCall(call, name, ctx);
  if (call.contains("agg_order") || Flag(call, "agg_within_group")) {
    return Unsupported("ORDER BY inside aggregate calls", loc);
  }
  if (Flag(call, "func_variadic")) return Unsupported("VARIADIC arguments", loc);
  AggregateKind agg;
  if (LookupAggregate(name, &agg)) return BindAggregate(call, agg, name, ctx);
  if (Flag(call, "agg_star")) return Error(name + "(*) is not an aggregate", loc);
  if (Flag(call, "agg_distinct")) return Error("DISTINCT is only allowed in aggregates", loc);
  if (call.contains("agg_filter")) return Error("FILTER is only allowed in aggregates", loc);

  const Json& arg_nodes = Child(call, "args");
  for (const auto& a : arg_nodes) {
    if (NodeTag(a) == "NamedArgExpr") return Unsupported("named function arguments", loc);
  }
  // EXTRACT(field FROM x) -> extract_<field>(x)
  if (name == "extract" || name == "date_part") {
    if (arg_nodes.size() != 2 || NodeTag(arg_nodes[0]) != "A_Const") {
      return Error(name + " takes a field name and a value", loc);
    }
    const std::string field = ExtractField(Str(Child(NodeBody(arg_nodes[0]), "sval"), "sval"));
    if (!IsKnownScalarFunction("extract_" + field)) {
      return Unsupported("EXTRACT(" + field + " ...)", loc);
    }
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(arg_nodes[1], ctx));
    return Call("extract_" + field, {x}, loc);
  }
  std::vector<ExprPtr> args;
  for (const auto& a : arg_nodes) {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, ctx));
    args.push_back(x);
  }
  std::string fn = CanonicalFunction(name);
  // POSITION(sub IN s) arrives as position(s, sub), which is strpos(s, sub); TRIM(BOTH c FROM
  // s) as btrim(s, c); SUBSTRING(s FROM a FOR b) as substring(s, a, b).
  if (!IsKnownScalarFunction(fn)) {
    if (UdfFunctionPtr f = udf::FindFunction(name)) {
      return BindUdfCall(*this, f, std::move(args), loc);
    }
    std::vector<std::string> candidates = ScalarFunctionNames();
    for (const std::string& u : udf::FunctionNames()) candidates.push_back(u);
    for (const char* a : {"count", "sum", "avg", "min", "max", "stddev", "stddev_samp",
                          "stddev_pop", "variance", "var_samp", "var_pop", "bool_and", "bool_or",
                          "row_number", "rank", "dense_rank", "lag", "lead"}) {
      candidates.push_back(a);
    }
    const std::string hint = ClosestName(name, candidates);
    return Error("unknown function " + name + (hint.empty() ? "" : "; did you mean " + hint + "?"),
                 loc);
  }
  return Call(fn, std::move(args), loc);
}

Result<ExprPtr> Binder::BindAggregate(const Json& call, AggregateKind kind, const std::string& name,
                                      ExprContext& ctx) {
  const int loc = Int(call, "location", -1);
  if (ctx.in_aggregate) return Error("aggregate function calls cannot be nested", loc);
  if (!ctx.allow_aggregates || !ctx.state) {
    return Error("aggregate functions are not allowed in " + std::string(ctx.clause), loc);
  }
  ExprContext inner = ctx;
  inner.in_aggregate = true;
  inner.allow_windows = false;
  inner.allow_subqueries = false;
  inner.clause = "aggregate arguments";
  AggregateCall a;
  a.kind = kind;
  a.distinct = Flag(call, "agg_distinct");
  a.name = ExprText(Json{{"FuncCall", call}});
  const Json& args = Child(call, "args");
  if (Flag(call, "agg_star")) {
    if (kind != AggregateKind::kCount) return Error(name + "(*) is not supported", loc);
    a.kind = AggregateKind::kCountStar;
    a.type = DataType::Int64();
  } else {
    if (args.size() != 1) {
      return Error("aggregate " + name + " takes 1 argument, got " + std::to_string(args.size()),
                   loc);
    }
    TANDEM_ASSIGN_OR_RAISE(a.arg, BindExpr(args[0], inner));
    if (IsUntypedNull(*a.arg)) a.arg = CastTo(a.arg, DataType::Int32());
    if (a.arg->kind == ExprKind::kLiteral && a.arg->name.rfind("__interval_", 0) == 0) {
      return Unsupported("aggregates of INTERVAL values", loc);
    }
    Result<DataType> t = AggregateResultType(kind, a.arg->type);
    if (!t.ok()) return Error(t.status().message(), loc);
    a.type = *t;
  }
  if (call.contains("agg_filter")) {
    inner.clause = "FILTER";
    TANDEM_ASSIGN_OR_RAISE(a.filter, BindBoolean(Child(call, "agg_filter"), inner, "FILTER"));
  }
  a.nullable = !(a.kind == AggregateKind::kCount || a.kind == AggregateKind::kCountStar);
  std::vector<AggregateCall>& aggs = ctx.state->aggregates;
  int index = -1;
  for (size_t i = 0; i < aggs.size(); ++i) {
    const AggregateCall& o = aggs[i];
    if (o.kind == a.kind && o.distinct == a.distinct && (!o.arg) == (!a.arg) &&
        (!o.arg || SameExpr(*o.arg, *a.arg)) && (!o.filter) == (!a.filter) &&
        (!o.filter || SameExpr(*o.filter, *a.filter))) {
      index = static_cast<int>(i);
      break;
    }
  }
  if (index < 0) {
    index = static_cast<int>(aggs.size());
    aggs.push_back(a);
  }
  auto ref = MakeColumnRef(index, a.type, a.nullable, aggs[index].name);
  ref->outer_depth = kAggregateSlot;
  ref->pos = Pos(loc);
  return ref;
}

}  // namespace tandem::sql::binder
