// One SQL execution of an event log taken apart for the wall-clock model: its final plan judged
// (plan_support.h), its stages (through its jobs) with their task aggregates, which plan nodes
// each stage ran (a node belongs to the stages whose accumulables carry its metrics), and how
// much of each stage's task time was in operators Tandem would run. Nested executions (a
// rootExecutionId other than their own) are folded into their root by the caller.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tandem/qualify/app_model.h"
#include "tandem/qualify/plan_support.h"

namespace tandem::qualify {

struct StageAnalysis {
  const StageStats* stats = nullptr;
  std::vector<const JudgedNode*> nodes;  // operators (not wrappers) the stage ran
  // Task time split: shuffle write, waiting for shuffle data, and the rest (operators).
  double run_ms = 0, shuffle_write_ms = 0, fetch_wait_ms = 0, compute_ms = 0;
  // compute_ms split: what Spark's own metrics time (scans' "scan time", aggregates' "time in
  // aggregation build", sorts' "sort time", Python UDFs' "time to run Python workers"), in
  // operators Tandem would run and in the others;
  // the rest of compute_ms split among the stage's operators by a weight per kind.
  // Aggregates split by how much they reduce (to at most 5 % of their input rows, or more) and,
  // among the reducing ones, those over decimal columns.
  double tandem_scan_ms = 0, tandem_aggregate_ms = 0, tandem_wide_aggregate_ms = 0;
  double tandem_decimal_aggregate_ms = 0;
  double tandem_sort_ms = 0, tandem_other_ms = 0;
  double python_ms = 0, spark_ms = 0;
  double tandem_ms() const {
    return tandem_scan_ms + tandem_aggregate_ms + tandem_wide_aggregate_ms +
           tandem_decimal_aggregate_ms + tandem_sort_ms + tandem_other_ms;
  }
  int64_t rows_out_of_tandem = 0;  // rows crossing from Tandem to a Spark operator or back
  double wall_ms = 0;
  double parallelism = 1;   // sum of task walls / stage wall
  double exclusive_ms = 0;  // wall not overlapped by the execution's other stages (shared split)
  bool input_scan = false;  // reads files
};

struct ExecutionAnalysis {
  const SqlExecution* execution = nullptr;
  JudgedPlan plan;
  double measured_ms = 0;  // submit to done
  double stage_ms = 0;     // time covered by the execution's stages
  std::vector<StageAnalysis> stages;
  // Nodes by placement (wrappers and boundaries not counted) and why nodes stay in Spark.
  int tandem_nodes = 0, spark_nodes = 0;
  std::map<std::string, int> spark_reasons;
  bool failed = false;         // its SQLExecutionEnd had an error, or a job failed
  bool ran_in_tandem = false;  // the plan has TandemExec nodes: it ran with the plugin on
  bool has_work() const { return !stages.empty(); }  // false: a command (no stage ran)
};

// The executions of `app` worth modelling: ended, with a plan; nested ones skipped.
std::vector<ExecutionAnalysis> AnalyzeExecutions(const Application& app);

// The value of a plan metric (accumulator) as a number, 0 when unknown.
double MetricValue(const Application& app, int64_t accumulator);

}  // namespace tandem::qualify
