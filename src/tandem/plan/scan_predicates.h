// Scan predicates: simple conjuncts of a Filter that sits directly on a Parquet scan
// ("column op constant", IS [NOT] NULL) are copied into the scan's scan_predicates, with the
// constant converted to the column's storage domain, so the reader can skip row groups by their
// min/max statistics. The Filter stays: the scan predicates only prune.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr AddScanPredicates(const PlanPtr& plan);

}  // namespace tandem::plan
