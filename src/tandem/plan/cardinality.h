// Cardinality estimation: row counts per plan node, from the sources' row counts (Parquet
// footers, in-memory tables) and textbook selectivities (equality 0.1, range 0.3, LIKE 0.1,
// IN lists 0.1 per value). Joins use a per-column "domain": the number of distinct values a
// column can have, assumed to be the row count of the table it comes from (a key). An equi-join
// keeps |L| * |R| / max(ndv(L key), ndv(R key)) rows with both ndvs capped by the smaller
// domain, so a join on a table's key preserves the other side's rows.
#pragma once

#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

struct ColumnEstimate {
  double domain = -1;                   // distinct values the column can take; -1 unknown
  const TableSource* origin = nullptr;  // the table the column comes from unchanged, if any
  double origin_rows = -1;              // that table's row count
};

struct RelEstimate {
  double rows = 1;
  std::vector<ColumnEstimate> columns;  // one per output column
};

// Estimate of one node from its children's estimates.
RelEstimate EstimateNode(const PlanNode& node, const std::vector<RelEstimate>& children);
// Estimate of a whole subtree.
RelEstimate EstimatePlan(const PlanNode& node);
// Output rows of a join of inputs with these estimates.
double EstimateJoinRows(const RelEstimate& left, const RelEstimate& right, JoinType type,
                        const std::vector<ExprPtr>& left_keys,
                        const std::vector<ExprPtr>& right_keys, const ExprPtr& condition);
// Fraction of rows a predicate over `input` keeps.
double EstimateSelectivity(const Expr& predicate, const RelEstimate& input);

// A copy of the plan with estimated_rows set on every node.
PlanPtr AnnotateEstimates(const PlanPtr& plan);

}  // namespace tandem::plan
