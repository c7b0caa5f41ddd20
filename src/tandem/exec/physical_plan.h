// The physical plan of a placed plan, built once before it runs: for every node, the operator
// the executor runs it as (fused ones named as such: "Filter (fused into Scan)", "Sort (in
// TopN)", "Filter (in HashJoin probe)") and, on the CPU, the pipeline it belongs to and its role
// there, on the GPU the part it belongs to. Pipelines and GPU parts are numbered together in the
// order they run (a join's build side before its probe, a GPU part after its host inputs).
// exec/executor.h's PlanPhysical builds it from the executor's own rules, so what EXPLAIN shows
// is what EXPLAIN ANALYZE then records, unless the run adapts (out of memory, a join goes grace,
// a GPU part moves to the CPU or is cut into slices or hash partitions by its size): EXPLAIN
// ANALYZE then shows both.
#pragma once

#include <map>
#include <string>

namespace tandem {

struct PlanNode;

struct PhysicalOperator {
  enum class Role {
    kAlone,   // runs over its whole inputs (a breaker's input collected, a GPU operator)
    kSource,  // the rows a pipeline starts from (a Parquet scan read row group by row group)
    kStep,    // a streaming step of a pipeline (a filter, a projection, a join's probe)
    kSink,    // where a pipeline's rows go (an aggregation, a TopN, a flipped join's table)
    kFused,   // runs inside another node's operator (named by its name)
    kShared,  // the output of an identical subplan computed once elsewhere in the plan
  };
  std::string name;  // as EXPLAIN ANALYZE records it when the run does not adapt
  Role role = Role::kAlone;
  // 1, 2 ... in the order they run: the CPU pipeline, or on the GPU the part (the operators
  // between transitions, run over whole device batches or their slices); 0 for none.
  int pipeline = 0;
  bool on_gpu = false;
};

using PhysicalPlan = std::map<const PlanNode*, PhysicalOperator>;

// "pipeline 3", "source of pipeline 3", "sink of pipeline 3", "GPU part 4" ("" for none).
std::string PipelineLabel(const PhysicalOperator& op);

}  // namespace tandem
