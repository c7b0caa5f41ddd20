// Common subexpressions of several expressions evaluated over the same batches, computed once
// per batch: an aggregation's arguments often repeat a computation (TPC-H Q1 sums
// l_extendedprice * (1 - l_discount) and that times (1 + l_tax)). The repeated subtrees,
// largest first, become columns appended to the batch, and the expressions read those columns.
// Only deterministic computations are shared (calls, casts, CASE, IN lists; no subqueries, no
// non-deterministic UDF), and nothing below a CASE, AND, OR or COALESCE (which evaluate their
// arguments only for some rows), so every value is one the expression computes itself.
#pragma once

#include <vector>

#include "tandem/column/batch.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"

namespace tandem::cpu {

class SharedSubexpressions {
 public:
  // `exprs` read a batch of `input_columns` columns (null entries stay null).
  SharedSubexpressions(const std::vector<const Expr*>& exprs, int input_columns);

  bool any() const { return !shared_.empty(); }
  // The expressions, reading the shared subtrees as the columns Extend appends.
  const std::vector<ExprPtr>& rewritten() const { return rewritten_; }
  // The batch with one column per shared subtree appended (the input's columns are shared).
  Result<Batch> Extend(const Batch& batch, EvalContext& eval) const;

 private:
  int input_columns_;
  std::vector<ExprPtr> shared_;  // each over the input columns only
  std::vector<ExprPtr> rewritten_;
};

}  // namespace tandem::cpu
