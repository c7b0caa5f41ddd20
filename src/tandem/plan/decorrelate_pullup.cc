// Pulling correlated predicates up to a subquery plan's root (see decorrelate_internal.h):
// filters give theirs up, projections forward the columns the predicates read, joins pass the
// predicates of the sides whose rows they keep, and aggregates group by the inner side of
// equality correlations. Other correlations below an aggregate use the general method
// (DomainJoin): the distinct outer values they read are joined in and grouped by.
#include <algorithm>

#include "tandem/plan/decorrelate_internal.h"
#include "tandem/plan/pushdown.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan::decorrelation {
namespace {

// Sorted distinct columns of the enclosing query (outer_depth 1) that `e` reads; sets *deeper
// when it reads a query further out.
void OuterColumnsOf(const Expr& e, std::vector<int>* cols, bool* deeper) {
  if (e.kind == ExprKind::kColumnRef) {
    if (e.outer_depth == 1) cols->push_back(e.column_index);
    if (e.outer_depth > 1) *deeper = true;
  }
  for (const auto& a : e.args) OuterColumnsOf(*a, cols, deeper);
}

// A non-NULL value of the type (zero, empty string, 1970-01-01 ...).
Value ZeroValue(const DataType& t) {
  Value v = Value::Null(t);
  v.is_null = false;
  return v;
}

bool HasCount(const std::vector<AggregateCall>& aggs) {
  for (const auto& a : aggs) {
    if (a.kind == AggregateKind::kCount || a.kind == AggregateKind::kCountStar) return true;
  }
  return false;
}

}  // namespace

Status NotSupported(const std::string& what, const Expr& at) {
  return Status::Unsupported(what + PositionSuffix(at));
}

int Width(const PlanPtr& p) { return p->schema.num_fields(); }

// Whether `e` reads only the subquery's own columns (and at least one).
bool InnerOnly(const Expr& e) { return !HasOuterRef(e) && !ColumnsOf(e).empty(); }
// Whether `e` reads no column of the subquery.
bool OuterOnly(const Expr& e) { return ColumnsOf(e).empty(); }

// For `inner = outer` between same-typed sides: the index of the inner argument; else -1.
int EqualityInnerSide(const Expr& pred) {
  if (pred.kind != ExprKind::kCall || pred.name != "eq" || pred.args.size() != 2 ||
      pred.args[0]->type != pred.args[1]->type) {
    return -1;
  }
  if (InnerOnly(*pred.args[0]) && OuterOnly(*pred.args[1])) return 0;
  if (InnerOnly(*pred.args[1]) && OuterOnly(*pred.args[0])) return 1;
  return -1;
}

bool AllEqualities(const std::vector<ExprPtr>& preds) {
  for (const auto& p : preds) {
    if (EqualityInnerSide(*p) < 0) return false;
  }
  return true;
}

Result<Domain> Decorrelator::DomainJoin(const Pulled& r, const Expr& sub) {
  Domain d;
  bool deeper = false;
  for (const auto& pred : r.preds) OuterColumnsOf(*pred, &d.outer_cols, &deeper);
  std::sort(d.outer_cols.begin(), d.outer_cols.end());
  d.outer_cols.erase(std::unique(d.outer_cols.begin(), d.outer_cols.end()), d.outer_cols.end());
  if (!outer_ || deeper || d.outer_cols.empty() || PlanHasOuterRef(*outer_)) {
    return NotSupported("correlation other than equality through nested subqueries", sub);
  }
  std::vector<ExprPtr> keys;
  std::vector<std::string> names;
  for (int c : d.outer_cols) {
    keys.push_back(ColumnOf(*outer_, c));
    names.push_back(outer_->schema.field(c).name);
  }
  auto values = MakeAggregate(outer_, keys, names, {});  // the distinct outer values
  const int w = Width(r.plan);
  std::vector<int> position(static_cast<size_t>(Width(outer_)), -1);
  for (size_t j = 0; j < d.outer_cols.size(); ++j) {
    position[d.outer_cols[j]] = w + static_cast<int>(j);
  }
  std::vector<ExprPtr> conjuncts;
  for (const auto& pred : r.preds) {
    conjuncts.push_back(RewriteColumnRefs(pred, [&](const Expr& ref) -> ExprPtr {
      if (ref.outer_depth != 1) return nullptr;
      auto c = std::make_shared<Expr>(ref);
      c->outer_depth = 0;
      c->column_index = position.at(static_cast<size_t>(ref.column_index));
      return c;
    }));
  }
  for (size_t j = 0; j < d.outer_cols.size(); ++j) {
    const int col = w + static_cast<int>(j);
    bool rejects = false;
    for (const auto& c : conjuncts) rejects = rejects || RejectsNulls(*c, col, col + 1);
    d.null_safe.push_back(outer_->schema.field(d.outer_cols[j]).nullable && !rejects);
  }
  std::vector<ExprPtr> lk, rk, rest;
  SplitJoinConjuncts(conjuncts, w, &lk, &rk, &rest);
  d.plan = MakeJoin(r.plan, values, JoinType::kInner, lk, rk, CombineConjuncts(rest));
  d.first = w;
  return d;
}

// `domain column = outer column` for each domain column (at first + j of `plan`); where a NULL
// outer value can select rows, NULL-safe: is_null(a) = is_null(b) AND coalesce(a, 0) =
// coalesce(b, 0), which stays a pair of hashable equalities.
std::vector<ExprPtr> Decorrelator::DomainPredicates(const Domain& d, const PlanNode& plan,
                                                    int first) const {
  std::vector<ExprPtr> preds;
  for (size_t j = 0; j < d.outer_cols.size(); ++j) {
    ExprPtr inner = ColumnOf(plan, first + static_cast<int>(j));
    const Field& f = outer_->schema.field(d.outer_cols[j]);
    auto outer = MakeColumnRef(d.outer_cols[j], f.type, f.nullable, f.name);
    outer->outer_depth = 1;
    if (!d.null_safe[j]) {
      preds.push_back(MakeBoolCall("eq", {inner, outer}));
      continue;
    }
    auto zero = MakeLiteral(ZeroValue(f.type));
    auto fill = [&](const ExprPtr& x) { return MakeCall("coalesce", {x, zero}, f.type, false); };
    preds.push_back(
        MakeBoolCall("eq", {MakeBoolCall("is_null", {inner}), MakeBoolCall("is_null", {outer})}));
    preds.push_back(MakeBoolCall("eq", {fill(inner), fill(outer)}));
  }
  return preds;
}

Result<Pulled> Decorrelator::PullUp(const PlanPtr& node, Usage usage, const Expr& sub) {
  if (!PlanHasOuterRef(*node)) return Pulled{node, {}};
  switch (node->kind) {
    case PlanKind::kFilter: {
      TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node->children[0], usage, sub));
      std::vector<ExprPtr> keep;
      for (const auto& c : SplitConjuncts(node->predicate)) {
        (HasOuterRef(*c) ? r.preds : keep).push_back(c);
      }
      if (!keep.empty()) r.plan = MakeFilter(r.plan, CombineConjuncts(keep));
      return r;
    }
    case PlanKind::kProject: {
      for (const auto& e : node->exprs) {
        if (HasOuterRef(*e)) {
          return NotSupported("outer column in a correlated subquery's select list", sub);
        }
      }
      TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node->children[0], usage, sub));
      auto n = WithChildren(*node, {r.plan});
      if (!r.preds.empty()) {
        // Forward the columns the pulled predicates read.
        std::vector<int> mapping(static_cast<size_t>(Width(r.plan)), -1);
        for (const auto& pred : r.preds) {
          for (int c : ColumnsOf(*pred)) {
            if (mapping[c] >= 0) continue;
            mapping[c] = static_cast<int>(n->exprs.size());
            n->exprs.push_back(ColumnOf(*r.plan, c));
            n->schema.fields.push_back(r.plan->schema.field(c));
          }
        }
        for (auto& pred : r.preds) pred = RemapColumns(pred, mapping);
      }
      r.plan = n;
      return r;
    }
    case PlanKind::kAggregate: {
      for (const auto& e : NodeExpressions(*node)) {
        if (HasOuterRef(*e)) return NotSupported("outer column in a subquery's aggregate", sub);
      }
      TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node->children[0], usage, sub));
      return PullUpAggregate(*node, std::move(r), usage, sub);
    }
    case PlanKind::kJoin:
      return PullUpJoin(*node, usage, sub);
    case PlanKind::kSort: {
      TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node->children[0], usage, sub));
      for (const auto& e : NodeExpressions(*node)) {
        if (HasOuterRef(*e)) return NotSupported("outer column in a subquery's ORDER BY", sub);
      }
      if (r.preds.empty()) r.plan = WithChildren(*node, {r.plan});
      return r;  // the order of a correlated subquery's rows does not matter
    }
    case PlanKind::kLimit: {
      TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node->children[0], usage, sub));
      if (r.preds.empty()) {
        r.plan = WithChildren(*node, {r.plan});
        return r;
      }
      const bool keeps_a_row = node->offset == 0 && node->limit != 0;
      if (keeps_a_row && (usage == Usage::kExists || (r.unique && node->limit >= 1))) return r;
      return NotSupported("LIMIT in a correlated subquery", sub);
    }
    default:
      return NotSupported("correlated subquery with set operations or windows", sub);
  }
}

Result<Pulled> Decorrelator::PullUpAggregate(const PlanNode& node, Pulled r, Usage usage,
                                             const Expr& sub) {
  if (r.preds.empty()) {
    r.plan = WithChildren(node, {r.plan});
    return r;
  }
  if (!node.grouping_sets.empty()) {
    return NotSupported("correlated subquery with GROUPING SETS", sub);
  }
  if (usage != Usage::kScalar && node.group_keys.empty()) {
    return NotSupported("correlated EXISTS/IN over an aggregate without GROUP BY", sub);
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < node.group_keys.size(); ++i) names.push_back(node.schema.field(i).name);
  const int nk = static_cast<int>(node.group_keys.size());
  const int na = static_cast<int>(node.aggregates.size());
  if (!AllEqualities(r.preds)) {
    // General method: group the subquery's rows joined with the outer values they belong to.
    TANDEM_ASSIGN_OR_RAISE(Domain d, DomainJoin(r, sub));
    const int nd = static_cast<int>(d.outer_cols.size());
    std::vector<ExprPtr> keys = node.group_keys;
    for (int j = 0; j < nd; ++j) {
      keys.push_back(ColumnOf(*d.plan, d.first + j));
      names.push_back("corr" + std::to_string(j));
    }
    auto agg = MakeAggregate(d.plan, keys, names, node.aggregates);
    std::vector<int> cols;
    for (int i = 0; i < nk; ++i) cols.push_back(i);
    for (int i = 0; i < na; ++i) cols.push_back(nk + nd + i);
    for (int j = 0; j < nd; ++j) cols.push_back(nk + j);
    Pulled out;
    out.plan = ProjectColumns(agg, cols);
    out.preds = DomainPredicates(d, *out.plan, nk + na);
    out.unique = node.group_keys.empty();
    out.has_count = HasCount(node.aggregates);
    return out;
  }
  // Group by the inner side of every equality correlation as well.
  std::vector<ExprPtr> keys = node.group_keys;
  std::vector<ExprPtr> outer_sides;
  for (const auto& pred : r.preds) {
    const int inner = EqualityInnerSide(*pred);
    keys.push_back(pred->args[inner]);
    names.push_back("corr" + std::to_string(outer_sides.size()));
    outer_sides.push_back(pred->args[1 - inner]);
  }
  auto agg = MakeAggregate(r.plan, keys, names, node.aggregates);
  const int nc = static_cast<int>(outer_sides.size());
  // Restore the original column order (keys, aggregates), then the correlation keys.
  std::vector<int> cols;
  for (int i = 0; i < nk; ++i) cols.push_back(i);
  for (int i = 0; i < na; ++i) cols.push_back(nk + nc + i);
  for (int i = 0; i < nc; ++i) cols.push_back(nk + i);
  Pulled out;
  out.plan = ProjectColumns(agg, cols);
  for (int i = 0; i < nc; ++i) {
    out.preds.push_back(MakeBoolCall("eq", {ColumnOf(*out.plan, nk + na + i), outer_sides[i]}));
  }
  out.unique = node.group_keys.empty();
  out.has_count = HasCount(node.aggregates);
  return out;
}

Result<Pulled> Decorrelator::PullUpJoin(const PlanNode& node, Usage usage, const Expr& sub) {
  TANDEM_ASSIGN_OR_RAISE(Pulled l, PullUp(node.children[0], usage, sub));
  TANDEM_ASSIGN_OR_RAISE(Pulled r, PullUp(node.children[1], usage, sub));
  const JoinType jt = node.join_type;
  for (const auto& k : node.left_keys) {
    if (HasOuterRef(*k)) return NotSupported("outer column in a subquery's join key", sub);
  }
  for (const auto& k : node.right_keys) {
    if (HasOuterRef(*k)) return NotSupported("outer column in a subquery's join key", sub);
  }
  std::vector<ExprPtr> keep, pulled_cond;
  for (const auto& c : SplitConjuncts(node.condition)) {
    (HasOuterRef(*c) ? pulled_cond : keep).push_back(c);
  }
  const bool left_ok = jt == JoinType::kInner || jt == JoinType::kLeft || jt == JoinType::kSemi ||
                       jt == JoinType::kAnti || jt == JoinType::kMark;
  const bool right_ok = jt == JoinType::kInner || jt == JoinType::kRight;
  if ((!l.preds.empty() && !left_ok) || (!r.preds.empty() && !right_ok) ||
      (!pulled_cond.empty() && jt != JoinType::kInner)) {
    return NotSupported("correlation inside an outer, semi or anti join of a subquery", sub);
  }
  const int wl0 = node.children[0]->schema.num_fields();
  const int wr0 = node.children[1]->schema.num_fields();
  const int el = Width(l.plan) - wl0;
  const int er = Width(r.plan) - wr0;
  const bool semi = jt == JoinType::kSemi || jt == JoinType::kAnti;
  const bool mark = jt == JoinType::kMark;
  // The join's own condition: right columns move past the left extras.
  ExprPtr cond = CombineConjuncts(keep);
  if (cond && el > 0) {
    cond = RewriteColumnRefs(cond, [&](const Expr& ref) -> ExprPtr {
      if (ref.outer_depth != 0 || ref.column_index < wl0) return nullptr;
      auto c = std::make_shared<Expr>(ref);
      c->column_index += el;
      return c;
    });
  }
  auto join = MakeJoin(l.plan, r.plan, jt, node.left_keys, node.right_keys, cond, node.null_aware);
  const int w0 = semi ? wl0 : mark ? wl0 + 1 : wl0 + wr0;
  // New output: L0, EL, R0, ER -> L0, R0, EL, ER (a mark join's R0 is its mark).
  std::vector<int> cols;
  for (int i = 0; i < wl0; ++i) cols.push_back(i);
  if (mark) cols.push_back(wl0 + el);
  if (!semi && !mark) {
    for (int i = 0; i < wr0; ++i) cols.push_back(wl0 + el + i);
  }
  for (int i = 0; i < el; ++i) cols.push_back(wl0 + i);
  if (!semi && !mark) {
    for (int i = 0; i < er; ++i) cols.push_back(wl0 + el + wr0 + i);
  }
  Pulled out;
  out.plan = (el > 0 || er > 0) ? ProjectColumns(join, cols) : join;
  std::vector<int> lmap(static_cast<size_t>(wl0 + el)), rmap(static_cast<size_t>(wr0 + er));
  for (int i = 0; i < wl0 + el; ++i) lmap[i] = i < wl0 ? i : w0 + (i - wl0);
  for (int i = 0; i < wr0 + er; ++i) rmap[i] = i < wr0 ? wl0 + i : w0 + el + (i - wr0);
  for (const auto& p : l.preds) out.preds.push_back(RemapColumns(p, lmap));
  for (const auto& p : r.preds) out.preds.push_back(RemapColumns(p, rmap));
  for (const auto& p : pulled_cond) out.preds.push_back(p);
  return out;
}

}  // namespace tandem::plan::decorrelation
