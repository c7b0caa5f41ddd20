// Decorrelation (see decorrelate.h). Subquery plans are decorrelated bottom-up; then their
// correlated predicates are pulled up to the subquery's root ("PullUp"), passing projections
// (which forward the columns the predicates read) and aggregates (which group by the inner side
// of equality correlations), and finally become the keys and condition of the join that
// replaces the subquery. Correlations that are not equalities cannot pass an aggregate that
// way; there the general method applies ("DomainJoin"): the distinct values of the outer
// columns they read are joined with the subquery's input on them, the aggregate also groups by
// those values, and equalities on them are what is pulled up.
#include "tandem/plan/decorrelate.h"

#include <algorithm>
#include <optional>

#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/plan/pushdown.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// The name of the registry function that raises "scalar subquery returned more than one row"
// when its int64 count argument is above 1 (and is TRUE otherwise).
constexpr const char* kSingleRowCheck = "ensure_single_row";

enum class Usage { kExists, kIn, kScalar };

// A subquery plan with its correlated predicates pulled up to the root.
struct Pulled {
  PlanPtr plan;                // original output columns, then columns the predicates read
  std::vector<ExprPtr> preds;  // over plan's output (depth 0) and the enclosing query (depth 1)
  bool unique = false;         // at most one row per value of the predicates' inner sides
  bool has_count = false;      // the aggregate that made it unique computes a count
};

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

// Remaps depth-0 references through `mapping` (old index -> new index).
ExprPtr Remap(const ExprPtr& e, const std::vector<int>& mapping) {
  return RewriteColumnRefs(e, [&](const Expr& ref) -> ExprPtr {
    if (ref.outer_depth != 0) return nullptr;
    auto c = std::make_shared<Expr>(ref);
    c->column_index = mapping.at(static_cast<size_t>(ref.column_index));
    return c;
  });
}

bool HasCount(const std::vector<AggregateCall>& aggs) {
  for (const auto& a : aggs) {
    if (a.kind == AggregateKind::kCount || a.kind == AggregateKind::kCountStar) return true;
  }
  return false;
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

// An EXISTS / IN / = ANY / <> ALL subquery prepared for the join that replaces it: the
// subquery's plan (right input), its correlation as keys over the outer input (lk) and the plan
// (rk) plus a residual condition over outer ++ plan columns, and for IN the comparison x = y
// (x over the outer input, y over the plan), both of their common type.
struct SubqueryJoin {
  PlanPtr right;
  bool negated = false;
  bool correlated = false;
  bool is_in = false;
  ExprPtr x, y;
  std::vector<ExprPtr> lk, rk, rest;
};

// The distinct values of the outer columns a subquery's pulled predicates read, joined with the
// subquery's plan on those predicates: output = the plan's columns, then one per outer column.
struct Domain {
  PlanPtr plan;
  int first = 0;                // index of the first domain column in plan's output
  std::vector<int> outer_cols;  // the outer column each domain column holds
  std::vector<bool> null_safe;  // whether a NULL outer value can still select rows
};

class Decorrelator {
 public:
  Result<PlanPtr> Rewrite(const PlanPtr& node);

 private:
  Result<PlanPtr> RewriteFilter(const PlanNode& node, PlanPtr child);
  Result<ExprPtr> ReplaceSubqueries(const ExprPtr& e, PlanPtr* input);
  Result<ExprPtr> ScalarSubquery(const Expr& sub, PlanPtr* input);
  Result<SubqueryJoin> PrepareSubqueryJoin(const Expr& sub, const PlanPtr& input, bool negated);
  Result<ExprPtr> MarkSubquery(const Expr& sub, PlanPtr* input);
  ExprPtr AddMarkJoin(const SubqueryJoin& sj, PlanPtr* input);
  Result<PlanPtr> SemiOrAnti(const Expr& sub, bool negated, PlanPtr input);
  Result<Pulled> PullUp(const PlanPtr& node, Usage usage, const Expr& sub);
  Result<Pulled> PullUpAggregate(const PlanNode& node, Pulled child, Usage usage, const Expr& sub);
  Result<Pulled> PullUpJoin(const PlanNode& node, Usage usage, const Expr& sub);
  Result<PlanPtr> GuardSingleRow(PlanPtr plan, const std::vector<ExprPtr>& keys, const Expr& sub);
  Result<Domain> DomainJoin(const Pulled& r, const Expr& sub);
  std::vector<ExprPtr> DomainPredicates(const Domain& d, const PlanNode& plan, int first) const;

  // The enclosing query's input for the subquery being pulled up (source of DomainJoin).
  PlanPtr outer_;
};

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
    *input = MakeJoin(*input, pulled.plan, JoinType::kLeft, lk, rk, CombineConjuncts(rest));
    value = MakeColumnRef(left_width, value_type, true, pulled.plan->schema.field(0).name);
    // COUNT of an empty group is 0, not the NULL an unmatched LEFT join row carries.
    auto empty = EmptyInputRow(*p);
    if (!empty && pulled.has_count) {
      return NotSupported("correlated scalar subquery with COUNT under HAVING", sub);
    }
    if (empty && !(*empty)[0].is_null) {
      ExprPtr empty_value = MakeLiteral((*empty)[0]);
      if (empty_value->type != value_type) empty_value = MakeCast(empty_value, value_type);
      auto unmatched = MakeBoolCall("is_null", {ShiftColumns(rk[0], left_width)});
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
        for (auto& pred : r.preds) pred = Remap(pred, mapping);
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
  for (const auto& p : l.preds) out.preds.push_back(Remap(p, lmap));
  for (const auto& p : r.preds) out.preds.push_back(Remap(p, rmap));
  for (const auto& p : pulled_cond) out.preds.push_back(p);
  return out;
}

}  // namespace

Result<PlanPtr> Decorrelate(const PlanPtr& plan) {
  Decorrelator d;
  return d.Rewrite(plan);
}

}  // namespace tandem::plan
