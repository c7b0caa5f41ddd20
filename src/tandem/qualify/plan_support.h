// Which nodes of a Spark plan from an event log would run in Tandem under the plugin, and why
// the others would not, judged with the plugin's own table (spark/support_table.h): the node's
// name, the functions and operators in its description, and the types a scan reads. The plugin
// judges Catalyst objects and asks the engine about types; a log has only the plan's strings,
// so this is the same list applied to what the log shows (an expression the table does not know
// counts as staying in Spark, never the other way round).
//
// Regions follow the plugin's planner: WholeStageCodegen and InputAdapter wrap operators of one
// stage and are transparent, as are the ColumnarToRow/RowToColumnar transitions Spark inserts
// after planning; exchanges, query stages and shuffle reads cut regions; a region
// with no scan, aggregate, join, sort or window stays in Spark (it would only add transitions).
#pragma once

#include <string>
#include <vector>

#include "tandem/qualify/app_model.h"
#include "tandem/spark/support_table.h"

namespace tandem::qualify {

enum class Placement { kTandem, kSpark, kBoundary, kWrapper };

struct JudgedNode {
  const PlanNode* node = nullptr;
  const JudgedNode* parent = nullptr;
  std::string operator_class;  // FilterExec, ... ("" when the table does not know the node)
  Placement placement = Placement::kSpark;
  std::string reason;        // kSpark: why it stays in Spark
  bool substantial = false;  // scan, aggregate, join, sort, window: work worth a transition
  int region = -1;           // kTandem: the Tandem region (one TandemExec under the plugin)
  std::vector<JudgedNode*> children;
};

struct JudgedPlan {
  std::vector<std::unique_ptr<JudgedNode>> nodes;  // pre-order
  JudgedNode* root = nullptr;
  std::vector<JudgedNode*> nested_roots;  // plans of nested executions folded into this one
  int regions = 0;
};

// Function names and operators in a plan string ("isnotnull", "sum", "upper", "CASE").
std::vector<std::string> ExpressionNamesIn(const std::string& text);

// The verdict on one node alone (its placement and reason, before regions).
JudgedNode JudgeNode(const PlanNode& node, const std::string& session_time_zone);

// Every node of `plan`, judged and grouped into regions.
JudgedPlan JudgePlan(const PlanNode& plan, const std::string& session_time_zone);

const char* PlacementName(Placement p);  // "tandem", "spark", "boundary", "wrapper"

}  // namespace tandem::qualify
