// Cardinality estimation: row counts per plan node, from the sources' row counts and per-column
// statistics (Parquet footers: distinct counts, min/max) and textbook selectivities where those
// say nothing (equality 0.1, range 0.3, LIKE 0.1). Every column carries an estimate of its
// distinct values (ndv): from the footers' distinct counts, at most max - min + 1 for
// integer-like columns, else (unknown) the row count, as if the column were a key. Filters
// shrink the ndv of the columns they keep fewer rows of; equality with a constant uses 1/ndv and
// ranges use the column's min/max. An equi-join keeps |L| * |R| / max(ndv(L key), ndv(R key))
// rows, where each side's ndv is capped by the other side's distinct values in its source table
// (containment: foreign-key values are among the key's values), so a join on a table's key keeps
// the other side's rows and a join on a low-cardinality column (c_nationkey = s_nationkey)
// multiplies them. Several keys combine by independence, capped by each side's rows.
#pragma once

#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

struct ColumnEstimate {
  double ndv = -1;          // distinct non-null values in this relation; -1 unknown (= its rows)
  double base_ndv = -1;     // distinct values of the column in its source table; -1 unknown
  bool has_bounds = false;  // min/max in the storage domain (days, unscaled decimals, ...)
  double min = 0;
  double max = 0;
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
// Distinct values of an expression over `input` (its rows when unknown).
double EstimateDistinct(const Expr& e, const RelEstimate& input);

// A copy of the plan with estimated_rows set on every node.
PlanPtr AnnotateEstimates(const PlanPtr& plan);

}  // namespace tandem::plan
