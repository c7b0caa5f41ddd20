// The row conditions a Parquet scan tests on its dictionaries (io/parquet/row_conditions.h),
// taken from the Filter right above the scan: each conjunct of the filter that reads one column
// (not BOOLEAN) and nothing that could fail or vary (comparisons, IN lists, LIKE, IS NULL,
// AND/OR/NOT, CASE, COALESCE, LOWER/UPPER/TRIM over constants) becomes a condition evaluated by
// the CPU evaluator over the values it is given: a chunk's dictionary. The Filter itself still
// runs on the rows kept, so the conditions change what is built, never the answer.
#pragma once

#include <string>
#include <vector>

#include "tandem/exec/exec_context.h"
#include "tandem/io/parquet/dataset.h"
#include "tandem/io/parquet/row_conditions.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// `predicate` reads the scan node's output columns (a Filter directly over `scan`).
std::vector<parquet::RowCondition> RowConditionsFor(const Expr& predicate, const PlanNode& scan,
                                                    const EvalContext& eval);

// For a scan's EXPLAIN ANALYZE name: ", 2 condition(s) tested on the dictionaries of 96 chunks:
// 5.6M rows dropped" after a read with `conditions` row conditions, "" when none was tested.
std::string ConditionsNote(size_t conditions, const parquet::ReadStats& stats);

}  // namespace tandem::cpu
