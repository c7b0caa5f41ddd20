// The wall-clock model of `tandem qualify`: from a SQL execution of a plugin-off event log (its
// stages, their task times and the operators each ran), the submit-to-done time the execution
// would take with Tandem on a target, and the application's time from its executions'.
//
// Per stage, task time splits into Spark's shuffle writes, waits for shuffle data, and operator
// work; the share of operator work Tandem runs (execution_analysis.h) runs `speedup` times
// faster, Python UDF work and the other operators left to Spark run as before, every task pays
// a fixed cost to start a fragment and every row crossing between Tandem and a Spark operator a
// transition. A stage's wall shrinks by the task time saved over its effective parallelism,
// scaled by the target's task waves when the target has other slots; the execution's time
// shrinks by each stage's share of the wall it did not share with other stages. Driver time
// (planning, scheduling, collecting results) stays, plus a planning cost per stage. On a GPU
// target, stages whose work is too small run on Tandem's CPU path (the placement planner's
// rule), and the others pay a GPU start per task and their input across PCIe.
//
// The result is a speedup with a range from the model's measured errors (the calibration's 10th
// and 90th percentiles), the reasons that limit it, and a category gated on the range's lower
// end: the range, not the point, must clear the bar.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/qualify/execution_analysis.h"

namespace tandem::qualify {

struct TargetModel {
  std::string name = "cpu";  // "cpu" (Tandem's CPU path), "h200", or a calibration file's
  // Speedups on the operator work Tandem takes: scans, aggregates and sorts (as Spark's metrics
  // time them), and the rest of its operators (joins, filters, projections, ...).
  double scan_speedup = 2.0;
  double aggregate_speedup = 2.0;          // aggregates to at most 5 % of their input rows
  double wide_aggregate_speedup = 2.0;     // the others
  double decimal_aggregate_speedup = 2.0;  // reducing aggregates over decimal columns
  double sort_speedup = 2.0;
  double speedup = 2.0;
  double shuffle_write_factor = 1.0;
  double task_fixed_ms = 5;
  double row_crossing_ns = 150;
  double stage_planning_ms = 2;
  // GPU targets: stages with less operator work than this stay on Tandem's CPU path.
  bool gpu = false;
  double cpu_speedup = 2.0;  // what those stages get
  double min_gpu_work_ms = 200;
  double gpu_task_fixed_ms = 20;
  double pcie_bytes_per_ms = 20e6;
  // Relative error of predicted times, from the calibration (predicted / measured - 1).
  double error_p10 = -0.15;
  double error_p90 = 0.15;
  // Category: "recommended" when the range's low speedup reaches this, "not recommended" when
  // even its high end stays below 1.0.
  double recommend_at = 1.3;
  // Cluster shape: task slots of the target (0: as measured).
  int target_slots = 0;
  std::string source;  // where the figures came from
};

// "cpu", "h200" (built in) or the path of a JSON file with the fields above.
Result<TargetModel> LoadTarget(const std::string& target);

struct Prediction {
  double measured_ms = 0;
  double predicted_ms = 0;
  double low_ms = 0, high_ms = 0;  // the range of predicted times
  double speedup = 1, speedup_low = 1, speedup_high = 1;
  std::string category;  // "recommended", "maybe", "not recommended"
  std::vector<std::string> reasons;
  // Where the measured time went: driver, shuffle, Python, operators left to Spark, Tandem.
  double driver_ms = 0, shuffle_ms = 0, python_ms = 0, spark_ms = 0, tandem_ms = 0;
};

Prediction PredictExecution(const ExecutionAnalysis& execution, const TargetModel& target,
                            int measured_slots);

// The category of a speedup range.
std::string Category(double speedup_low, double speedup_high, const TargetModel& target);

}  // namespace tandem::qualify
