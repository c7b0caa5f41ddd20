// Hash aggregation with a Filter fused in: the executor runs Filter -> Aggregate as one operator
// so the rows that pass are aggregated where they lie, without a filtered copy of the input.
#pragma once

#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

// HashAggregate over the rows of `input` where `predicate` (over the input's columns) is TRUE;
// *rows_selected (if given) receives how many rows passed, for the Filter's metrics.
Result<Table> HashAggregateFiltered(const PlanNode& node, const Expr& predicate, const Table& input,
                                    ExecContext& ctx, int64_t* rows_selected);

}  // namespace tandem::cpu
