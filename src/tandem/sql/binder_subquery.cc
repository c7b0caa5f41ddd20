// Subqueries in expressions: scalar, EXISTS / NOT EXISTS, IN / NOT IN, and comparisons with
// ANY / ALL become kSubquery expressions holding the subquery's bound plan. Correlated names
// resolve through the scope chain: a column of the enclosing query is a kColumnRef with
// outer_depth = 1 (its index is in the input of the node that will hold the expression).
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

const char* ComparisonFunction(const std::string& op) {
  static const std::pair<const char*, const char*> kOps[] = {
      {"=", "eq"},  {"<>", "ne"}, {"!=", "ne"}, {"<", "lt"},
      {"<=", "le"}, {">", "gt"},  {">=", "ge"}};
  for (const auto& [sym, fn] : kOps) {
    if (op == sym) return fn;
  }
  return nullptr;
}

}  // namespace

Result<PlanPtr> Binder::BindSubqueryPlan(const Json& select, const Scope* outer) {
  Binder child(sql_, catalog_, options_, view_depth_, index_);
  return child.BindQuery(select, outer, ctes_);
}

Result<ExprPtr> Binder::BindSubLink(const Json& link, ExprContext& ctx, bool negated) {
  const int loc = Int(link, "location", -1);
  if (!ctx.allow_subqueries) return Unsupported(std::string("subqueries in ") + ctx.clause, loc);
  const std::string type = Str(link, "subLinkType");
  const Json& select = NodeBody(Child(link, "subselect"));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->negated = negated;
  e->pos = Pos(loc);
  TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, BindSubqueryPlan(select, ctx.scope));
  if (type == "EXISTS_SUBLINK") {
    e->subquery_kind = SubqueryKind::kExists;
    e->type = DataType::Bool();
    e->nullable = false;
    e->subquery = plan;
    return e;
  }
  if (plan->schema.num_fields() != 1) {
    return Error(
        "subquery must return one column, got " + std::to_string(plan->schema.num_fields()), loc);
  }
  if (type == "EXPR_SUBLINK") {
    e->subquery_kind = SubqueryKind::kScalar;
    e->type = plan->schema.field(0).type;
    e->nullable = true;
    e->subquery = plan;
    return e;
  }
  if (type != "ANY_SUBLINK" && type != "ALL_SUBLINK") {
    return Unsupported("this kind of subquery (" + type + ")", loc);
  }
  const Json& test = Child(link, "testexpr");
  if (NodeTag(test) == "RowExpr") return Unsupported("row values with IN/ANY/ALL subqueries", loc);
  TANDEM_ASSIGN_OR_RAISE(ExprPtr left, BindExpr(test, ctx));
  std::string op = "=";
  if (Child(link, "operName").is_array() && !Child(link, "operName").empty()) {
    op = StringValue(Child(link, "operName").back());
  }
  const char* fn = ComparisonFunction(op);
  if (!fn) return Unsupported("operator " + op + " with ANY/ALL", loc);
  e->name = fn;
  e->subquery_kind = type == "ALL_SUBLINK"     ? SubqueryKind::kAll
                     : std::string(fn) == "eq" ? SubqueryKind::kIn
                                               : SubqueryKind::kAny;
  // Both sides are brought to one type; the subquery side through a Project.
  const Field& col = plan->schema.field(0);
  DataType common = col.type;
  if (!IsUntypedNull(*left)) {
    Result<DataType> t = CommonSuperType(left->type, col.type);
    if (!t.ok()) {
      return Error(
          "cannot compare " + left->type.ToString() + " with the subquery's " + col.type.ToString(),
          loc);
    }
    common = *t;
  }
  left = CastTo(left, common);
  if (col.type != common) {
    auto ref = MakeColumnRef(0, col.type, col.nullable, col.name);
    plan = MakeProject(plan, {MakeCast(ref, common)}, {col.name});
  }
  e->args = {left};
  e->type = DataType::Bool();
  e->nullable = true;
  e->subquery = plan;
  return e;
}

}  // namespace tandem::sql::binder
