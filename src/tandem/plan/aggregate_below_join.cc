// AggregateBelowJoin (see aggregate_below_join.h).
#include "tandem/plan/aggregate_below_join.h"

#include <optional>

#include "tandem/plan/cardinality.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// Which side of the join an aggregation reads and which it groups by: the rows of `aggregated`
// (0 left, 1 right) are aggregated below the join, the other side's are kept.
struct Sides {
  int aggregated = 1;
  int left_width = 0;
  // Whether join column c is on the aggregated side.
  bool OnAggregated(int c) const { return (c >= left_width) == (aggregated == 1); }
};

// Whether every column `e` reads is on the aggregated side.
bool ReadsAggregatedOnly(const Expr& e, const Sides& sides) {
  if (HasOuterRef(e) || ContainsSubquery(e)) return false;
  for (int c : ColumnsOf(e)) {
    if (!sides.OnAggregated(c)) return false;
  }
  return true;
}

// Whether the aggregation may be moved below the join with `sides` (before weighing the benefit).
bool Eligible(const PlanNode& agg, const PlanNode& join, const Sides& sides) {
  for (const ExprPtr& k : agg.group_keys) {
    if (k->kind != ExprKind::kColumnRef || k->outer_depth != 0 ||
        sides.OnAggregated(k->column_index)) {
      return false;
    }
  }
  for (const AggregateCall& a : agg.aggregates) {
    if (a.distinct || a.filter) return false;
    switch (a.kind) {
      case AggregateKind::kCountStar:
        break;
      case AggregateKind::kCount:
      case AggregateKind::kSum:
      case AggregateKind::kMin:
      case AggregateKind::kMax:
        if (!a.arg || !ReadsAggregatedOnly(*a.arg, sides)) return false;
        break;
      default:
        return false;
    }
  }
  for (const ExprPtr& k : sides.aggregated == 1 ? join.right_keys : join.left_keys) {
    if (HasOuterRef(*k) || ContainsSubquery(*k)) return false;
  }
  return true;
}

// The join under `agg` and the sides, when the rewrite may apply (a LEFT join keeps its left
// side; an INNER join either).
std::optional<Sides> EligibleSides(const PlanNode& agg) {
  if (agg.kind != PlanKind::kAggregate || !agg.grouping_sets.empty() || agg.aggregates.empty() ||
      agg.children.size() != 1 || !agg.children[0]) {
    return std::nullopt;
  }
  const PlanNode& join = *agg.children[0];
  const bool left_or_inner =
      join.join_type == JoinType::kLeft || join.join_type == JoinType::kInner;
  if (join.kind != PlanKind::kJoin || !left_or_inner || join.null_aware || join.condition ||
      join.left_keys.empty() || join.children.size() != 2 || !join.children[0] ||
      !join.children[1]) {
    return std::nullopt;
  }
  Sides sides;
  sides.left_width = join.children[0]->schema.num_fields();
  if (Eligible(agg, join, sides)) return sides;
  sides.aggregated = 0;
  if (join.join_type == JoinType::kInner && Eligible(agg, join, sides)) return sides;
  return std::nullopt;
}

AggregateCall Call(AggregateKind kind, ExprPtr arg, DataType type, bool nullable,
                   std::string name) {
  AggregateCall call;
  call.kind = kind;
  call.arg = std::move(arg);
  call.type = type;
  call.nullable = nullable;
  call.name = std::move(name);
  return call;
}

// The aggregated side grouped by its join keys, one partial aggregate per aggregate of `agg`
// (its arguments moved onto that side's columns).
PlanPtr PartialAggregate(const PlanNode& agg, const PlanNode& join, const Sides& sides) {
  const int shift = sides.aggregated == 1 ? -sides.left_width : 0;
  std::vector<AggregateCall> partials;
  for (const AggregateCall& a : agg.aggregates) {
    if (a.kind == AggregateKind::kCountStar) {
      partials.push_back(Call(a.kind, nullptr, DataType::Int64(), false, a.name));
      continue;
    }
    AggregateCall partial =
        Call(a.kind, ShiftColumns(a.arg, shift), a.type, a.kind != AggregateKind::kCount, a.name);
    if (a.kind == AggregateKind::kCount) partial.type = DataType::Int64();
    // A partial sum is checked against 128 bits; the merge checks the total's precision.
    if (a.kind == AggregateKind::kSum) partial.check_precision = false;
    partials.push_back(std::move(partial));
  }
  const int side = sides.aggregated;
  return MakeAggregate(join.children[side], side == 1 ? join.right_keys : join.left_keys, {},
                       std::move(partials));
}

PlanPtr Rewrite(const PlanNode& agg, const PlanNode& join, const Sides& sides,
                const PlanPtr& partial) {
  const int nkeys = static_cast<int>(join.left_keys.size());
  const int partial_width = partial->schema.num_fields();
  std::vector<ExprPtr> partial_keys;
  for (int i = 0; i < nkeys; ++i) partial_keys.push_back(ColumnOf(*partial, i));
  PlanPtr joined;
  int first_partial = 0;  // the partials' first column in the new join's output
  std::vector<ExprPtr> group_keys = agg.group_keys;
  if (sides.aggregated == 1) {
    joined =
        MakeJoin(join.children[0], partial, join.join_type, join.left_keys, partial_keys, nullptr);
    first_partial = sides.left_width + nkeys;
  } else {  // the left side aggregated: the kept right columns move down by its width
    joined =
        MakeJoin(partial, join.children[1], join.join_type, partial_keys, join.right_keys, nullptr);
    first_partial = nkeys;
    for (ExprPtr& k : group_keys) k = ShiftColumns(k, partial_width - sides.left_width);
  }
  // The merges, over the new join's columns.
  std::vector<AggregateCall> merges;
  for (size_t i = 0; i < agg.aggregates.size(); ++i) {
    const AggregateCall& a = agg.aggregates[i];
    ExprPtr p = ColumnOf(*joined, first_partial + static_cast<int>(i));
    switch (a.kind) {
      case AggregateKind::kCountStar:
        // A kept row that met nothing (LEFT join) is one row of the join.
        if (join.join_type == JoinType::kLeft) {
          p = MakeCall("coalesce", {p, MakeLiteral(Value::Int64(1))}, DataType::Int64(), false);
        }
        merges.push_back(Call(AggregateKind::kSum, p, DataType::Int64(), true, a.name));
        break;
      case AggregateKind::kCount:
        merges.push_back(Call(AggregateKind::kSum, p, DataType::Int64(), true, a.name));
        break;
      default:
        merges.push_back(Call(a.kind, p, a.type, a.nullable, a.name));
        break;
    }
  }
  std::vector<std::string> key_names;
  for (size_t k = 0; k < agg.group_keys.size(); ++k) {
    key_names.push_back(agg.schema.field(static_cast<int>(k)).name);
  }
  PlanPtr merged = MakeAggregate(joined, std::move(group_keys), key_names, std::move(merges));
  // Counts of groups that met nothing are 0; every column as the original aggregate had it.
  std::vector<ExprPtr> outputs;
  std::vector<std::string> names;
  for (int c = 0; c < agg.schema.num_fields(); ++c) {
    ExprPtr e = ColumnOf(*merged, c);
    const int a = c - static_cast<int>(agg.group_keys.size());
    if (a >= 0) {
      const AggregateKind kind = agg.aggregates[a].kind;
      if (kind == AggregateKind::kCount || kind == AggregateKind::kCountStar) {
        e = MakeCall("coalesce", {e, MakeLiteral(Value::Int64(0))}, DataType::Int64(), false);
      }
    }
    outputs.push_back(std::move(e));
    names.push_back(agg.schema.field(c).name);
  }
  PlanPtr out = MakeProject(merged, std::move(outputs), std::move(names));
  out->schema = agg.schema;
  return out;
}

// The aggregation read through a projection below it that only passes columns on (joins
// reordered keep their output's order so): the same aggregation over the projection's input.
PlanPtr ThroughColumnProjection(const PlanPtr& agg) {
  if (agg->children.size() != 1 || !agg->children[0] ||
      agg->children[0]->kind != PlanKind::kProject || !agg->children[0]->children[0]) {
    return agg;
  }
  const PlanNode& project = *agg->children[0];
  for (const ExprPtr& e : project.exprs) {
    if (e->kind != ExprKind::kColumnRef || e->outer_depth != 0) return agg;
  }
  auto through = std::make_shared<PlanNode>(*agg);
  through->children = {project.children[0]};
  for (ExprPtr& k : through->group_keys) k = SubstituteColumns(k, project.exprs);
  for (AggregateCall& a : through->aggregates) {
    if (a.arg) a.arg = SubstituteColumns(a.arg, project.exprs);
    if (a.filter) a.filter = SubstituteColumns(a.filter, project.exprs);
  }
  return through;
}

}  // namespace

PlanPtr AggregateBelowJoin(const PlanPtr& plan) {
  std::vector<PlanPtr> children;
  bool changed = false;
  for (const PlanPtr& c : plan->children) {
    children.push_back(c ? AggregateBelowJoin(c) : c);
    changed |= children.back() != c;
  }
  PlanPtr node = changed ? WithChildren(*plan, std::move(children)) : plan;
  if (node->kind != PlanKind::kAggregate) return node;
  PlanPtr agg = ThroughColumnProjection(node);
  const std::optional<Sides> sides = EligibleSides(*agg);
  if (!sides) return node;
  const PlanNode& join = *agg->children[0];
  PlanPtr partial = PartialAggregate(*agg, join, *sides);
  // Worth it when the aggregated side has several rows per key and most of them meet the kept
  // side (a join that drops most of them is cheaper than aggregating them all first).
  const double rows = EstimatePlan(*join.children[sides->aggregated]).rows;
  const double keys = EstimatePlan(*partial).rows;
  const double joined = EstimatePlan(join).rows;
  if (!(rows > 0 && keys * 4 <= rows && joined * 2 >= rows)) return node;
  return Rewrite(*agg, join, *sides, partial);
}

}  // namespace tandem::plan
