// Explain output of placed plans (see explain.h).
#include "tandem/placement/explain.h"

#include <algorithm>
#include <cstdio>

#include "tandem/exec/plan_text.h"

namespace tandem::placement {
namespace {

const char* DeviceColumn(const PlanNode& n) {
  if (n.kind == PlanKind::kTransition) return "pcie";
  return DeviceName(n.device);
}

bool OnCpu(const PlanNode& n) {
  return n.kind != PlanKind::kTransition && n.device == Device::kCpu;
}

const char* NoteKindName(PlacementNote::Kind k) {
  switch (k) {
    case PlacementNote::Kind::kNone:
      return "none";
    case PlacementNote::Kind::kOnGpu:
      return "gpu";
    case PlacementNote::Kind::kUnsupported:
      return "cpu_unsupported";
    case PlacementNote::Kind::kCostModel:
      return "cpu_cost_model";
    case PlacementNote::Kind::kTransition:
      return "transition";
  }
  return "?";
}

const char* RoleName(PhysicalOperator::Role role) {
  switch (role) {
    case PhysicalOperator::Role::kAlone:
      return "alone";
    case PhysicalOperator::Role::kSource:
      return "source";
    case PhysicalOperator::Role::kStep:
      return "step";
    case PhysicalOperator::Role::kSink:
      return "sink";
    case PhysicalOperator::Role::kFused:
      return "fused";
    case PhysicalOperator::Role::kShared:
      return "shared";
  }
  return "?";
}

nlohmann::json NodeJson(const PlanNode& n, const ExecContext* metrics,
                        const PhysicalPlan* physical) {
  nlohmann::json j;
  j["operator"] = n.Describe();
  j["device"] = DeviceColumn(n);
  j["placement"] = NoteKindName(n.placement.kind);
  if (n.placement.kind == PlacementNote::Kind::kUnsupported) j["reason"] = n.placement.reason;
  if (n.placement.kind == PlacementNote::Kind::kCostModel) {
    j["cpu_est_ms"] = n.placement.cpu_est_ms;
    j["gpu_est_ms"] = n.placement.gpu_est_ms;
  }
  j["estimated_rows"] = n.estimated_rows;
  if (n.placement.est_bytes >= 0) j["estimated_bytes"] = n.placement.est_bytes;
  if (physical) {
    auto it = physical->find(&n);
    if (it != physical->end()) {
      j["physical"] = {{"name", it->second.name}, {"role", RoleName(it->second.role)}};
      if (it->second.pipeline > 0) j["physical"]["pipeline"] = it->second.pipeline;
    }
  }
  if (metrics) {
    if (const OperatorMetrics* m = metrics->Find(&n)) {
      j["actual"] = {{"name", m->name},       {"device", m->device}, {"rows", m->rows},
                     {"batches", m->batches}, {"bytes", m->bytes},   {"ms", m->millis}};
      if (m->peak_host_bytes >= 0) j["actual"]["peak_host_bytes"] = m->peak_host_bytes;
      if (m->peak_device_bytes >= 0) j["actual"]["peak_gpu_bytes"] = m->peak_device_bytes;
    }
  }
  nlohmann::json children = nlohmann::json::array();
  for (const PlanPtr& c : n.children) {
    if (c) children.push_back(NodeJson(*c, metrics, physical));
  }
  j["children"] = std::move(children);
  return j;
}

// A CPU island: CPU operators between GPU operators (fed by a DeviceToHost transition or feeding
// a HostToDevice one), kept on the CPU by at least one operator the GPU cannot run.
struct Island {
  std::vector<std::string> reasons;  // distinct
  bool from_gpu = false;             // a DeviceToHost transition feeds it
  double rows_in = 0;                // rows arriving from the GPU
  double bytes_in = 0;
  double rows_out = -1;  // rows going back to the GPU; < 0: the island ends the plan
  double bytes_out = 0;
  int operators = 0;
};

void CollectIsland(const PlanNode& n, Island* island) {
  ++island->operators;
  if (n.placement.kind == PlacementNote::Kind::kUnsupported) {
    const std::string& why = n.placement.reason;
    if (std::find(island->reasons.begin(), island->reasons.end(), why) == island->reasons.end()) {
      island->reasons.push_back(why);
    }
  }
  for (const PlanPtr& c : n.children) {
    if (!c) continue;
    if (c->kind == PlanKind::kTransition) {  // into the island, from the GPU
      island->from_gpu = true;
      island->rows_in += c->estimated_rows;
      island->bytes_in += std::max(0.0, c->placement.est_bytes);
    } else if (OnCpu(*c)) {
      CollectIsland(*c, island);
    }
  }
}

// Islands whose top is `n` or below it; `parent` is n's parent (null at the root).
void FindIslands(const PlanNode& n, const PlanNode* parent, std::vector<Island>* out) {
  if (OnCpu(n) && (parent == nullptr || !OnCpu(*parent))) {
    Island island;
    CollectIsland(n, &island);
    if (parent && parent->kind == PlanKind::kTransition) {
      island.rows_out = parent->estimated_rows;
      island.bytes_out = std::max(0.0, parent->placement.est_bytes);
    }
    const bool between_gpu = island.from_gpu || island.rows_out >= 0;
    if (between_gpu && !island.reasons.empty()) out->push_back(std::move(island));
  }
  for (const PlanPtr& c : n.children) {
    if (c) FindIslands(*c, &n, out);
  }
}

std::string Quantity(double rows, double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.0f rows (%.1f MB)", rows, bytes / 1e6);
  return buf;
}

// One line per CPU island: why it is on the CPU and what crosses PCIe around it.
std::string IslandLines(const PlanNode& placed) {
  std::vector<Island> islands;
  FindIslands(placed, nullptr, &islands);
  std::string out;
  for (size_t i = 0; i < islands.size(); ++i) {
    const Island& is = islands[i];
    out += "CPU island " + std::to_string(i + 1) + " (" + std::to_string(is.operators) +
           (is.operators == 1 ? " operator" : " operators") + "): ";
    for (size_t r = 0; r < is.reasons.size(); ++r) out += (r ? "; " : "") + is.reasons[r];
    out += is.from_gpu ? ". In from the GPU: " + Quantity(is.rows_in, is.bytes_in)
                       : ". Reads its input on the host";
    out += is.rows_out >= 0 ? ", out to the GPU: " + Quantity(is.rows_out, is.bytes_out)
                            : ", then the result stays on the host";
    out += ".\n";
  }
  return out;
}

}  // namespace

std::string PlacementHeader(const PlacementResult& placed, const PlacementSetup& setup) {
  char est[128];
  std::snprintf(est, sizeof(est), ": est. %.2f ms (all-CPU plan est. %.2f ms)", placed.estimated_ms,
                placed.all_cpu_estimated_ms);
  return "Placement: " + DescribeSetup(setup) + est;
}

std::string PlacementReport(const PlacementResult& placed, const PlacementSetup& setup,
                            const std::string& level) {
  const bool only_cpu = level == "NOT_ON_GPU";
  std::string body;
  if (placed.plan) {
    PlanTextOptions options;
    options.report_marks = true;
    options.only_cpu = only_cpu;
    body = PlanText(*placed.plan, options);
  }
  if (only_cpu && body.empty()) return "";
  return "tandem: " + PlacementHeader(placed, setup) + "\n" + body;
}

std::string PlanWithDevices(const PlanNode& placed, const PlacementSetup& setup,
                            const PhysicalPlan* physical) {
  PlanTextOptions options;
  options.device_column = true;
  options.physical = physical;
  options.cpu_reasons = setup.options.gpu_allowed && setup.options.mode != DeviceMode::kCpu;
  std::string out = PlanText(placed, options);
  const bool reasons = options.cpu_reasons;
  if (reasons) out += IslandLines(placed);
  return out;
}

nlohmann::json PlanToJson(const PlacementResult& placed, const PlacementSetup& setup,
                          const ExecContext* metrics, const PhysicalPlan* physical) {
  if (metrics && metrics->physical_plan) physical = metrics->physical_plan.get();
  nlohmann::json j;
  j["placement"] = {{"device", setup.device},
                    {"target", setup.target},
                    {"figures", setup.options.profile.description},
                    {"gpu_allowed", setup.options.gpu_allowed},
                    {"estimated_ms", placed.estimated_ms},
                    {"all_cpu_estimated_ms", placed.all_cpu_estimated_ms},
                    {"uses_gpu", placed.uses_gpu}};
  if (!setup.options.gpu_allowed) j["placement"]["no_gpu_reason"] = setup.options.no_gpu_reason;
  if (placed.plan) j["plan"] = NodeJson(*placed.plan, metrics, physical);
  return j;
}

}  // namespace tandem::placement
