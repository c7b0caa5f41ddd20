// Explain output of placed plans (the text through exec/plan_text.h): the planning-time report
// (tandem.sql.explain=ALL|NOT_ON_GPU, printed on stderr, in the style RAPIDS users know: '*' on the
// GPU, '!' cannot run there, '$' moved to the CPU by the cost model, '>' a transition), the EXPLAIN
// text with every node's device, and a JSON form for tools (with each node's metrics after EXPLAIN
// ANALYZE).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tandem/exec/exec_context.h"
#include "tandem/placement/placement.h"
#include "tandem/placement/settings.h"

namespace tandem::placement {

// The planning-time report; `level` is ALL or NOT_ON_GPU (NOT_ON_GPU lists only nodes left on
// the CPU). Ends with a newline; "" when NOT_ON_GPU finds nothing to say.
std::string PlacementReport(const PlacementResult& placed, const PlacementSetup& setup,
                            const std::string& level);

// The header line of EXPLAIN: "Placement: device=auto, target=h200 (...): est. 1.20 ms
// (all-CPU plan est. 3.40 ms)".
std::string PlacementHeader(const PlacementResult& placed, const PlacementSetup& setup);

// One line per node: device ("cpu", "gpu", "pcie" for transitions), indentation, Describe(), and
// for nodes left on the CPU why (unless the reason is the same for all: no GPU, device=cpu);
// with `physical`, each node's physical operator and pipeline in brackets.
std::string PlanWithDevices(const PlanNode& placed, const PlacementSetup& setup,
                            const PhysicalPlan* physical = nullptr);

// {"placement": {...}, "plan": {"operator": ..., "device": ..., "placement": ..., "children":
// [...]}}; `metrics` adds each node's actual rows, bytes and time (EXPLAIN ANALYZE), and the
// physical plan (`physical`, or the one the run kept in `metrics`) each node's "physical":
// {"name", "role" (alone, source, step, sink, fused, shared), "pipeline"}.
nlohmann::json PlanToJson(const PlacementResult& placed, const PlacementSetup& setup,
                          const ExecContext* metrics, const PhysicalPlan* physical = nullptr);

}  // namespace tandem::placement
