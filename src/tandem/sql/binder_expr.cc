// Expression binding: column references, operators (arithmetic, comparison, boolean, LIKE,
// IN lists, BETWEEN, IS [NOT] NULL / DISTINCT FROM), CASE, COALESCE, NULLIF, date +/- INTERVAL,
// and the registry call helper that inserts casts so arguments match the chosen overload.
#include <algorithm>
#include <optional>
#include <set>

#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_constants.h"
#include "tandem/plan/rewrite_util.h"
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

bool IsInterval(const Expr& e) {
  return e.kind == ExprKind::kLiteral && e.name.rfind("__interval_", 0) == 0;
}

const char* OperatorFunction(const std::string& op) {
  static const std::pair<const char*, const char*> kOps[] = {
      {"+", "add"},     {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"},
      {"%", "modulo"},  {"=", "eq"},       {"<>", "ne"},      {"!=", "ne"},
      {"<", "lt"},      {"<=", "le"},      {">", "gt"},       {">=", "ge"},
      {"||", "concat"}, {"~~", "like"},    {"~~*", "ilike"},  {"^", "power"}};
  for (const auto& [sym, fn] : kOps) {
    if (op == sym) return fn;
  }
  return nullptr;
}

// Functions whose result can be NULL for non-NULL inputs, or never NULL.
bool MayReturnNullAnyway(const std::string& name) {
  static const std::set<std::string> kNames = {"divide", "modulo",   "mod",     "nullif",
                                               "ln",     "try_cast", "to_date", "sqrt"};
  return kNames.count(name) > 0;
}

// The value of a constant integer argument (a literal, possibly cast or negated), or nullopt.
std::optional<int64_t> ConstantInteger(const Expr& e) {
  if (!IsConstant(e) || !e.type.is_integer()) return std::nullopt;
  EvalContext ctx;
  Result<Value> v = cpu::EvaluateConstant(e, ctx);
  if (!v.ok() || v->is_null) return std::nullopt;
  return v->i64;
}

// Spark's round(decimal, d) type depends on d's value when d is a constant.
DataType ConstantDependentResultType(const std::string& name, const std::vector<ExprPtr>& args,
                                     const DataType& registry_type) {
  if (name == "round" && args.size() == 2 && args[0]->type.is_decimal()) {
    if (auto d = ConstantInteger(*args[1])) {
      const int clamped = static_cast<int>(std::clamp<int64_t>(*d, -38, 38));
      return RoundResultType(args[0]->type, clamped);
    }
  }
  return registry_type;
}

}  // namespace

Result<ExprPtr> Binder::Call(const std::string& name, std::vector<ExprPtr> args, int location) {
  // An untyped NULL takes the type of the first typed argument.
  DataType fallback = DataType::Int32();
  for (const auto& a : args) {
    if (!IsUntypedNull(*a)) {
      fallback = a->type;
      break;
    }
  }
  std::vector<DataType> types;
  for (auto& a : args) {
    if (IsUntypedNull(*a)) a = CastTo(a, fallback);
    if (IsInterval(*a)) return Unsupported("INTERVAL values outside date arithmetic", location);
    types.push_back(a->type);
  }
  Result<ResolvedFunction> r = ResolveScalarFunction(name, types);
  if (!r.ok()) {
    std::string msg = r.status().message();
    if (!IsKnownScalarFunction(name)) {
      std::vector<std::string> names = ScalarFunctionNames();
      for (const char* agg : {"count", "sum", "avg", "min", "max", "stddev", "variance"}) {
        names.push_back(agg);
      }
      const std::string hint = ClosestName(name, names);
      if (!hint.empty()) msg += "; did you mean " + hint + "?";
    }
    return Error(msg, location);
  }
  const ResolvedFunction& f = *r;
  if (f.arg_types.size() == args.size()) {
    for (size_t i = 0; i < args.size(); ++i) args[i] = CastTo(args[i], f.arg_types[i]);
  }
  bool any_nullable = false, all_nullable = !args.empty();
  for (const auto& a : args) {
    any_nullable |= a->nullable;
    all_nullable &= a->nullable;
  }
  bool nullable = any_nullable;
  if (!f.null_propagating) {
    if (f.name == "is_null" || f.name == "is_not_null" || f.name == "is_distinct_from" ||
        f.name == "is_not_distinct_from") {
      nullable = false;
    } else if (f.name == "coalesce" || f.name == "greatest" || f.name == "least") {
      nullable = all_nullable;
    } else if (f.name != "and" && f.name != "or") {
      nullable = true;
    }
  }
  if (MayReturnNullAnyway(f.name)) nullable = true;
  const DataType result_type = ConstantDependentResultType(f.name, args, f.result_type);
  auto e = MakeCall(f.name, std::move(args), result_type, nullable);
  e->pos = Pos(location);
  return e;
}

Status Binder::Unify(std::vector<ExprPtr>* exprs, int location, const char* what) {
  std::optional<DataType> common;
  for (const auto& e : *exprs) {
    if (IsUntypedNull(*e)) continue;
    if (IsInterval(*e)) return Unsupported("INTERVAL values outside date arithmetic", location);
    if (!common) {
      common = e->type;
      continue;
    }
    Result<DataType> t = CommonSuperType(*common, e->type);
    if (!t.ok()) {
      return Error("cannot find a common type for " + common->ToString() + " and " +
                       e->type.ToString() + " in " + what,
                   location);
    }
    common = *t;
  }
  const DataType type = common.value_or(DataType::Int32());
  for (auto& e : *exprs) e = CastTo(e, type);
  return Status::OK();
}

Result<ExprPtr> Binder::BindBoolean(const Json& node, ExprContext& ctx, const char* what) {
  TANDEM_ASSIGN_OR_RAISE(ExprPtr e, BindExpr(node, ctx));
  if (IsUntypedNull(*e)) return CastTo(e, DataType::Bool());
  if (e->type.id != TypeId::kBool) {
    return Error(std::string(what) + " must be boolean, got " + e->type.ToString(),
                 LocationOf(node));
  }
  return e;
}

namespace {

// Binds `date +/- INTERVAL` (either order for +) as add_interval_<unit>(date, +/-n).
Result<ExprPtr> DateIntervalArithmetic(Binder& b, const std::string& fn, ExprPtr l, ExprPtr r,
                                       int loc) {
  if (fn == "add" && IsInterval(*l)) std::swap(l, r);
  if (IsInterval(*l) || (fn != "add" && fn != "subtract")) {
    return b.Unsupported("this arithmetic with INTERVAL values", loc);
  }
  const std::string unit = r->name.substr(std::string("__interval_").size());
  const int64_t n = fn == "subtract" ? -r->literal.i64 : r->literal.i64;
  return b.Call("add_interval_" + unit, {l, MakeLiteral(Value::Int64(n))}, loc);
}

}  // namespace

Result<ExprPtr> Binder::BindExpr(const Json& node, ExprContext& ctx) {
  const std::string& tag = NodeTag(node);
  const Json& b = NodeBody(node);
  const int loc = LocationOf(node);
  DepthGuard depth;
  TANDEM_RETURN_NOT_OK(CheckDepth(node));
  if (tag == "ColumnRef") {
    const Json& fields = Child(b, "fields");
    if (!fields.is_array() || fields.empty()) return Error("empty column reference", loc);
    if (fields.back().contains("A_Star")) {
      return Error("* is allowed only in the SELECT list and in count(*)", loc);
    }
    if (fields.size() > 2) return Unsupported("column names with a schema or catalog", loc);
    std::string name = StringValue(fields.back());
    std::string qual = fields.size() == 2 ? StringValue(fields[0]) : "";
    // PostgreSQL cuts identifiers at 63 bytes; Parquet column names can be longer.
    if (name.size() == kPgMaxIdentifier || qual.size() == kPgMaxIdentifier) {
      std::vector<std::string> parts = IdentifiersAt(sql_, loc);
      if (parts.size() == fields.size()) {
        name = parts.back();
        if (parts.size() == 2) qual = parts[0];
      }
    }
    static const Scope kEmpty;
    return ResolveColumn(*this, ctx.scope ? *ctx.scope : kEmpty, qual, name, loc);
  }
  if (tag == "A_Const") return BindConst(b);
  if (tag == "TypeCast") return BindTypeCast(b, ctx);
  if (tag == "FuncCall") return BindFuncCall(b, ctx);
  if (tag == "SubLink") return BindSubLink(b, ctx, false);
  if (tag == "BoolExpr") {
    const std::string op = Str(b, "boolop");
    const Json& args = Child(b, "args");
    if (op == "NOT_EXPR") {
      if (args.size() != 1) return Error("NOT takes one operand", loc);
      if (NodeTag(args[0]) == "SubLink") {
        const std::string kind = Str(NodeBody(args[0]), "subLinkType");
        if (kind == "EXISTS_SUBLINK" ||
            (kind == "ANY_SUBLINK" && !NodeBody(args[0]).contains("operName"))) {
          return BindSubLink(NodeBody(args[0]), ctx, true);
        }
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindBoolean(args[0], ctx, "the operand of NOT"));
      return Call("not", {x}, loc);
    }
    std::vector<ExprPtr> operands;
    operands.reserve(args.size());
    for (const auto& a : args) {
      TANDEM_ASSIGN_OR_RAISE(
          ExprPtr x, BindBoolean(a, ctx, op == "AND_EXPR" ? "an AND operand" : "an OR operand"));
      operands.push_back(std::move(x));
    }
    if (operands.empty()) return Error("empty boolean expression", loc);
    return WithPos(plan::CombineBalanced(op == "AND_EXPR" ? "and" : "or", operands), Pos(loc));
  }
  if (tag == "NullTest") {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(Child(b, "arg"), ctx));
    return Call(Str(b, "nulltesttype") == "IS_NULL" ? "is_null" : "is_not_null", {x}, loc);
  }
  if (tag == "BooleanTest") {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindBoolean(Child(b, "arg"), ctx, "the operand of IS"));
    const std::string t = Str(b, "booltesttype");
    if (t == "IS_UNKNOWN") return Call("is_null", {x}, loc);
    if (t == "IS_NOT_UNKNOWN") return Call("is_not_null", {x}, loc);
    const bool truth = t == "IS_TRUE" || t == "IS_NOT_TRUE";
    const bool negate = t == "IS_NOT_TRUE" || t == "IS_NOT_FALSE";
    return Call(negate ? "is_distinct_from" : "is_not_distinct_from",
                {x, MakeLiteral(Value::Bool(truth))}, loc);
  }
  if (tag == "CoalesceExpr") {
    std::vector<ExprPtr> args;
    for (const auto& a : Child(b, "args")) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, ctx));
      args.push_back(x);
    }
    TANDEM_RETURN_NOT_OK(Unify(&args, loc, "COALESCE"));
    return Call("coalesce", std::move(args), loc);
  }
  if (tag == "MinMaxExpr") {
    std::vector<ExprPtr> args;
    for (const auto& a : Child(b, "args")) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, ctx));
      args.push_back(x);
    }
    TANDEM_RETURN_NOT_OK(Unify(&args, loc, "GREATEST/LEAST"));
    return Call(Str(b, "op") == "IS_GREATEST" ? "greatest" : "least", std::move(args), loc);
  }
  if (tag == "SQLValueFunction") {
    const std::string op = Str(b, "op");
    if (op == "SVFOP_CURRENT_DATE") return Call("current_date", {}, loc);
    if (op == "SVFOP_CURRENT_TIMESTAMP" || op == "SVFOP_LOCALTIMESTAMP") {
      return Call("current_timestamp", {}, loc);
    }
    return Unsupported("this SQL value function", loc);
  }
  if (tag == "CaseExpr") {
    ExprPtr subject;
    if (b.contains("arg")) {
      TANDEM_ASSIGN_OR_RAISE(subject, BindExpr(Child(b, "arg"), ctx));
    }
    std::vector<ExprPtr> conditions, results;
    for (const auto& w : Child(b, "args")) {
      const Json& cw = NodeBody(w);
      ExprPtr cond;
      if (subject) {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr v, BindExpr(Child(cw, "expr"), ctx));
        TANDEM_ASSIGN_OR_RAISE(cond, Call("eq", {subject, v}, LocationOf(w)));
      } else {
        TANDEM_ASSIGN_OR_RAISE(cond, BindBoolean(Child(cw, "expr"), ctx, "a WHEN condition"));
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(Child(cw, "result"), ctx));
      conditions.push_back(cond);
      results.push_back(r);
    }
    const bool has_else = b.contains("defresult");
    if (has_else) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(Child(b, "defresult"), ctx));
      results.push_back(r);
    }
    TANDEM_RETURN_NOT_OK(Unify(&results, loc, "CASE results"));
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::kCase;
    e->has_else = has_else;
    e->type = results.empty() ? DataType::Int32() : results[0]->type;
    e->nullable = !has_else;
    for (size_t i = 0; i < conditions.size(); ++i) {
      e->args.push_back(conditions[i]);
      e->args.push_back(results[i]);
      e->nullable |= results[i]->nullable;
    }
    if (has_else) {
      e->args.push_back(results.back());
      e->nullable |= results.back()->nullable;
    }
    e->pos = Pos(loc);
    return e;
  }
  if (tag == "GroupingFunc") {
    if (!ctx.state || !ctx.allow_aggregates) {
      return Error(std::string("GROUPING() is not allowed in ") + ctx.clause, loc);
    }
    const QueryState& st = *ctx.state;
    std::vector<int> keys;
    ExprContext key_ctx = ctx;
    key_ctx.state = nullptr;
    key_ctx.allow_aggregates = key_ctx.allow_windows = key_ctx.allow_subqueries = false;
    for (const auto& a : Child(b, "args")) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, key_ctx));
      int found = -1;
      for (size_t k = 0; k < st.group_keys.size(); ++k) {
        if (SameExpr(*x, *st.group_keys[k])) found = static_cast<int>(k);
      }
      if (found < 0) return Error("arguments of GROUPING() must be GROUP BY keys", LocationOf(a));
      keys.push_back(found);
    }
    // The value for each grouping set is known now: a CASE over the grouping-id column.
    if (st.grouping_sets.empty()) return WithPos(MakeLiteral(Value::Int64(0)), Pos(loc));
    auto gid = MakeColumnRef(-1, DataType::Int64(), false, "grouping_id");
    gid->outer_depth = kGroupingIdSlot;
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::kCase;
    e->type = DataType::Int64();
    e->nullable = false;
    e->has_else = true;
    for (const auto& set : st.grouping_sets) {
      int64_t id = 0, value = 0;
      for (size_t k = 0; k < st.group_keys.size(); ++k) {
        if (std::find(set.begin(), set.end(), static_cast<int>(k)) == set.end()) id |= 1LL << k;
      }
      for (int k : keys) value = (value << 1) | ((id >> k) & 1);
      e->args.push_back(
          MakeCall("eq", {gid, MakeLiteral(Value::Int64(id))}, DataType::Bool(), false));
      e->args.push_back(MakeLiteral(Value::Int64(value)));
    }
    e->args.push_back(MakeLiteral(Value::Int64(0)));
    e->pos = Pos(loc);
    return e;
  }
  if (tag == "A_Expr") {
    const std::string kind = Str(b, "kind");
    std::string op;
    if (Child(b, "name").is_array() && !Child(b, "name").empty()) {
      op = StringValue(Child(b, "name").back());
    }
    if (kind == "AEXPR_OP") {
      if (!b.contains("lexpr")) {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(Child(b, "rexpr"), ctx));
        if (op == "+") return x;
        if (op == "-") {
          if (IsInterval(*x)) {
            x = std::make_shared<Expr>(*x);
            x->literal.i64 = -x->literal.i64;
            return x;
          }
          return Call("negate", {x}, loc);
        }
        return Unsupported("prefix operator " + op, loc);
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr l, BindExpr(Child(b, "lexpr"), ctx));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(Child(b, "rexpr"), ctx));
      const char* fn = OperatorFunction(op);
      if (!fn) return Unsupported("operator " + op, loc);
      if (IsInterval(*l) || IsInterval(*r)) return DateIntervalArithmetic(*this, fn, l, r, loc);
      return Call(fn, {l, r}, loc);
    }
    if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr l, BindExpr(Child(b, "lexpr"), ctx));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(Child(b, "rexpr"), ctx));
      return Call(kind == "AEXPR_DISTINCT" ? "is_distinct_from" : "is_not_distinct_from", {l, r},
                  loc);
    }
    if (kind == "AEXPR_NULLIF") {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr l, BindExpr(Child(b, "lexpr"), ctx));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(Child(b, "rexpr"), ctx));
      return Call("nullif", {l, r}, loc);
    }
    if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE") {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr l, BindExpr(Child(b, "lexpr"), ctx));
      const Json& rj = Child(b, "rexpr");
      std::vector<ExprPtr> args = {l};
      // LIKE ... ESCAPE parses as pattern = pg_catalog.like_escape(pattern, escape); any other
      // function call is the pattern itself (x LIKE lower(y)).
      const Json& fname = Child(NodeBody(rj), "funcname");
      const bool escape = NodeTag(rj) == "FuncCall" && fname.is_array() && fname.size() == 2 &&
                          StringValue(fname[0]) == "pg_catalog" &&
                          StringValue(fname[1]) == "like_escape";
      if (escape) {
        const Json& fargs = Child(NodeBody(rj), "args");
        if (fargs.size() != 2) return Error("malformed LIKE ... ESCAPE", loc);
        for (const auto& a : fargs) {
          TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, ctx));
          args.push_back(x);
        }
      } else {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr r, BindExpr(rj, ctx));
        args.push_back(r);
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr e,
                             Call(kind == "AEXPR_LIKE" ? "like" : "ilike", std::move(args), loc));
      if (!op.empty() && op[0] == '!') return Call("not", {e}, loc);
      return e;
    }
    if (kind == "AEXPR_IN") {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr l, BindExpr(Child(b, "lexpr"), ctx));
      std::vector<ExprPtr> args = {l};
      for (const auto& item : Child(Child(Child(b, "rexpr"), "List"), "items")) {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(item, ctx));
        args.push_back(x);
      }
      if (args.size() < 2) return Error("IN list is empty", loc);
      TANDEM_RETURN_NOT_OK(Unify(&args, loc, "IN list"));
      auto e = std::make_shared<Expr>();
      e->kind = ExprKind::kInList;
      e->type = DataType::Bool();
      e->negated = op == "<>";
      e->nullable = false;
      for (const auto& a : args) e->nullable |= a->nullable;
      e->args = std::move(args);
      e->pos = Pos(loc);
      return e;
    }
    if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
      const Json& items = Child(Child(Child(b, "rexpr"), "List"), "items");
      if (items.size() != 2) return Error("malformed BETWEEN", loc);
      TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(Child(b, "lexpr"), ctx));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr lo, BindExpr(items[0], ctx));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr hi, BindExpr(items[1], ctx));
      if (kind == "AEXPR_BETWEEN") {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr ge, Call("ge", {x, lo}, loc));
        TANDEM_ASSIGN_OR_RAISE(ExprPtr le, Call("le", {x, hi}, loc));
        return Call("and", {ge, le}, loc);
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr lt, Call("lt", {x, lo}, loc));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr gt, Call("gt", {x, hi}, loc));
      return Call("or", {lt, gt}, loc);
    }
    if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") {
      return Unsupported("ANY/ALL over arrays", loc);
    }
    if (kind == "AEXPR_SIMILAR") return Unsupported("SIMILAR TO", loc);
    return Unsupported("operator kind " + kind, loc);
  }
  if (tag == "RowExpr") return Unsupported("row values", loc);
  if (tag == "ParamRef") return Unsupported("parameters", loc);
  if (tag == "CollateClause") return Unsupported("COLLATE", loc);
  if (tag == "A_ArrayExpr" || tag == "A_Indirection") return Unsupported("arrays", loc);
  return Unsupported("expression " + tag, loc);
}

}  // namespace tandem::sql::binder
