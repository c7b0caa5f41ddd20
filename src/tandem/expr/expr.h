// Bound expressions: what the binder produces from SQL expressions and what the CPU (and later
// GPU) evaluators run. Every node knows its result type and nullability. Column references are
// positions in the input schema of the plan node that owns the expression (for a join: the left
// input's columns, then the right input's).
//
// Function calls name a function of the registry (expr/function_registry.h) whose overload the
// binder already chose: argument types match the overload exactly (the binder inserts casts).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/types/value.h"

namespace tandem {

// Where an expression came from in the SQL text (1-based; 0 = unknown), for error messages.
struct SourcePos {
  int line = 0;
  int column = 0;
  std::string ToString() const {
    return line > 0 ? std::to_string(line) + ":" + std::to_string(column) : "?";
  }
};

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

enum class ExprKind {
  kColumnRef,  // column_index
  kLiteral,    // literal
  kCall,       // function(args): arithmetic, comparison, AND/OR/NOT, IS NULL, LIKE, string,
               // date and math functions ... see function_registry.h for the names
  kCast,       // args[0] cast to type; `try_cast` gives NULL instead of an error
  kCase,       // args = [when1, then1, when2, then2, ..., else?]; has_else says if last is else
  kInList,     // args[0] IN (args[1..]); negated for NOT IN; SQL NULL semantics
  // Subqueries exist only between binding and decorrelation (plan/decorrelate.h); no evaluator
  // ever sees them.
  kSubquery,
};

enum class SubqueryKind { kScalar, kExists, kIn, kAny, kAll };

struct PlanNode;
struct UdfFunction;  // udf/function.h

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  DataType type = DataType::Int64();
  bool nullable = true;
  SourcePos pos;

  int column_index = -1;  // kColumnRef
  std::string name;       // kColumnRef: display name; kCall: function name
  Value literal;          // kLiteral
  std::vector<ExprPtr> args;
  bool try_cast = false;  // kCast
  bool has_else = false;  // kCase
  bool negated = false;   // kInList, kSubquery (NOT IN, NOT EXISTS)

  // kSubquery: the subquery's plan; for kIn/kAny/kAll, args[0] is the left operand and
  // `name` the comparison ("eq", "lt", ...). Outer columns the subquery uses appear in its plan
  // as kOuterRef-style ColumnRefs with depth > 0 (see plan/logical_plan.h).
  SubqueryKind subquery_kind = SubqueryKind::kScalar;
  std::shared_ptr<PlanNode> subquery;
  int outer_depth = 0;  // kColumnRef: 0 = this query level; n = n levels out (correlation)

  // kCall of a user-defined function (udf/udf.h): the loaded function; `name` is its SQL name
  // (never a built-in's). Null for built-in calls.
  std::shared_ptr<const UdfFunction> udf;

  std::string ToString() const;  // readable form for EXPLAIN: "(l_quantity < 24)"
};

ExprPtr MakeColumnRef(int index, DataType type, bool nullable, std::string name = "");
ExprPtr MakeLiteral(Value value);
ExprPtr MakeCall(std::string function, std::vector<ExprPtr> args, DataType type, bool nullable);
ExprPtr MakeCast(ExprPtr arg, DataType type, bool try_cast = false);

// Whether the expression (without subqueries) reads no column and calls no non-deterministic
// UDF: it can be folded to a constant.
bool IsConstant(const Expr& e);
// Structural equality of bound expressions: the same computation over the same input columns
// (column positions, not display names). A subquery equals only itself.
bool SameExpr(const Expr& a, const Expr& b);
// Whether the expression calls a non-deterministic UDF anywhere: such an expression must be
// evaluated exactly where the query puts it (never folded, duplicated or moved across rows).
bool HasNonDeterministicCall(const Expr& e);
// Adds the input column indexes (outer_depth 0) the expression reads.
void CollectColumns(const Expr& e, std::vector<int>* columns);
// A copy of the expression with every column reference i (depth 0) replaced by mapping[i]
// (used when plans are rearranged); mapping[i] < 0 is a bug. Null stays null.
ExprPtr RemapColumns(const ExprPtr& e, const std::vector<int>& mapping);

}  // namespace tandem
