// Constant folding (see fold_constants.h).
#include "tandem/plan/fold_constants.h"

#include "tandem/expr/cpu/evaluate.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

bool IsBoolLiteral(const Expr& e, bool value) {
  return e.kind == ExprKind::kLiteral && e.type.id == TypeId::kBool && !e.literal.is_null &&
         e.literal.AsBool() == value;
}

ExprPtr BoolLiteral(bool value) { return MakeLiteral(Value::Bool(value)); }

// AND/OR with one constant side.
ExprPtr SimplifyLogic(const ExprPtr& e) {
  if (e->kind != ExprKind::kCall || e->args.size() != 2) return e;
  const auto& a = e->args[0];
  const auto& b = e->args[1];
  if (e->name == "and") {
    if (IsBoolLiteral(*a, false) || IsBoolLiteral(*b, false)) return BoolLiteral(false);
    if (IsBoolLiteral(*a, true)) return b;
    if (IsBoolLiteral(*b, true)) return a;
  } else if (e->name == "or") {
    if (IsBoolLiteral(*a, true) || IsBoolLiteral(*b, true)) return BoolLiteral(true);
    if (IsBoolLiteral(*a, false)) return b;
    if (IsBoolLiteral(*b, false)) return a;
  }
  return e;
}

}  // namespace

ExprPtr FoldExpression(const ExprPtr& e) {
  if (!e || e->kind == ExprKind::kLiteral || e->kind == ExprKind::kColumnRef ||
      e->kind == ExprKind::kSubquery) {
    return e;
  }
  ExprPtr cur = e;
  bool changed = false;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(FoldExpression(a));
    changed = changed || args.back() != a;
  }
  if (changed) {
    auto copy = std::make_shared<Expr>(*e);
    copy->args = std::move(args);
    cur = copy;
  }
  if (IsConstant(*cur)) {
    // ANSI evaluation fails wherever the modes differ, so a value it gives is right in both.
    EvalContext ctx;
    ctx.ansi = true;
    auto v = cpu::EvaluateConstant(*cur, ctx);
    if (v.ok() && (v->is_null || v->type == cur->type)) {
      Value value = std::move(v).value();
      value.type = cur->type;
      auto lit = MakeLiteral(std::move(value));
      lit->pos = cur->pos;
      return lit;
    }
    return cur;
  }
  return SimplifyLogic(cur);
}

PlanPtr FoldConstants(const PlanPtr& plan) {
  std::vector<PlanPtr> children;
  for (const auto& c : plan->children) children.push_back(FoldConstants(c));
  auto n = MapNodeExpressions(*plan, [](const ExprPtr& e) { return FoldExpression(e); });
  n->children = std::move(children);
  if (n->kind == PlanKind::kFilter && IsBoolLiteral(*n->predicate, true)) return n->children[0];
  if (n->kind == PlanKind::kJoin && n->condition && IsBoolLiteral(*n->condition, true)) {
    n->condition = nullptr;
  }
  return n;
}

}  // namespace tandem::plan
