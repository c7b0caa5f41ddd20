// The one text printer of placed plans. The planning-time placement report
// (tandem.sql.explain), EXPLAIN and EXPLAIN ANALYZE are its options: one line per node, each
// child indented two spaces below its parent, with what the option adds (the device, the
// placement note, the recorded metrics). JSON explain is placement/explain.h's PlanToJson.
#pragma once

#include <string>

#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

struct PlanTextOptions {
  // EXPLAIN: the device in a column before each line ("cpu", "gpu", "pcie" for transitions).
  bool device_column = false;
  // EXPLAIN: why a node is on the CPU ("  -- reason") when it could not run on the GPU or the
  // cost model moved it.
  bool cpu_reasons = false;
  // The placement report, in the style RAPIDS users know: '*' on the GPU, '!' cannot run there,
  // '$' moved to the CPU by the cost model, '>' a transition; each node's note after a colon.
  bool report_marks = false;
  // Lines only for the nodes left on the CPU (tandem.sql.explain=NOT_ON_GPU).
  bool only_cpu = false;
  // EXPLAIN ANALYZE: each node's recorded metrics in brackets ("[not run]" when none), with its
  // pipeline from the context's physical plan, and what it was planned as when the run adapted.
  const ExecContext* metrics = nullptr;
  // EXPLAIN: each node's physical operator, device and pipeline in brackets.
  const PhysicalPlan* physical = nullptr;
};

std::string PlanText(const PlanNode& root, const PlanTextOptions& options);

// Whether an operator that ran as `ran` (its recorded name) ran as `planned`: the same name, or
// the name with details the run adds ("Scan t (parquet: ...)", "HashJoin (grace: ...)").
bool RanAsPlanned(const std::string& planned, const std::string& ran);

// EXPLAIN ANALYZE: PlanText with metrics, then the time by device when the GPU took part and
// the query's GPU admission.
std::string PlanToStringWithMetrics(const PlanNode& root, const ExecContext& ctx);

}  // namespace tandem
