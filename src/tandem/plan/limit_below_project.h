// A Limit over projections over a Sort (ORDER BY on a column the SELECT list does not show, or
// any expression of the sorted rows) goes below the projections: Project(Limit(Sort)). A
// projection keeps its input's rows and their order, so the first n rows are the same ones, and
// the Limit then sits on its Sort, which runs as one TopN (plan/fusion.h) instead of sorting every
// row; the projections run over n rows only.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr LimitBelowProjections(const PlanPtr& plan);

}  // namespace tandem::plan
