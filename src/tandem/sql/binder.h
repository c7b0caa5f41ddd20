// The binder: turns a parsed SELECT (libpg_query JSON) into a logical plan, resolving names
// against the catalog and CTEs, types through the function registry, and reporting every error
// as one line with the SQL position and, where possible, a hint:
//   "column l_orderky not found (line 1:8); did you mean l_orderkey?"
// Subqueries become kSubquery expressions (correlated columns have outer_depth > 0); the
// optimizer's decorrelation pass turns them into joins.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tandem/catalog/catalog.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::sql {

struct BindOptions {
  bool ansi = false;  // ANSI mode (affects nothing at bind time yet but casts' strictness)
  // tandem.sql.maxExpressionDepth: nesting of expressions and subqueries past which binding
  // fails with an error naming the setting and the position.
  int max_depth = 1000;
};

// `stmt` is a SelectStmt node's content (the object inside {"SelectStmt": ...}); `sql` is the
// full text, for positions. Output column names follow SQL (alias, column name, or the
// expression text).
Result<PlanPtr> BindSelect(const nlohmann::json& stmt, const std::string& sql, Catalog& catalog,
                           const BindOptions& options = {});

}  // namespace tandem::sql
