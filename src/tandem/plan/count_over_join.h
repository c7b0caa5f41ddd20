// count(*) over an inner equi-join without materializing the join: the count of L JOIN R ON
// L.k = R.k is the sum over keys of count_L(k) * count_R(k). A join on a low-cardinality key
// can have billions of rows where its inputs have thousands; this pass turns
//   Aggregate[count(*)] <- (column-only Projects) <- Join(inner, keys, no condition)
// into
//   Project[coalesce(sum(cl * cr), 0)] <- Aggregate[sum] <- Project[cl * cr]
//     <- Join(Aggregate(L by keys)[count(*) cl], Aggregate(R by keys)[count(*) cr])
// where the join is estimated to produce more rows than both inputs together (for a join on a
// key the plain join is as cheap). NULL keys drop out on both paths (inner join, NULL = NULL is
// not true), and an empty join counts 0.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr CountOverJoinWithoutRows(const PlanPtr& plan);

}  // namespace tandem::plan
