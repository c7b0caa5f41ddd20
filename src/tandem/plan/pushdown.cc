// Predicate pushdown (see pushdown.h).
#include "tandem/plan/pushdown.h"

#include <algorithm>
#include <set>
#include <string>

#include "tandem/plan/cardinality.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// Functions that return NULL when any argument is NULL.
bool IsStrictFunction(const std::string& name) {
  static const std::set<std::string> kStrict = {
      "add",    "subtract",   "multiply",   "divide",   "modulo",      "mod",       "negate",
      "eq",     "ne",         "lt",         "le",       "gt",          "ge",        "not",
      "like",   "ilike",      "substring",  "upper",    "lower",       "trim",      "ltrim",
      "rtrim",  "length",     "replace",    "strpos",   "starts_with", "ends_with", "contains",
      "lpad",   "rpad",       "split_part", "left",     "right",       "reverse",   "repeat",
      "concat", "date_trunc", "date_add",   "date_sub", "datediff",    "abs",       "sign",
      "round",  "floor",      "ceil",       "power",    "sqrt",        "ln",        "log10",
      "log2",   "exp",        "to_date"};
  return kStrict.count(name) > 0 || name.rfind("extract_", 0) == 0 ||
         name.rfind("add_interval_", 0) == 0;
}

// Whether `e` is NULL whenever every column in [begin, end) is NULL.
bool NullWhenNull(const Expr& e, int begin, int end) {
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return e.outer_depth == 0 && e.column_index >= begin && e.column_index < end;
    case ExprKind::kCast:
      return !e.try_cast && NullWhenNull(*e.args[0], begin, end);
    case ExprKind::kCall:
      if (!IsStrictFunction(e.name)) return false;
      for (const auto& a : e.args) {
        if (NullWhenNull(*a, begin, end)) return true;
      }
      return false;
    case ExprKind::kInList:
      return NullWhenNull(*e.args[0], begin, end);
    default:
      return false;
  }
}

PlanPtr WithFilter(PlanPtr plan, const std::vector<ExprPtr>& preds) {
  if (preds.empty()) return plan;
  auto f = MakeFilter(plan, CombineConjuncts(preds));
  return f;
}

enum class Side { kNone, kLeft, kRight, kBoth };

Side SideOf(const Expr& e, int left_width) {
  bool left = false, right = false;
  for (int c : ColumnsOf(e)) (c < left_width ? left : right) = true;
  if (left && right) return Side::kBoth;
  return left ? Side::kLeft : right ? Side::kRight : Side::kNone;
}

PlanPtr PushDown(const PlanPtr& node, std::vector<ExprPtr> preds);

std::vector<ExprPtr> Disjuncts(const ExprPtr& e) {
  if (e->kind == ExprKind::kCall && e->name == "or" && e->args.size() == 2) {
    auto out = Disjuncts(e->args[0]);
    auto more = Disjuncts(e->args[1]);
    out.insert(out.end(), more.begin(), more.end());
    return out;
  }
  return {e};
}

ExprPtr CombineDisjuncts(const std::vector<ExprPtr>& parts) {
  ExprPtr out;
  for (const auto& p : parts) out = out ? MakeBoolCall("or", {out, p}) : p;
  return out;
}

// (A AND x) OR (A AND y) -> A AND (x OR y): conjuncts every disjunct shares come out, so a join
// key hidden in each branch (TPC-H Q19) becomes a key.
void FactorOr(const ExprPtr& pred, std::vector<ExprPtr>* out) {
  const auto disjuncts = Disjuncts(pred);
  if (disjuncts.size() < 2) {
    out->push_back(pred);
    return;
  }
  std::vector<std::vector<ExprPtr>> branches;
  for (const auto& d : disjuncts) branches.push_back(SplitConjuncts(d));
  std::vector<ExprPtr> common;
  for (const auto& c : branches[0]) {
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; ++b) {
      bool found = false;
      for (const auto& x : branches[b]) found = found || SameExpr(*x, *c);
      everywhere = found;
    }
    bool seen = false;
    for (const auto& x : common) seen = seen || SameExpr(*x, *c);
    if (everywhere && !seen) common.push_back(c);
  }
  if (common.empty()) {
    out->push_back(pred);
    return;
  }
  std::vector<ExprPtr> rests;
  bool some_branch_empty = false;
  for (const auto& branch : branches) {
    std::vector<ExprPtr> rest;
    for (const auto& x : branch) {
      bool is_common = false;
      for (const auto& c : common) is_common = is_common || SameExpr(*x, *c);
      if (!is_common) rest.push_back(x);
    }
    if (rest.empty()) some_branch_empty = true;  // that branch is just A: the OR is A
    rests.push_back(CombineConjuncts(rest));
  }
  for (const auto& c : common) out->push_back(c);
  if (!some_branch_empty) out->push_back(CombineDisjuncts(rests));
}

// For an OR over two join inputs: the OR of each branch's conjuncts on one input alone, implied
// by the predicate and cheap to apply to that input first. Null when some branch has none.
ExprPtr ImpliedSidePredicate(const ExprPtr& pred, int begin, int end) {
  const auto disjuncts = Disjuncts(pred);
  if (disjuncts.size() < 2) return nullptr;
  std::vector<ExprPtr> parts;
  for (const auto& d : disjuncts) {
    std::vector<ExprPtr> mine;
    for (const auto& c : SplitConjuncts(d)) {
      const auto cols = ColumnsOf(*c);
      if (!cols.empty() && cols.front() >= begin && cols.back() < end) mine.push_back(c);
    }
    if (mine.empty()) return nullptr;
    parts.push_back(CombineConjuncts(mine));
  }
  return CombineDisjuncts(parts);
}

// Moves a semi join below an inner join when its keys and condition read one side of it only,
// so IN/EXISTS filters shrink that input before the inner join (TPC-H Q18).
PlanPtr SinkSemiJoin(const PlanPtr& semi) {
  const PlanPtr& inner = semi->children[0];
  if (semi->join_type != JoinType::kSemi || inner->kind != PlanKind::kJoin ||
      inner->join_type != JoinType::kInner) {
    return semi;
  }
  const int nl = inner->schema.num_fields();
  const int na = inner->children[0]->schema.num_fields();
  std::vector<int> used;
  for (const auto& k : semi->left_keys) {
    for (int c : ColumnsOf(*k)) used.push_back(c);
  }
  if (semi->condition) {
    for (int c : ColumnsOf(*semi->condition)) {
      if (c < nl) used.push_back(c);
    }
  }
  if (used.empty()) return semi;
  bool all_a = true, all_b = true;
  for (int c : used) (c < na ? all_b : all_a) = false;
  if (!all_a && !all_b) return semi;
  const int side = all_a ? 0 : 1;
  // Only when the semi join's input is not much larger than the side it would filter: probing
  // a whole big table where a few joined rows would do (TPC-H Q21) is no gain.
  if (EstimatePlan(*semi->children[1]).rows > 2 * EstimatePlan(*inner->children[side]).rows) {
    return semi;
  }
  const int begin = all_a ? 0 : na;
  const int side_width = inner->children[side]->schema.num_fields();
  auto move = [&](const ExprPtr& e) -> ExprPtr {
    if (!e) return e;
    return RewriteColumnRefs(e, [&](const Expr& ref) -> ExprPtr {
      if (ref.outer_depth != 0) return nullptr;
      auto c = std::make_shared<Expr>(ref);
      c->column_index =
          ref.column_index < nl ? ref.column_index - begin : ref.column_index - nl + side_width;
      return c;
    });
  };
  std::vector<ExprPtr> lk;
  for (const auto& k : semi->left_keys) lk.push_back(move(k));
  auto sunk = MakeJoin(inner->children[side], semi->children[1], JoinType::kSemi, lk,
                       semi->right_keys, move(semi->condition), semi->null_aware);
  std::vector<PlanPtr> children = inner->children;
  children[side] = SinkSemiJoin(sunk);
  return WithChildren(*inner, std::move(children));
}

// Mark joins keep every left row and compute their mark from the keys and condition as they
// stand (key 0 of a null-aware one is the IN comparison), so only filters that read left columns
// alone go down to the left input, and condition conjuncts that read right columns alone (which
// only select right rows) go down to the right input.
PlanPtr PushMarkJoin(const PlanNode& node, const std::vector<ExprPtr>& preds) {
  const int nl = node.children[0]->schema.num_fields();
  std::vector<ExprPtr> above, to_left, to_right, cond;
  for (const auto& p : preds) {
    const auto cols = ColumnsOf(*p);
    (cols.empty() || cols.back() < nl ? to_left : above).push_back(p);
  }
  for (const auto& c : SplitConjuncts(node.condition)) {
    if (SideOf(*c, nl) == Side::kRight) {
      to_right.push_back(ShiftColumns(c, -nl));
    } else {
      cond.push_back(c);
    }
  }
  auto l = PushDown(node.children[0], to_left);
  auto r = PushDown(node.children[1], to_right);
  auto join = MakeJoin(l, r, JoinType::kMark, node.left_keys, node.right_keys,
                       CombineConjuncts(cond), node.null_aware);
  join->estimated_rows = node.estimated_rows;
  return WithFilter(join, above);
}

PlanPtr PushJoin(const PlanNode& node, std::vector<ExprPtr> preds) {
  if (node.join_type == JoinType::kMark) return PushMarkJoin(node, preds);
  const int nl = node.children[0]->schema.num_fields();
  const int nr = node.children[1]->schema.num_fields();
  JoinType jt = node.join_type;
  // WHERE conjuncts that reject a null-supplied side make the join stricter.
  bool reject_left = false, reject_right = false;
  if (jt == JoinType::kLeft || jt == JoinType::kRight || jt == JoinType::kFull) {
    for (const auto& p : preds) {
      reject_left = reject_left || RejectsNulls(*p, 0, nl);
      reject_right = reject_right || RejectsNulls(*p, nl, nl + nr);
    }
  }
  if (jt == JoinType::kLeft && reject_right) jt = JoinType::kInner;
  if (jt == JoinType::kRight && reject_left) jt = JoinType::kInner;
  if (jt == JoinType::kFull) {
    if (reject_left && reject_right) {
      jt = JoinType::kInner;
    } else if (reject_left) {
      jt = JoinType::kLeft;
    } else if (reject_right) {
      jt = JoinType::kRight;
    }
  }
  std::vector<ExprPtr> above, to_left, to_right, on;
  const std::vector<ExprPtr> conjuncts = JoinConjuncts(node);
  if (jt == JoinType::kAnti && node.null_aware) {
    auto l = PushDown(node.children[0], preds);
    auto r = PushDown(node.children[1], {});
    return WithChildren(node, {l, r});
  }
  auto route = [&](const ExprPtr& c, bool from_above) {
    const Side s = SideOf(*c, nl);
    const bool left_ok = jt == JoinType::kInner || jt == JoinType::kSemi ||
                         (from_above && (jt == JoinType::kLeft || jt == JoinType::kAnti));
    const bool right_ok =
        jt == JoinType::kInner || (from_above && jt == JoinType::kRight) ||
        (!from_above && (jt == JoinType::kLeft || jt == JoinType::kSemi || jt == JoinType::kAnti));
    if ((s == Side::kLeft || (s == Side::kNone && from_above)) && left_ok) {
      to_left.push_back(c);
    } else if (s == Side::kRight && right_ok) {
      to_right.push_back(ShiftColumns(c, -nl));
    } else if (from_above && jt != JoinType::kInner) {
      above.push_back(c);
    } else {
      on.push_back(c);
    }
  };
  std::vector<ExprPtr> factored_preds, factored_conjuncts;
  for (const auto& p : preds) FactorOr(p, &factored_preds);
  for (const auto& c : conjuncts) FactorOr(c, &factored_conjuncts);
  for (const auto& p : factored_preds) route(p, true);
  for (const auto& c : factored_conjuncts) route(c, false);
  if (jt == JoinType::kInner) {
    for (const auto& c : on) {
      if (SideOf(*c, nl) != Side::kBoth) continue;
      if (auto l = ImpliedSidePredicate(c, 0, nl)) to_left.push_back(l);
      if (auto r = ImpliedSidePredicate(c, nl, nl + nr)) to_right.push_back(ShiftColumns(r, -nl));
    }
  }
  std::vector<ExprPtr> lk, rk, rest;
  SplitJoinConjuncts(on, nl, &lk, &rk, &rest);
  auto l = PushDown(node.children[0], to_left);
  auto r = PushDown(node.children[1], to_right);
  auto join = MakeJoin(l, r, jt, lk, rk, CombineConjuncts(rest), node.null_aware);
  return WithFilter(SinkSemiJoin(join), above);
}

PlanPtr PushDown(const PlanPtr& node, std::vector<ExprPtr> preds) {
  switch (node->kind) {
    case PlanKind::kFilter: {
      for (const auto& c : SplitConjuncts(node->predicate)) preds.push_back(c);
      return PushDown(node->children[0], std::move(preds));
    }
    case PlanKind::kProject: {
      // Nothing passes a projection that calls a non-deterministic function: below it, a filter
      // would change the rows that function runs on, or evaluate the call a second time.
      if (std::any_of(node->exprs.begin(), node->exprs.end(),
                      [](const ExprPtr& e) { return HasNonDeterministicCall(*e); })) {
        return WithFilter(WithChildren(*node, {PushDown(node->children[0], {})}), preds);
      }
      std::vector<ExprPtr> below;
      for (const auto& p : preds) below.push_back(SubstituteColumns(p, node->exprs));
      return WithChildren(*node, {PushDown(node->children[0], std::move(below))});
    }
    case PlanKind::kAggregate: {
      std::vector<ExprPtr> above, below;
      const int nk = static_cast<int>(node->group_keys.size());
      for (const auto& p : preds) {
        const auto cols = ColumnsOf(*p);
        const bool keys_only = node->grouping_sets.empty() && !cols.empty() && cols.back() < nk &&
                               !HasNonDeterministicCall(*SubstituteColumns(p, node->group_keys));
        if (keys_only) {
          below.push_back(SubstituteColumns(p, node->group_keys));
        } else {
          above.push_back(p);
        }
      }
      return WithFilter(WithChildren(*node, {PushDown(node->children[0], std::move(below))}),
                        above);
    }
    case PlanKind::kJoin:
      return PushJoin(*node, std::move(preds));
    case PlanKind::kSort:
      return WithChildren(*node, {PushDown(node->children[0], std::move(preds))});
    case PlanKind::kSetOp: {
      std::vector<PlanPtr> inputs;
      for (const auto& c : node->children) inputs.push_back(PushDown(c, preds));
      return WithChildren(*node, std::move(inputs));
    }
    default: {
      std::vector<PlanPtr> children;
      for (const auto& c : node->children) children.push_back(PushDown(c, {}));
      return WithFilter(WithChildren(*node, std::move(children)), preds);
    }
  }
}

}  // namespace

bool RejectsNulls(const Expr& p, int begin, int end) {
  if (p.kind == ExprKind::kCall) {
    if (p.name == "and") {
      for (const auto& a : p.args) {
        if (RejectsNulls(*a, begin, end)) return true;
      }
      return false;
    }
    if (p.name == "or") {
      for (const auto& a : p.args) {
        if (!RejectsNulls(*a, begin, end)) return false;
      }
      return !p.args.empty();
    }
    if (p.name == "is_not_null" && p.args.size() == 1) return NullWhenNull(*p.args[0], begin, end);
  }
  return NullWhenNull(p, begin, end);
}

PlanPtr PushDownPredicates(const PlanPtr& plan) { return PushDown(plan, {}); }

namespace {

// A subtree and one of its output columns.
struct ColumnSource {
  PlanPtr node;
  int column = -1;
};

int PlainColumn(const ExprPtr& e) {
  return e && e->kind == ExprKind::kColumnRef && e->outer_depth == 0 ? e->column_index : -1;
}

// Subtrees whose `column` holds every value output column `column` of `node` holds: the node
// itself and, through projections, filters, sorts, group keys and the preserved sides of joins
// (crossing equi-join keys to the other input), subtrees below it.
void ValueSupersets(const PlanPtr& node, int column, std::vector<ColumnSource>* out) {
  if (column < 0 || column >= node->schema.num_fields()) return;
  out->push_back({node, column});
  switch (node->kind) {
    case PlanKind::kProject:
      ValueSupersets(node->children[0], PlainColumn(node->exprs[column]), out);
      return;
    case PlanKind::kFilter:
    case PlanKind::kSort:
      ValueSupersets(node->children[0], column, out);
      return;
    case PlanKind::kAggregate:
      if (node->grouping_sets.empty() && column < static_cast<int>(node->group_keys.size())) {
        ValueSupersets(node->children[0], PlainColumn(node->group_keys[column]), out);
      }
      return;
    case PlanKind::kJoin: {
      const JoinType t = node->join_type;
      const int nl = node->children[0]->schema.num_fields();
      if (column >= nl) {
        if (t == JoinType::kInner) ValueSupersets(node->children[1], column - nl, out);
        return;
      }
      if (t == JoinType::kRight || t == JoinType::kFull) return;
      ValueSupersets(node->children[0], column, out);
      if (t != JoinType::kInner && t != JoinType::kSemi) return;
      for (size_t i = 0; i < node->left_keys.size() && i < node->right_keys.size(); ++i) {
        if (PlainColumn(node->left_keys[i]) == column) {
          ValueSupersets(node->children[1], PlainColumn(node->right_keys[i]), out);
        }
      }
      return;
    }
    default:
      return;
  }
}

// The aggregate below `node` whose group key `column` comes out unchanged through projections
// and filters; on success `path` holds the nodes from `node` down to the aggregate.
bool GroupKeyBelow(const PlanPtr& node, int column, std::vector<PlanPtr>* path, int* key) {
  if (column < 0 || column >= node->schema.num_fields()) return false;
  path->push_back(node);
  switch (node->kind) {
    case PlanKind::kProject:
      return GroupKeyBelow(node->children[0], PlainColumn(node->exprs[column]), path, key);
    case PlanKind::kFilter:
      return GroupKeyBelow(node->children[0], column, path, key);
    case PlanKind::kAggregate:
      if (!node->grouping_sets.empty() || column >= static_cast<int>(node->group_keys.size()) ||
          PlainColumn(node->group_keys[column]) < 0) {
        return false;
      }
      *key = PlainColumn(node->group_keys[column]);
      return true;
    default:
      return false;
  }
}

// The aggregate side of a join, filtered on one key when that pays; null when nothing changes.
PlanPtr ReduceSide(const PlanNode& join, int side) {
  const auto& keys = side == 0 ? join.left_keys : join.right_keys;
  const auto& other_keys = side == 0 ? join.right_keys : join.left_keys;
  const PlanPtr& other = join.children[1 - side];
  double best_fraction = 0.5;
  std::vector<PlanPtr> best_path;
  int best_key = -1;
  ColumnSource best_source;
  for (size_t i = 0; i < keys.size() && i < other_keys.size(); ++i) {
    std::vector<PlanPtr> path;
    int key = -1;
    if (!GroupKeyBelow(join.children[side], PlainColumn(keys[i]), &path, &key)) continue;
    const PlanPtr& input = path.back()->children[0];
    const RelEstimate in = EstimatePlan(*input);
    const DataType& type = input->schema.field(key).type;
    auto key_ref = MakeColumnRef(key, type, true);
    std::vector<ColumnSource> sources;
    ValueSupersets(other, PlainColumn(other_keys[i]), &sources);
    for (const auto& s : sources) {
      if (!(s.node->schema.field(s.column).type == type)) continue;
      const RelEstimate est = EstimatePlan(*s.node);
      if (est.rows > 0.1 * in.rows) continue;  // filtering costs about what it saves
      auto ref = MakeColumnRef(s.column, type, true);
      const double fraction =
          EstimateJoinRows(in, est, JoinType::kSemi, {key_ref}, {ref}, nullptr) /
          std::max(in.rows, 1.0);
      if (fraction < best_fraction || (fraction == best_fraction && best_key >= 0 &&
                                       est.rows < EstimatePlan(*best_source.node).rows)) {
        best_fraction = fraction;
        best_path = path;
        best_key = key;
        best_source = s;
      }
    }
  }
  if (best_key < 0) return nullptr;
  const PlanPtr& agg = best_path.back();
  const PlanPtr& input = agg->children[0];
  const DataType& type = input->schema.field(best_key).type;
  PlanPtr filter_side = ProjectColumns(best_source.node, {best_source.column});
  PlanPtr reduced =
      MakeJoin(input, filter_side, JoinType::kSemi,
               {MakeColumnRef(best_key, type, true, input->schema.field(best_key).name)},
               {MakeColumnRef(0, type, true, filter_side->schema.field(0).name)}, nullptr);
  reduced = SinkSemiJoin(reduced);
  for (size_t i = best_path.size(); i-- > 0;) reduced = WithChildren(*best_path[i], {reduced});
  return reduced;
}

PlanPtr Reduce(const PlanPtr& node) {
  std::vector<PlanPtr> children;
  for (const auto& c : node->children) children.push_back(Reduce(c));
  PlanPtr out = WithChildren(*node, std::move(children));
  if (out->kind != PlanKind::kJoin || out->null_aware) return out;
  for (int side = 0; side < 2; ++side) {
    const bool filtered_side =
        out->join_type == JoinType::kInner || (out->join_type == JoinType::kSemi && side == 1);
    if (!filtered_side) continue;
    if (PlanPtr reduced = ReduceSide(*out, side)) {
      std::vector<PlanPtr> kids = out->children;
      kids[side] = reduced;
      out = WithChildren(*out, std::move(kids));
    }
  }
  return out;
}

}  // namespace

PlanPtr ReduceAggregateInputs(const PlanPtr& plan) { return Reduce(plan); }

}  // namespace tandem::plan
