// The fusion rules shared by placement and execution (see fusion.h).
#include "tandem/plan/fusion.h"

#include "tandem/catalog/table_source.h"

namespace tandem::plan {
namespace {

bool HasOneChild(const PlanNode& n) { return n.children.size() == 1 && n.children[0]; }

}  // namespace

bool IsLimitOverSort(const PlanNode& limit) {
  return limit.kind == PlanKind::kLimit && limit.limit >= 0 && HasOneChild(limit) &&
         limit.children[0]->kind == PlanKind::kSort && HasOneChild(*limit.children[0]);
}

bool IsTopN(const PlanNode& limit) {
  return IsLimitOverSort(limit) && limit.children[0]->device == limit.device;
}

bool IsFilteredAggregate(const PlanNode& aggregate) {
  if (aggregate.kind != PlanKind::kAggregate || !HasOneChild(aggregate)) return false;
  const PlanNode& filter = *aggregate.children[0];
  return filter.kind == PlanKind::kFilter && filter.predicate && HasOneChild(filter) &&
         filter.device == aggregate.device;
}

bool IsFilterOverFileScan(const PlanNode& filter,
                          const std::function<bool(const PlanNode& scan)>& reads_files) {
  if (filter.kind != PlanKind::kFilter || !filter.predicate || !HasOneChild(filter)) return false;
  const PlanNode& scan = *filter.children[0];
  return scan.kind == PlanKind::kScan && scan.source &&
         scan.source->kind == TableSource::Kind::kParquet && reads_files(scan);
}

}  // namespace tandem::plan
