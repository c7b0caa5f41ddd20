// Decorrelation (see decorrelate.h). Subquery plans are decorrelated bottom-up; then their
// correlated predicates are pulled up to the subquery's root ("PullUp"), passing projections
// (which forward the columns the predicates read) and aggregates (which group by the inner side
// of equality correlations), and finally become the keys and condition of the join that
// replaces the subquery. Correlations that are not equalities cannot pass an aggregate that
// way; there the general method applies ("DomainJoin"): the distinct values of the outer
// columns they read are joined with the subquery's input on them, the aggregate also groups by
// those values, and equalities on them are what is pulled up. This file replaces subqueries by
// joins; decorrelate_pullup.cc pulls the predicates up.
#include "tandem/plan/decorrelate.h"

#include <optional>

#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/plan/decorrelate_internal.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace decorrelation {
namespace {

// A correlated predicate moved into the join that replaces its subquery: subquery columns
// follow the `left_width` outer columns; outer references become plain references.
ExprPtr ToJoinSpace(const ExprPtr& e, int left_width) {
  return RewriteColumnRefs(e, [left_width](const Expr& ref) -> ExprPtr {
    auto c = std::make_shared<Expr>(ref);
    if (ref.outer_depth == 0) {
      c->column_index += left_width;
    } else {
      c->outer_depth -= 1;
    }
    return c;
  });
}

// Whether the plan always yields exactly one row / at most one row.
bool ExactlyOneRow(const PlanNode& n) {
  switch (n.kind) {
    case PlanKind::kAggregate:
      return n.group_keys.empty() && n.grouping_sets.empty();
    case PlanKind::kValues:
      return n.rows.size() == 1;
    case PlanKind::kProject:
    case PlanKind::kSort:
    case PlanKind::kWindow:
      return ExactlyOneRow(*n.children[0]);
    case PlanKind::kLimit:
      return n.offset == 0 && n.limit != 0 && ExactlyOneRow(*n.children[0]);
    default:
      return false;
  }
}

bool AtMostOneRow(const PlanNode& n) {
  switch (n.kind) {
    case PlanKind::kAggregate:
      return n.group_keys.empty() && n.grouping_sets.empty();
    case PlanKind::kValues:
      return n.rows.size() <= 1;
    case PlanKind::kLimit:
      return (n.limit >= 0 && n.limit <= 1) || AtMostOneRow(*n.children[0]);
    case PlanKind::kProject:
    case PlanKind::kFilter:
    case PlanKind::kSort:
    case PlanKind::kWindow:
      return AtMostOneRow(*n.children[0]);
    default:
      return false;
  }
}

AggregateCall AnyValueOf(const PlanNode& input, int column) {
  AggregateCall a;
  a.kind = AggregateKind::kAnyValue;
  a.arg = ColumnOf(input, column);
  a.type = input.schema.field(column).type;
  a.nullable = true;
  a.name = input.schema.field(column).name;
  return a;
}

AggregateCall CountStar() {
  AggregateCall a;
  a.kind = AggregateKind::kCountStar;
  a.type = DataType::Int64();
  a.nullable = false;
  a.name = "count_star()";
  return a;
}

// The values the subquery's columns take when its (scalar) aggregate sees no input row; nullopt
// when that cannot be worked out.
std::optional<std::vector<Value>> EmptyInputRow(const PlanNode& n) {
  switch (n.kind) {
    case PlanKind::kAggregate: {
      if (!n.group_keys.empty() || !n.grouping_sets.empty()) return std::nullopt;
      std::vector<Value> row;
      for (const auto& a : n.aggregates) {
        const bool count = a.kind == AggregateKind::kCount || a.kind == AggregateKind::kCountStar;
        row.push_back(count ? Value::Int64(0) : Value::Null(a.type));
      }
      return row;
    }
    case PlanKind::kProject: {
      auto child = EmptyInputRow(*n.children[0]);
      if (!child) return std::nullopt;
      std::vector<ExprPtr> literals;
      for (const auto& v : *child) literals.push_back(MakeLiteral(v));
      std::vector<Value> row;
      EvalContext ctx;
      for (const auto& e : n.exprs) {
        if (HasOuterRef(*e)) return std::nullopt;
        auto v = cpu::EvaluateConstant(*SubstituteColumns(e, literals), ctx);
        if (!v.ok()) return std::nullopt;
        row.push_back(*v);
      }
      return row;
    }
    case PlanKind::kSort:
    case PlanKind::kLimit: {
      if (n.kind == PlanKind::kLimit && (n.limit == 0 || n.offset != 0)) return std::nullopt;
      return EmptyInputRow(*n.children[0]);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<PlanPtr> Decorrelator::Rewrite(const PlanPtr& node) {
  std::vector<PlanPtr> children;
  for (const auto& c : node->children) {
    TANDEM_ASSIGN_OR_RAISE(auto rc, Rewrite(c));
    children.push_back(std::move(rc));
  }
  if (node->kind == PlanKind::kFilter && ContainsSubquery(*node->predicate)) {
    return RewriteFilter(*node, children[0]);
  }
  if (node->kind == PlanKind::kProject) {
    bool any = false;
    for (const auto& e : node->exprs) any = any || ContainsSubquery(*e);
    if (any) {
      PlanPtr input = children[0];
      std::vector<ExprPtr> exprs;
      for (const auto& e : node->exprs) {
        TANDEM_ASSIGN_OR_RAISE(auto r, ReplaceSubqueries(e, &input));
        exprs.push_back(std::move(r));
      }
      auto n = WithChildren(*node, {input});
      n->exprs = std::move(exprs);
      return n;
    }
  }
  for (const auto& e : NodeExpressions(*node)) {
    if (ContainsSubquery(*e)) {
      return NotSupported("subquery in this position", *e);
    }
  }
  return WithChildren(*node, std::move(children));
}

Result<PlanPtr> Decorrelator::RewriteFilter(const PlanNode& node, PlanPtr child) {
  const int width = Width(child);
  PlanPtr input = child;
  std::vector<ExprPtr> rest;
  for (const auto& c : SplitConjuncts(node.predicate)) {
    const Expr* e = c.get();
    bool negated = false;
    while (e->kind == ExprKind::kCall && e->name == "not" && e->args.size() == 1 &&
           e->args[0]->kind == ExprKind::kSubquery) {
      negated = !negated;
      e = e->args[0].get();
    }
    if (e->kind == ExprKind::kSubquery && e->subquery_kind != SubqueryKind::kScalar) {
      TANDEM_ASSIGN_OR_RAISE(input, SemiOrAnti(*e, negated != e->negated, input));
    } else {
      rest.push_back(c);
    }
  }
  std::vector<ExprPtr> replaced;
  for (const auto& c : rest) {
    TANDEM_ASSIGN_OR_RAISE(auto r, ReplaceSubqueries(c, &input));
    replaced.push_back(std::move(r));
  }
  PlanPtr out = replaced.empty() ? input : MakeFilter(input, CombineConjuncts(replaced));
  if (Width(out) != width) {
    std::vector<int> cols;
    for (int i = 0; i < width; ++i) cols.push_back(i);
    out = ProjectColumns(out, cols);
  }
  return out;
}

// Replaces every subquery of `e` by a column the joins it adds to *input provide: scalar
// subqueries by their value, EXISTS / IN by the mark of a mark join.
Result<ExprPtr> Decorrelator::ReplaceSubqueries(const ExprPtr& e, PlanPtr* input) {
  if (e->kind == ExprKind::kSubquery) {
    if (e->subquery_kind == SubqueryKind::kScalar) return ScalarSubquery(*e, input);
    return MarkSubquery(*e, input);
  }
  if (!ContainsSubquery(*e)) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& a : copy->args) {
    TANDEM_ASSIGN_OR_RAISE(a, ReplaceSubqueries(a, input));
  }
  return copy;
}

Result<PlanPtr> Decorrelator::GuardSingleRow(PlanPtr plan, const std::vector<ExprPtr>& keys,
                                             const Expr& sub) {
  if (!IsKnownScalarFunction(kSingleRowCheck)) {
    return NotSupported("scalar subquery that may return more than one row", sub);
  }
  // keys..., any_value(col 0), count(*); then a filter that fails on counts above one.
  std::vector<std::string> names;
  for (size_t i = 0; i < keys.size(); ++i) names.push_back("corr" + std::to_string(i));
  const int nk = static_cast<int>(keys.size());
  auto agg = MakeAggregate(plan, keys, names, {AnyValueOf(*plan, 0), CountStar()});
  auto check = MakeCall(kSingleRowCheck, {ColumnOf(*agg, nk + 1)}, DataType::Bool(), false);
  check->pos = sub.pos;
  auto filtered = MakeFilter(agg, check);
  std::vector<int> cols = {nk};
  for (int i = 0; i < nk; ++i) cols.push_back(i);
  return ProjectColumns(filtered, cols);
}

Result<ExprPtr> Decorrelator::ScalarSubquery(const Expr& sub, PlanPtr* input) {
  TANDEM_ASSIGN_OR_RAISE(PlanPtr p, Rewrite(sub.subquery));
  const int left_width = Width(*input);
  const DataType value_type = p->schema.field(0).type;
  ExprPtr value;
  if (!PlanHasOuterRef(*p)) {
    if (!ExactlyOneRow(*p)) {
      if (AtMostOneRow(*p)) {
        auto agg = MakeAggregate(p, {}, {}, {AnyValueOf(*p, 0)});
        p = agg;
      } else {
        TANDEM_ASSIGN_OR_RAISE(p, GuardSingleRow(p, {}, sub));
      }
    }
    *input = MakeJoin(*input, p, JoinType::kInner, {}, {}, nullptr);
    value = MakeColumnRef(left_width, value_type, true, p->schema.field(0).name);
  } else {
    outer_ = *input;
    TANDEM_ASSIGN_OR_RAISE(Pulled pulled, PullUp(p, Usage::kScalar, sub));
    if (!AllEqualities(pulled.preds)) {
      // Rows picked by other correlations: at most one per distinct outer value.
      TANDEM_ASSIGN_OR_RAISE(Domain d, DomainJoin(pulled, sub));
      std::vector<ExprPtr> keys;
      for (size_t j = 0; j < d.outer_cols.size(); ++j) {
        keys.push_back(ColumnOf(*d.plan, d.first + static_cast<int>(j)));
      }
      TANDEM_ASSIGN_OR_RAISE(pulled.plan, GuardSingleRow(d.plan, keys, sub));
      pulled.preds = DomainPredicates(d, *pulled.plan, 1);
      pulled.unique = true;
      pulled.has_count = false;
    } else if (!pulled.unique) {
      std::vector<ExprPtr> keys;
      std::vector<ExprPtr> preds;
      const int nk = static_cast<int>(pulled.preds.size());
      for (int i = 0; i < nk; ++i) {
        const auto& pred = pulled.preds[i];
        const int inner = EqualityInnerSide(*pred);
        keys.push_back(pred->args[inner]);
        auto key_ref = MakeColumnRef(1 + i, keys.back()->type, keys.back()->nullable);
        preds.push_back(MakeBoolCall("eq", {key_ref, pred->args[1 - inner]}));
      }
      TANDEM_ASSIGN_OR_RAISE(pulled.plan, GuardSingleRow(pulled.plan, keys, sub));
      pulled.preds = std::move(preds);
      pulled.has_count = false;
    }
    std::vector<ExprPtr> conjuncts;
    for (const auto& pred : pulled.preds) conjuncts.push_back(ToJoinSpace(pred, left_width));
    std::vector<ExprPtr> lk, rk, rest;
    SplitJoinConjuncts(conjuncts, left_width, &lk, &rk, &rest);
    if (lk.empty()) return NotSupported("correlated scalar subquery on constants", sub);
    // COUNT of an empty group is 0, not the NULL an unmatched LEFT join row carries.
    auto empty = EmptyInputRow(*p);
    if (!empty && pulled.has_count) {
      return NotSupported("correlated scalar subquery with COUNT under HAVING", sub);
    }
    const bool restore_empty = empty && !(*empty)[0].is_null;
    // A right column that is NULL exactly on unmatched rows: a key column (equalities never
    // match NULLs), else (NULL-safe keys) a TRUE column added for the purpose.
    ExprPtr matched = rk[0];
    if (restore_empty && rk[0]->kind != ExprKind::kColumnRef) {
      const int w = Width(pulled.plan);
      std::vector<ExprPtr> exprs;
      std::vector<std::string> names;
      for (int i = 0; i < w; ++i) {
        exprs.push_back(ColumnOf(*pulled.plan, i));
        names.push_back(pulled.plan->schema.field(i).name);
      }
      exprs.push_back(MakeLiteral(Value::Bool(true)));
      names.push_back("matched");
      pulled.plan = MakeProject(pulled.plan, exprs, names);
      matched = ColumnOf(*pulled.plan, w);
    }
    *input = MakeJoin(*input, pulled.plan, JoinType::kLeft, lk, rk, CombineConjuncts(rest));
    value = MakeColumnRef(left_width, value_type, true, pulled.plan->schema.field(0).name);
    if (restore_empty) {
      ExprPtr empty_value = MakeLiteral((*empty)[0]);
      if (empty_value->type != value_type) empty_value = MakeCast(empty_value, value_type);
      auto unmatched = MakeBoolCall("is_null", {ShiftColumns(matched, left_width)});
      auto c = std::make_shared<Expr>();
      c->kind = ExprKind::kCase;
      c->type = value_type;
      c->nullable = value->nullable;
      c->has_else = true;
      c->args = {unmatched, empty_value, value};
      value = c;
    }
  }
  if (value->type != sub.type) value = MakeCast(value, sub.type);
  return value;
}

Result<SubqueryJoin> Decorrelator::PrepareSubqueryJoin(const Expr& sub, const PlanPtr& input,
                                                       bool negated) {
  TANDEM_ASSIGN_OR_RAISE(PlanPtr p, Rewrite(sub.subquery));
  Usage usage = Usage::kExists;
  if (sub.subquery_kind == SubqueryKind::kIn) {
    usage = Usage::kIn;
  } else if (sub.subquery_kind == SubqueryKind::kAny && sub.name == "eq") {
    usage = Usage::kIn;
  } else if (sub.subquery_kind == SubqueryKind::kAll && sub.name == "ne") {
    usage = Usage::kIn;  // x <> ALL (s) is x NOT IN (s)
    negated = !negated;
  } else if (sub.subquery_kind != SubqueryKind::kExists) {
    return NotSupported("ANY/ALL with a comparison other than = ANY and <> ALL", sub);
  }
  if (usage == Usage::kExists) {
    // The select list of EXISTS does not matter, nor does its order.
    while (p->kind == PlanKind::kProject || p->kind == PlanKind::kSort) p = p->children[0];
  }
  SubqueryJoin sj;
  sj.negated = negated;
  sj.correlated = PlanHasOuterRef(*p);
  sj.is_in = usage == Usage::kIn;
  const int left_width = Width(input);
  Pulled pulled{p, {}};
  if (sj.correlated) {
    outer_ = input;
    TANDEM_ASSIGN_OR_RAISE(pulled, PullUp(p, usage, sub));
  }
  sj.right = pulled.plan;
  std::vector<ExprPtr> conjuncts;
  for (const auto& pred : pulled.preds) conjuncts.push_back(ToJoinSpace(pred, left_width));
  SplitJoinConjuncts(conjuncts, left_width, &sj.lk, &sj.rk, &sj.rest);
  if (sj.is_in) {
    const Field& f = sj.right->schema.field(0);
    sj.x = sub.args.at(0);
    sj.y = MakeColumnRef(0, f.type, f.nullable, f.name);
    if (sj.x->type != sj.y->type) {
      TANDEM_ASSIGN_OR_RAISE(auto common, CommonSuperType(sj.x->type, sj.y->type));
      if (sj.x->type != common) sj.x = MakeCast(sj.x, common);
      if (sj.y->type != common) sj.y = MakeCast(sj.y, common);
    }
  }
  return sj;
}

// The mark join for sj on *input; returns the expression that reads its result (the mark, or
// NOT mark).
ExprPtr Decorrelator::AddMarkJoin(const SubqueryJoin& sj, PlanPtr* input) {
  const int left_width = Width(*input);
  std::vector<ExprPtr> lk, rk;
  bool null_aware = false;
  if (sj.is_in) {
    lk.push_back(sj.x);  // key 0: the IN comparison
    rk.push_back(sj.y);
    null_aware = sj.x->nullable || sj.y->nullable;
  }
  lk.insert(lk.end(), sj.lk.begin(), sj.lk.end());
  rk.insert(rk.end(), sj.rk.begin(), sj.rk.end());
  PlanPtr right = sj.right;
  if (lk.empty() && sj.rest.empty()) right = MakeLimit(right, 1, 0);  // any row will do
  *input = MakeJoin(*input, right, JoinType::kMark, lk, rk, CombineConjuncts(sj.rest), null_aware);
  ExprPtr mark = MakeColumnRef(left_width, DataType::Bool(), null_aware, "mark");
  return sj.negated ? MakeBoolCall("not", {mark}) : mark;
}

Result<ExprPtr> Decorrelator::MarkSubquery(const Expr& sub, PlanPtr* input) {
  TANDEM_ASSIGN_OR_RAISE(SubqueryJoin sj, PrepareSubqueryJoin(sub, *input, sub.negated));
  return AddMarkJoin(sj, input);
}

Result<PlanPtr> Decorrelator::SemiOrAnti(const Expr& sub, bool negated, PlanPtr input) {
  TANDEM_ASSIGN_OR_RAISE(SubqueryJoin sj, PrepareSubqueryJoin(sub, input, negated));
  const int left_width = Width(input);
  std::vector<int> left_cols;
  for (int i = 0; i < left_width; ++i) left_cols.push_back(i);
  std::vector<ExprPtr> lk = sj.lk, rk = sj.rk, rest = sj.rest;
  bool null_aware = false;
  if (sj.is_in) {
    null_aware = sj.negated && (sj.x->nullable || sj.y->nullable);
    std::vector<ExprPtr> in_lk, in_rk, in_rest;
    SplitJoinConjuncts({MakeBoolCall("eq", {sj.x, ShiftColumns(sj.y, left_width)})}, left_width,
                       &in_lk, &in_rk, &in_rest);
    if (null_aware && (sj.correlated || in_lk.empty() || !lk.empty() || !rest.empty())) {
      // NOT IN whose NULLs the null-aware anti join cannot judge (correlated, or a constant
      // left operand): keep the rows whose mark is FALSE.
      auto test = AddMarkJoin(sj, &input);
      return ProjectColumns(MakeFilter(input, test), left_cols);
    }
    lk.insert(lk.begin(), in_lk.begin(), in_lk.end());
    rk.insert(rk.begin(), in_rk.begin(), in_rk.end());
    rest.insert(rest.begin(), in_rest.begin(), in_rest.end());
  }
  if (lk.empty() && rest.empty()) {
    // Uncorrelated EXISTS: count at most one row of the subquery and test it.
    auto one = MakeLimit(sj.right, 1, 0);
    auto count = MakeAggregate(one, {}, {}, {CountStar()});
    auto joined = MakeJoin(input, count, JoinType::kInner, {}, {}, nullptr);
    auto test = MakeBoolCall(sj.negated ? "eq" : "gt",
                             {ColumnOf(*joined, left_width), MakeLiteral(Value::Int64(0))});
    return ProjectColumns(MakeFilter(joined, test), left_cols);
  }
  return MakeJoin(input, sj.right, sj.negated ? JoinType::kAnti : JoinType::kSemi, lk, rk,
                  CombineConjuncts(rest), null_aware);
}

}  // namespace decorrelation

Result<PlanPtr> Decorrelate(const PlanPtr& plan) {
  decorrelation::Decorrelator d;
  return d.Rewrite(plan);
}

}  // namespace tandem::plan
