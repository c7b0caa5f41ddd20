// Finalize: maps expressions bound over a SELECT core's input scope onto the outputs of the
// Aggregate (group keys, aggregates, grouping id) and Window nodes built after binding. Columns
// that are neither grouped nor aggregated are reported here; correlated references inside
// subqueries of an aggregated query are renumbered to the group-key columns they match.
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {

Result<ExprPtr> Binder::Finalize(const ExprPtr& e, const QueryState& st, bool aggregated,
                                 int window_base) {
  const int nkeys = static_cast<int>(st.group_keys.size());
  const int naggs = static_cast<int>(st.aggregates.size());
  const bool sets = !st.grouping_sets.empty();
  if (aggregated && e->kind != ExprKind::kSubquery && !IsConstant(*e)) {
    for (int k = 0; k < nkeys; ++k) {
      if (SameExpr(*e, *st.group_keys[k])) {
        auto ref = MakeColumnRef(k, e->type, e->nullable || sets, st.group_key_names[k]);
        ref->pos = e->pos;
        return ref;
      }
    }
  }
  if (e->kind == ExprKind::kColumnRef) {
    if (e->outer_depth == kAggregateSlot) {
      const AggregateCall& a = st.aggregates[e->column_index];
      return WithPos(MakeColumnRef(nkeys + e->column_index, a.type, a.nullable, a.name), e->pos);
    }
    if (e->outer_depth == kGroupingIdSlot) {
      return WithPos(MakeColumnRef(nkeys + naggs, DataType::Int64(), false, "grouping_id"), e->pos);
    }
    if (e->outer_depth == kWindowSlot) {
      const WindowCall& w = st.windows[e->column_index];
      return WithPos(MakeColumnRef(window_base + e->column_index, w.type, w.nullable, w.name),
                     e->pos);
    }
    if (e->outer_depth == 0 && aggregated) {
      return ErrorAtPos(
          "column " + e->name + " must appear in GROUP BY or be used in an aggregate function",
          e->pos);
    }
    return e;
  }
  auto copy = std::make_shared<Expr>(*e);
  for (auto& a : copy->args) {
    TANDEM_ASSIGN_OR_RAISE(a, Finalize(a, st, aggregated, window_base));
  }
  if (copy->kind == ExprKind::kSubquery && aggregated && copy->subquery) {
    // Correlated columns must be group keys; they then read the key's output column.
    OuterRefMap map = [&](const Expr& ref) -> Result<int> {
      for (int k = 0; k < nkeys; ++k) {
        const Expr& key = *st.group_keys[k];
        if (key.kind == ExprKind::kColumnRef && key.outer_depth == 0 &&
            key.column_index == ref.column_index) {
          return k;
        }
      }
      return ErrorAtPos(
          "column " + ref.name + " must appear in GROUP BY or be used in an aggregate function",
          ref.pos);
    };
    auto plan = std::make_shared<PlanNode>(*copy->subquery);
    TANDEM_RETURN_NOT_OK(RemapOuterRefs(*plan, 1, map));
    copy->subquery = plan;
  }
  return copy;
}

}  // namespace tandem::sql::binder
