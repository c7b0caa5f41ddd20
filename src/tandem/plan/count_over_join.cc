// CountOverJoinWithoutRows (see count_over_join.h).
#include "tandem/plan/count_over_join.h"

#include "tandem/plan/cardinality.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// Whether the aggregate is count(*) calls only, with no keys, sets or filters.
bool CountsStarOnly(const PlanNode& agg) {
  if (agg.kind != PlanKind::kAggregate || !agg.group_keys.empty() || !agg.grouping_sets.empty() ||
      agg.aggregates.empty()) {
    return false;
  }
  for (const AggregateCall& a : agg.aggregates) {
    if (a.kind != AggregateKind::kCountStar || a.filter || a.distinct) return false;
  }
  return true;
}

// The join under projections that only pass columns on (they change nothing a count sees).
const PlanNode* CountedJoin(const PlanNode& agg) {
  const PlanNode* n = agg.children[0].get();
  while (n && n->kind == PlanKind::kProject) {
    for (const ExprPtr& e : n->exprs) {
      if (e->kind != ExprKind::kColumnRef || e->outer_depth != 0) return nullptr;
    }
    n = n->children[0].get();
  }
  if (!n || n->kind != PlanKind::kJoin || n->join_type != JoinType::kInner || n->null_aware ||
      n->condition || n->left_keys.empty()) {
    return nullptr;
  }
  return n;
}

// `input` grouped by `keys` with one count(*) named `name`.
PlanPtr CountByKeys(const PlanPtr& input, const std::vector<ExprPtr>& keys,
                    const std::string& name) {
  std::vector<std::string> key_names;
  for (size_t i = 0; i < keys.size(); ++i) key_names.push_back("k" + std::to_string(i));
  AggregateCall count;
  count.kind = AggregateKind::kCountStar;
  count.type = DataType::Int64();
  count.nullable = false;
  count.name = name;
  return MakeAggregate(input, keys, key_names, {count});
}

PlanPtr Rewrite(const PlanNode& agg, const PlanNode& join) {
  const size_t nkeys = join.left_keys.size();
  PlanPtr left = CountByKeys(join.children[0], join.left_keys, "cl");
  PlanPtr right = CountByKeys(join.children[1], join.right_keys, "cr");
  std::vector<ExprPtr> lk, rk;
  for (size_t i = 0; i < nkeys; ++i) {
    const Field& lf = left->schema.field(static_cast<int>(i));
    const Field& rf = right->schema.field(static_cast<int>(i));
    lk.push_back(MakeColumnRef(static_cast<int>(i), lf.type, lf.nullable, lf.name));
    rk.push_back(MakeColumnRef(static_cast<int>(i), rf.type, rf.nullable, rf.name));
  }
  PlanPtr joined = MakeJoin(left, right, JoinType::kInner, lk, rk, nullptr);
  const int cl = static_cast<int>(nkeys);
  const int cr = static_cast<int>(2 * nkeys + 1);
  ExprPtr product = MakeCall("multiply",
                             {MakeColumnRef(cl, DataType::Int64(), false, "cl"),
                              MakeColumnRef(cr, DataType::Int64(), false, "cr")},
                             DataType::Int64(), false);
  PlanPtr pairs = MakeProject(joined, {product}, {"pairs"});
  AggregateCall sum;
  sum.kind = AggregateKind::kSum;
  sum.arg = MakeColumnRef(0, DataType::Int64(), false, "pairs");
  sum.type = DataType::Int64();
  sum.nullable = true;
  sum.name = "pairs";
  PlanPtr total = MakeAggregate(pairs, {}, {}, {sum});
  ExprPtr count =
      MakeCall("coalesce",
               {MakeColumnRef(0, DataType::Int64(), true, "pairs"), MakeLiteral(Value::Int64(0))},
               DataType::Int64(), false);
  std::vector<ExprPtr> outputs;
  std::vector<std::string> names;
  for (const AggregateCall& a : agg.aggregates) {
    outputs.push_back(count);
    names.push_back(a.name);
  }
  return MakeProject(total, outputs, names);
}

// Whether counting by keys beats producing the join's rows.
bool JoinExpands(const PlanNode& join) {
  const double out = EstimatePlan(join).rows;
  const double in = EstimatePlan(*join.children[0]).rows + EstimatePlan(*join.children[1]).rows;
  return out > 2 * in;
}

}  // namespace

PlanPtr CountOverJoinWithoutRows(const PlanPtr& plan) {
  std::vector<PlanPtr> children;
  bool changed = false;
  for (const PlanPtr& c : plan->children) {
    children.push_back(CountOverJoinWithoutRows(c));
    changed |= children.back() != c;
  }
  PlanPtr node = changed ? WithChildren(*plan, std::move(children)) : plan;
  if (CountsStarOnly(*node)) {
    const PlanNode* join = CountedJoin(*node);
    if (join && JoinExpands(*join)) return Rewrite(*node, *join);
  }
  return node;
}

}  // namespace tandem::plan
