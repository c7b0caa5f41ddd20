// The binder's internals, shared by its source files (binder_*.cc), one area each: scopes and
// name resolution, literals and types, expressions, function calls, FROM and joins, SELECT
// cores with grouping, windows, subqueries, set operations, CTEs and VALUES, errors and hints.
//
// Binding one SELECT core works in two steps. Expressions are first bound over the FROM
// clause's output (the "input scope"); aggregate calls, window calls and GROUPING() met on the
// way are collected into the query's QueryState and replaced by placeholder column references
// (outer_depth < 0, see Slot). Once the Aggregate and Window nodes are known, Finalize() maps
// every expression onto the columns those nodes output: grouped expressions become key
// references, placeholders become aggregate/window columns, and any other input column is the
// "must appear in GROUP BY" error.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tandem/catalog/catalog.h"
#include "tandem/expr/aggregate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/plan/logical_plan.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"

namespace tandem::sql::binder {

using Json = nlohmann::json;

// Placeholder column references (Expr::outer_depth) that exist only inside the binder.
enum Slot : int {
  kAggregateSlot = -1,   // column_index = index into QueryState::aggregates
  kWindowSlot = -2,      // column_index = index into QueryState::windows
  kGroupingIdSlot = -3,  // the Aggregate's grouping-id column
};

// One column a name can resolve to.
struct ScopeColumn {
  std::string qualifier;  // table or alias name, lower case; empty when unnamed
  std::string name;       // as the source spells it
  DataType type;
  bool nullable = true;
  int index = 0;        // position in the input schema
  bool hidden = false;  // reachable only qualified (the right copy of a USING column)
};

// The columns visible at one query level; `parent` is the enclosing query's scope
// (correlated subqueries).
struct Scope {
  std::vector<ScopeColumn> columns;
  std::vector<int> star;  // entries of `columns` that SELECT * lists, in order
  const Scope* parent = nullptr;
};

// A WITH entry, bound once where it is defined (in the environment of the CTEs before it) and
// shared by every reference: a chain of 5,000 CTEs each reading the one before binds in 5,000
// steps, not 5,000 levels of recursion. The CTEs in scope form a persistent list, newest first,
// so defining one copies nothing.
struct CteNode;
using CteList = std::shared_ptr<const CteNode>;  // null: no CTEs
struct CteDef {
  std::string name;  // lower case
  std::vector<std::string> column_names;
  PlanPtr plan;  // bound query (no outer references: a CTE cannot see the enclosing query)
};
struct CteNode {
  CteDef def;
  CteList previous;
};
// The CTE `name` (lower case) visible in `list`, or null.
const CteDef* FindCte(const CteList& list, const std::string& name);

// What one SELECT core collects while its expressions are bound.
struct QueryState {
  std::vector<AggregateCall> aggregates;
  std::vector<WindowCall> windows;
  std::vector<ExprPtr> group_keys;
  std::vector<std::string> group_key_names;
  std::vector<std::vector<int>> grouping_sets;
  bool grouped = false;                 // GROUP BY present
  const Json* window_clause = nullptr;  // WINDOW w AS (...)
};

// Where an expression is being bound: what it may contain and what it can see.
struct ExprContext {
  const Scope* scope = nullptr;
  const char* clause = "expression";  // for messages: "WHERE", "GROUP BY", "JOIN condition"
  QueryState* state = nullptr;        // non-null where aggregates/windows are collected
  bool allow_aggregates = false;
  bool allow_windows = false;
  bool allow_subqueries = false;
  bool in_aggregate = false;  // inside an aggregate's arguments (no nesting)
};

// A bound FROM item: its plan and the names it exposes.
struct BoundRelation {
  PlanPtr plan;
  Scope scope;
};

// A bound query block: plan plus output column names (= plan->schema names).
class Binder {
 public:
  // `index` locates positions in `sql`; binders of the same text share one (source_index()).
  Binder(const std::string& sql, Catalog& catalog, const BindOptions& options, int view_depth = 0,
         std::shared_ptr<const SourceIndex> index = nullptr)
      : sql_(sql),
        catalog_(catalog),
        options_(options),
        view_depth_(view_depth),
        index_(index ? std::move(index) : std::make_shared<const SourceIndex>(sql)) {}

  // A whole query: WITH, set operations, VALUES or a SELECT core, ORDER BY, LIMIT.
  Result<PlanPtr> BindQuery(const Json& stmt, const Scope* outer, CteList ctes);

  // ---- errors (binder_errors.cc) ----
  std::string At(int location) const;  // " (line L:C)" or "" when unknown
  SourcePos Pos(int location) const;
  Status Error(const std::string& msg, int location) const;
  Status Unsupported(const std::string& feature, int location) const;
  Status ErrorAtPos(const std::string& msg, const SourcePos& pos) const;

  // ---- expressions (binder_expr.cc) ----
  Result<ExprPtr> BindExpr(const Json& node, ExprContext& ctx);
  Result<ExprPtr> BindBoolean(const Json& node, ExprContext& ctx, const char* what);
  // Calls a registry function, casting arguments to the chosen overload's types.
  Result<ExprPtr> Call(const std::string& name, std::vector<ExprPtr> args, int location);
  // Brings the expressions to one type (CommonSuperType), casting where needed.
  Status Unify(std::vector<ExprPtr>* exprs, int location, const char* what);

  // ---- literals and types (binder_literals.cc) ----
  Result<ExprPtr> BindConst(const Json& a_const);
  Result<ExprPtr> BindTypeCast(const Json& cast, ExprContext& ctx);
  Result<DataType> BindTypeName(const Json& type_name);

  // ---- functions (binder_functions.cc) ----
  Result<ExprPtr> BindFuncCall(const Json& call, ExprContext& ctx);
  Result<ExprPtr> BindAggregate(const Json& call, AggregateKind kind, const std::string& name,
                                ExprContext& ctx);

  // ---- windows (binder_window.cc) ----
  Result<ExprPtr> BindWindowCall(const Json& call, const std::string& name, ExprContext& ctx);

  // ---- subqueries (binder_subquery.cc) ----
  Result<ExprPtr> BindSubLink(const Json& link, ExprContext& ctx, bool negated);
  Result<PlanPtr> BindSubqueryPlan(const Json& select, const Scope* outer);

  // ---- FROM (binder_from.cc) ----
  Result<BoundRelation> BindFrom(const Json& from_clause, const Scope* outer);

  // ---- SELECT core (binder_select.cc) ----
  Result<PlanPtr> BindSelectCore(const Json& stmt, const Scope* outer);
  // LIMIT / OFFSET (integer constants).
  Result<PlanPtr> ApplyLimit(const Json& stmt, PlanPtr plan);
  // ORDER BY and LIMIT over a query's output columns (set operations, VALUES).
  Result<PlanPtr> ApplyOutputOrder(const Json& stmt, PlanPtr plan);

  // ---- set operations, VALUES, CTEs (binder_setop.cc) ----
  Result<PlanPtr> BindSetOperation(const Json& stmt, const Scope* outer);
  Result<PlanPtr> BindValues(const Json& stmt);

  // ---- finishing (binder_finalize.cc) ----
  // Maps an expression bound over the input scope onto the Aggregate's / Window's outputs.
  Result<ExprPtr> Finalize(const ExprPtr& e, const QueryState& st, bool aggregated,
                           int window_base);

  const std::string& sql() const { return sql_; }
  Catalog& catalog() { return catalog_; }
  const CteList& ctes() const { return ctes_; }
  const BindOptions& options() const { return options_; }
  int view_depth() const { return view_depth_; }
  const std::shared_ptr<const SourceIndex>& source_index() const { return index_; }

  // One more level of nesting (an expression or a query inside another) for the guard's life.
  // The count is per thread, so it spans the binders made for subqueries, set operations and
  // views. CheckDepth() fails past BindOptions::max_depth, or when the stack runs short.
  class DepthGuard {
   public:
    DepthGuard() { ++depth_; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    static int depth() { return depth_; }

   private:
    static thread_local int depth_;
  };
  Status CheckDepth(const Json& node) const;  // errors point at the node

 private:
  const std::string& sql_;
  Catalog& catalog_;
  BindOptions options_;
  int view_depth_;
  std::shared_ptr<const SourceIndex> index_;
  CteList ctes_;
};

// ---- helpers shared across files ----

// The first object key of a node ({"ColumnRef": {...}} -> "ColumnRef") and its content.
const std::string& NodeTag(const Json& node);
const Json& NodeBody(const Json& node);
int LocationOf(const Json& node);  // the node's "location", or -1
// The first "location" >= 0 anywhere in the subtree (for nodes that carry none), or -1.
int FirstLocation(const Json& node);
std::string Lower(std::string s);
// Safe field access: a null Json / "" / default when the key is absent or node not an object.
const Json& Child(const Json& node, const char* key);
std::string Str(const Json& node, const char* key);
int64_t Int(const Json& node, const char* key, int64_t def);
bool Flag(const Json& node, const char* key);
// String field of a {"String": {"sval": ...}} list element.
std::string StringValue(const Json& node);

// The longest identifier PostgreSQL's scanner keeps (NAMEDATALEN - 1); longer ones are cut.
constexpr size_t kPgMaxIdentifier = 63;
// The dotted identifiers written at byte `location` of `sql` (`a`, `t."Long Name"`), whole and
// unquoted as the scanner would keep them (bare ones lower-cased); empty when none is there.
std::vector<std::string> IdentifiersAt(const std::string& sql, int location);

// Readable text of an expression as the user wrote it, for output column names.
std::string ExprText(const Json& node);

// Closest candidate by edit distance, or "" when none is close enough.
std::string ClosestName(const std::string& name, const std::vector<std::string>& candidates);

// Resolves a column name (qualifier may be empty). Errors: not found (with hint), ambiguous.
// depth receives 0 for the scope itself, 1 for the parent.
Result<ExprPtr> ResolveColumn(const Binder& b, const Scope& scope, const std::string& qualifier,
                              const std::string& name, int location);

// A catalog view: its SQL parsed and bound as a subquery (errors name the view).
Result<PlanPtr> BindView(Binder& b, const std::string& name, const std::string& sql, int loc);

// ASC/DESC and NULLS FIRST/LAST of a SortBy node (SQL defaults: NULLS LAST for ASC).
Status BindSortDirection(const Binder& b, const Json& sort_by, SortKey* key);

ExprPtr CastTo(const ExprPtr& e, const DataType& type);
bool IsUntypedNull(const Expr& e);
ExprPtr MakeUntypedNull();
ExprPtr WithPos(ExprPtr e, const SourcePos& pos);

// Renumbers the correlated references of a subquery plan that point `level` levels out
// (1 for the plan of a kSubquery held at the level being remapped): column_index becomes
// map(ref). Nested subquery plans are visited with level + 1.
using OuterRefMap = std::function<Result<int>(const Expr& ref)>;
Status RemapOuterRefs(PlanNode& plan, int level, const OuterRefMap& map);
Result<ExprPtr> RemapOuterRefsInExpr(const ExprPtr& e, int level, const OuterRefMap& map);

}  // namespace tandem::sql::binder
