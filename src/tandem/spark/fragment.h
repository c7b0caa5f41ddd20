// A Spark plan fragment (docs/spark_fragment.md), parsed: the Spark settings, the inputs the
// plugin feeds and the tree of nodes. Validation judges every node alone (with its children's
// declared outputs as its input), so the plugin learns for each Spark node whether Tandem runs it
// and why not; building turns a fully supported tree plus one task's data (file splits, rows)
// into a Tandem logical plan that the ordinary executor runs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/plan/logical_plan.h"
#include "tandem/spark/fragment_expr.h"

namespace tandem::spark {

constexpr int kFragmentVersion = 1;

struct FragmentInput {
  enum class Kind { kRows, kBroadcast };
  Kind kind = Kind::kRows;
  Schema schema;
};

struct Fragment {
  SparkSettings settings;
  std::string device = "auto";  // tandem.sql.device
  std::vector<FragmentInput> inputs;
  // An execution document has one tree ("root"); a validation document may list several
  // ("roots": every maximal translated tree of a stage, and the final twins of partial
  // aggregates). `roots` holds them all; `root()` is the first.
  std::vector<Json> roots;
  const Json& root() const { return roots.front(); }
};

Result<Fragment> ParseFragment(const std::string& text);

// What one task reads: file splits per scan node id, rows per input index.
struct FileSplit {
  std::string path;
  int64_t start = 0;
  int64_t length = -1;
  std::vector<Value> partition_values;  // one per partition column, in the node's order
};
struct TaskData {
  std::map<int64_t, std::vector<FileSplit>> splits;
  std::vector<std::shared_ptr<const Table>> inputs;  // by input index; null: no rows
};
Result<TaskData> TaskDataFromJson(const Fragment& fragment, const std::string& text);

// The verdict on one node: Tandem runs it (on `device`: "gpu" when the GPU supports it and one
// may be used, else "cpu"), or not, because `reason`.
struct NodeVerdict {
  int64_t id = -1;
  std::string op;
  bool supported = false;
  std::string device;
  std::string reason;
};

// Judges every node of every root; a root too malformed to walk gets one verdict (its own) saying
// why, and the other roots are judged as usual.
std::vector<NodeVerdict> ValidateFragment(const Fragment& fragment);
// {"nodes": [{"id", "op", "supported", "device"|"reason"}...]}
Json VerdictsToJson(const std::vector<NodeVerdict>& verdicts);

// The plan of a fully supported fragment over one task's data; the first unsupported node is an
// error naming it.
Result<PlanPtr> BuildFragmentPlan(const Fragment& fragment, const TaskData& data);

}  // namespace tandem::spark
