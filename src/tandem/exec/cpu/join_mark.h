// MARK joins (JoinType::kMark, see plan/logical_plan.h): every left row once, plus a boolean
// mark saying whether some right row matches. Decorrelation uses them for IN / EXISTS that are
// not plain WHERE conjuncts (select list, OR, CASE) and for correlated NOT IN over nullable
// columns. HashJoin (hash_join.cc) hands kMark nodes to MarkJoin.
#pragma once

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

Result<Table> MarkJoin(const PlanNode& node, const Table& left, const Table& right,
                       ExecContext& ctx);

}  // namespace tandem::cpu
