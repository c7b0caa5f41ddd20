// What `tandem qualify` and `tandem profile` keep of one Spark application's event log: the
// application and its settings, executors, every SQL execution with its final plan (the last
// AQE update, else the plan at start) and the values of the plan's metrics, and per stage the
// aggregates of its tasks. Tasks are folded into their stage as they are read, so memory grows
// with the number of stages and plan nodes, never with the number of tasks or the log's size.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tandem::qualify {

// A node of a Spark plan as the event log gives it (SparkPlanInfo).
struct PlanNode {
  std::string name;         // nodeName: "Filter", "Scan parquet ", "WholeStageCodegen (3)"
  std::string description;  // simpleString
  std::map<std::string, std::string> metadata;  // scans: ReadSchema, Format, ...
  struct Metric {
    std::string name;  // "number of output rows", "scan time", ...
    int64_t accumulator = -1;
    std::string type;  // sum, size, timing (ms), nsTiming, average
  };
  std::vector<Metric> metrics;
  std::vector<std::unique_ptr<PlanNode>> children;
};

// Aggregates of one stage attempt's tasks.
struct StageStats {
  int64_t id = -1;
  int64_t attempt = 0;
  std::string name;
  int64_t num_tasks = 0;  // declared
  std::vector<int64_t> parents;
  int64_t submitted_ms = -1;
  int64_t completed_ms = -1;
  std::string failure;  // "Failure Reason", when it failed
  // Folded TaskEnd events.
  int64_t tasks_ended = 0;
  int64_t tasks_failed = 0;
  int64_t first_launch_ms = -1;
  int64_t last_finish_ms = -1;
  int64_t task_wall_ms = 0;  // sum of finish - launch
  int64_t max_task_wall_ms = 0;
  int64_t run_ms = 0;  // Executor Run Time
  int64_t cpu_ns = 0;  // Executor CPU Time
  int64_t deserialize_ms = 0;
  int64_t gc_ms = 0;
  int64_t input_bytes = 0;
  int64_t input_records = 0;
  int64_t shuffle_read_bytes = 0;
  int64_t shuffle_read_records = 0;
  int64_t fetch_wait_ms = 0;
  int64_t shuffle_write_bytes = 0;
  int64_t shuffle_write_records = 0;
  int64_t shuffle_write_ns = 0;
  int64_t output_bytes = 0;
  int64_t spilled_bytes = 0;
  int64_t peak_memory_bytes = 0;  // the largest task's peak execution memory
  std::set<std::string> executors;
  std::set<int64_t> accumulators;  // accumulator ids the stage updated (plan metrics)
};

struct Job {
  int64_t id = -1;
  int64_t execution = -1;  // spark.sql.execution.id, -1 outside SQL
  int64_t submitted_ms = -1;
  int64_t completed_ms = -1;
  bool succeeded = true;
  std::vector<int64_t> stages;  // Stage IDs (skipped ones included)
};

struct SqlExecution {
  int64_t id = -1;
  int64_t root_id = -1;  // rootExecutionId (nested executions), -1 when absent
  std::string description;
  int64_t start_ms = -1;
  int64_t end_ms = -1;
  std::string error;               // errorMessage of SQLExecutionEnd
  std::unique_ptr<PlanNode> plan;  // the final plan
  int plan_versions = 0;           // 1 + the AQE updates seen
  bool final_plan = false;         // the last update said isFinalPlan=true
  std::vector<int64_t> jobs;
};

struct Executor {
  std::string id;
  int64_t cores = 0;
  int64_t added_ms = -1;
  int64_t removed_ms = -1;
};

struct Application {
  std::string id;
  std::string name;
  std::string spark_version;
  int64_t start_ms = -1;
  int64_t end_ms = -1;                            // -1: no ApplicationEnd (in progress or crashed)
  int64_t last_event_ms = -1;                     // the latest timestamp seen, for an estimated end
  std::map<std::string, std::string> properties;  // Spark Properties of EnvironmentUpdate
  std::map<std::string, Executor> executors;
  std::map<int64_t, SqlExecution> executions;
  std::map<int64_t, Job> jobs;
  std::map<std::pair<int64_t, int64_t>, StageStats> stages;  // (stage id, attempt)
  std::map<int64_t, std::string> accumulator_values;         // final values of plan metrics
  // What reading found: lines that were not JSON events, a cut-off end, codec damage.
  int64_t lines = 0;
  int64_t bad_lines = 0;
  bool truncated = false;
  std::vector<std::string> problems;
  // The plugin's marks: spark.plugins names Tandem's, and whether it was enabled.
  bool tandem_plugin() const;
  std::string Property(const std::string& key, const std::string& fallback = "") const;
  // Best end time: ApplicationEnd, else the last event.
  int64_t EndOrLast() const { return end_ms >= 0 ? end_ms : last_event_ms; }
};

}  // namespace tandem::qualify
