// Optimize(): runs the passes of plan/optimizer.h in order and checks that the root's output
// columns are unchanged.
#include "tandem/plan/optimizer.h"

#include "tandem/plan/aggregate_below_join.h"
#include "tandem/plan/cardinality.h"
#include "tandem/plan/count_over_join.h"
#include "tandem/plan/decorrelate.h"
#include "tandem/plan/fold_constants.h"
#include "tandem/plan/join_order.h"
#include "tandem/plan/limit_below_project.h"
#include "tandem/plan/prune_columns.h"
#include "tandem/plan/pushdown.h"
#include "tandem/plan/rewrite_util.h"
#include "tandem/plan/scan_predicates.h"

namespace tandem {
namespace {

// Gives the optimized root the original output schema: same names (a pass may have dropped a
// renaming projection) and nullability; the types must already agree.
Result<PlanPtr> RestoreRootSchema(PlanPtr plan, const Schema& original) {
  if (plan->schema.num_fields() != original.num_fields()) {
    return Status::Internal("optimizer changed the number of output columns");
  }
  bool same_names = true;
  for (int i = 0; i < original.num_fields(); ++i) {
    if (plan->schema.field(i).type != original.field(i).type) {
      return Status::Internal("optimizer changed the type of output column " +
                              original.field(i).name);
    }
    same_names = same_names && plan->schema.field(i).name == original.field(i).name;
  }
  if (!same_names) {
    std::vector<int> cols;
    for (int i = 0; i < original.num_fields(); ++i) cols.push_back(i);
    plan = plan::ProjectColumns(plan, cols);
  } else {
    plan = std::make_shared<PlanNode>(*plan);
  }
  plan->schema = original;
  return plan;
}

}  // namespace

Result<PlanPtr> Optimize(PlanPtr plan, const OptimizerOptions& options) {
  if (!plan) return Status::Internal("Optimize called without a plan");
  const Schema original = plan->schema;
  TANDEM_ASSIGN_OR_RAISE(plan, plan::Decorrelate(plan));
  plan = plan::FoldConstants(plan);
  plan = plan::PushDownPredicates(plan);
  if (options.reorder_joins)
    plan = plan::ReorderJoins(plan, options.join_order_by_bytes, options.join_order_enumerate);
  plan = plan::CountOverJoinWithoutRows(plan);
  plan = plan::AggregateBelowJoin(plan);
  plan = plan::PruneColumns(plan);
  plan = plan::LimitBelowProjections(plan);
  plan = plan::AddScanPredicates(plan);
  plan = plan::AnnotateEstimates(plan);
  return RestoreRootSchema(plan, original);
}

}  // namespace tandem
