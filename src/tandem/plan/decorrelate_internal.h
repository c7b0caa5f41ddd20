// Internal to decorrelation (decorrelate.cc drives it, decorrelate_pullup.cc pulls correlated
// predicates up through subquery plans): the Decorrelator and the helpers both files share.
#pragma once

#include <string>
#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan::decorrelation {

// The name of the registry function that raises "scalar subquery returned more than one row"
// when its int64 count argument is above 1 (and is TRUE otherwise).
inline constexpr const char* kSingleRowCheck = "ensure_single_row";

enum class Usage { kExists, kIn, kScalar };

// A subquery plan with its correlated predicates pulled up to the root.
struct Pulled {
  PlanPtr plan;                // original output columns, then columns the predicates read
  std::vector<ExprPtr> preds;  // over plan's output (depth 0) and the enclosing query (depth 1)
  bool unique = false;         // at most one row per value of the predicates' inner sides
  bool has_count = false;      // the aggregate that made it unique computes a count
};

// An EXISTS / IN / = ANY / <> ALL subquery prepared for the join that replaces it: the
// subquery's plan (right input), its correlation as keys over the outer input (lk) and the plan
// (rk) plus a residual condition over outer ++ plan columns, and for IN the comparison x = y
// (x over the outer input, y over the plan), both of their common type.
struct SubqueryJoin {
  PlanPtr right;
  bool negated = false;
  bool correlated = false;
  bool is_in = false;
  ExprPtr x, y;
  std::vector<ExprPtr> lk, rk, rest;
};

// The distinct values of the outer columns a subquery's pulled predicates read, joined with the
// subquery's plan on those predicates: output = the plan's columns, then one per outer column.
struct Domain {
  PlanPtr plan;
  int first = 0;                // index of the first domain column in plan's output
  std::vector<int> outer_cols;  // the outer column each domain column holds
  std::vector<bool> null_safe;  // whether a NULL outer value can still select rows
};

class Decorrelator {
 public:
  Result<PlanPtr> Rewrite(const PlanPtr& node);

 private:
  Result<PlanPtr> RewriteFilter(const PlanNode& node, PlanPtr child);
  Result<ExprPtr> ReplaceSubqueries(const ExprPtr& e, PlanPtr* input);
  Result<ExprPtr> ScalarSubquery(const Expr& sub, PlanPtr* input);
  Result<SubqueryJoin> PrepareSubqueryJoin(const Expr& sub, const PlanPtr& input, bool negated);
  Result<ExprPtr> MarkSubquery(const Expr& sub, PlanPtr* input);
  ExprPtr AddMarkJoin(const SubqueryJoin& sj, PlanPtr* input);
  Result<PlanPtr> SemiOrAnti(const Expr& sub, bool negated, PlanPtr input);
  Result<Pulled> PullUp(const PlanPtr& node, Usage usage, const Expr& sub);
  Result<Pulled> PullUpAggregate(const PlanNode& node, Pulled child, Usage usage, const Expr& sub);
  Result<Pulled> PullUpJoin(const PlanNode& node, Usage usage, const Expr& sub);
  Result<PlanPtr> GuardSingleRow(PlanPtr plan, const std::vector<ExprPtr>& keys, const Expr& sub);
  Result<Domain> DomainJoin(const Pulled& r, const Expr& sub);
  std::vector<ExprPtr> DomainPredicates(const Domain& d, const PlanNode& plan, int first) const;

  // The enclosing query's input for the subquery being pulled up (source of DomainJoin).
  PlanPtr outer_;
};

Status NotSupported(const std::string& what, const Expr& at);
int Width(const PlanPtr& p);
// Whether `e` reads only the subquery's own columns (and at least one).
bool InnerOnly(const Expr& e);
// Whether `e` reads no column of the subquery.
bool OuterOnly(const Expr& e);
// For `inner = outer` between same-typed sides: the index of the inner argument; else -1.
int EqualityInnerSide(const Expr& pred);
bool AllEqualities(const std::vector<ExprPtr>& preds);

}  // namespace tandem::plan::decorrelation
