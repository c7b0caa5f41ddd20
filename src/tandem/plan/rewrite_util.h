// Small helpers every optimizer pass shares: splitting and joining conjunctions, finding and
// rewriting the column references of bound expressions, and copying plan nodes (the optimizer
// never changes a node in place: bound plans may share subtrees).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

// The conjuncts of an AND tree (a null predicate has none).
std::vector<ExprPtr> SplitConjuncts(const ExprPtr& predicate);
// AND of the conjuncts; null when there are none.
ExprPtr CombineConjuncts(const std::vector<ExprPtr>& conjuncts);
// `name` ("and" or "or") of the parts as a balanced tree of binary calls, leaves in order, so
// 100,000 conjuncts nest 17 levels deep, not 100,000 (both are associative in SQL's three-valued
// logic, and evaluation still goes left to right). Null when there are none.
ExprPtr CombineBalanced(const std::string& name, const std::vector<ExprPtr>& parts);
// A boolean call (eq, and, not, is_null ...).
ExprPtr MakeBoolCall(const std::string& name, std::vector<ExprPtr> args);

// Sorted distinct input columns (outer_depth 0) the expression reads.
std::vector<int> ColumnsOf(const Expr& e);
// Whether the expression reads a column of an enclosing query (outer_depth > 0).
bool HasOuterRef(const Expr& e);
bool ContainsSubquery(const Expr& e);
// Whether any expression of the subtree reads an enclosing query's column.
bool PlanHasOuterRef(const PlanNode& node);

// A copy of `e` with every column reference replaced by fn(ref) (fn returns the replacement or
// null to keep the reference). Subquery plans are not entered.
using ColumnRefRewrite = std::function<ExprPtr(const Expr& ref)>;
ExprPtr RewriteColumnRefs(const ExprPtr& e, const ColumnRefRewrite& fn);
// Depth-0 reference i becomes i + delta.
ExprPtr ShiftColumns(const ExprPtr& e, int delta);
// Depth-0 reference i is replaced by replacements[i] (substitution through a projection).
ExprPtr SubstituteColumns(const ExprPtr& e, const std::vector<ExprPtr>& replacements);

// Every expression a node owns, for read-only walks.
std::vector<ExprPtr> NodeExpressions(const PlanNode& node);
// A copy of the node with each of its expressions replaced by fn(expr).
PlanPtr MapNodeExpressions(const PlanNode& node, const std::function<ExprPtr(const ExprPtr&)>& fn);

// Shallow copy with new children (schema and fields kept).
PlanPtr WithChildren(const PlanNode& node, std::vector<PlanPtr> children);
// A projection of some of the child's columns, keeping their names.
PlanPtr ProjectColumns(const PlanPtr& child, const std::vector<int>& columns);
// A column reference to output column i of `node`.
ExprPtr ColumnOf(const PlanNode& node, int i);

// Sorts conjuncts over a join's left ++ right columns (left has `left_width` columns) into
// equi-join keys (left_keys over the left input, right_keys over the right input) and the rest.
void SplitJoinConjuncts(const std::vector<ExprPtr>& conjuncts, int left_width,
                        std::vector<ExprPtr>* left_keys, std::vector<ExprPtr>* right_keys,
                        std::vector<ExprPtr>* rest);
// The join's keys and condition as conjuncts over left ++ right columns.
std::vector<ExprPtr> JoinConjuncts(const PlanNode& join);

// " (line L:C)" when the expression has a position, else "".
std::string PositionSuffix(const Expr& e);

}  // namespace tandem::plan
