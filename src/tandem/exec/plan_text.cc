// The text printer of placed plans (see plan_text.h).
#include "tandem/exec/plan_text.h"

#include <cstdio>

#include "tandem/common/text.h"
#include "tandem/exec/physical_plan.h"

namespace tandem {
namespace {

bool OnCpu(const PlanNode& n) {
  return n.kind != PlanKind::kTransition && n.device == Device::kCpu;
}

char ReportMark(const PlanNode& n) {
  switch (n.placement.kind) {
    case PlacementNote::Kind::kOnGpu:
      return '*';
    case PlacementNote::Kind::kUnsupported:
      return '!';
    case PlacementNote::Kind::kCostModel:
      return '$';
    case PlacementNote::Kind::kTransition:
      return '>';
    case PlacementNote::Kind::kNone:
      return ' ';
  }
  return ' ';
}

// ", pipeline 3" or ", sink of pipeline 3" ("" for none).
std::string PipelinePart(const PhysicalOperator* op) {
  const std::string label = op ? PipelineLabel(*op) : "";
  return label.empty() ? "" : ", " + label;
}

std::string PlannedText(const PlanNode& n, const PhysicalOperator& op) {
  const char* device = n.kind == PlanKind::kTransition ? "pcie" : op.on_gpu ? "gpu" : "cpu";
  return "[" + op.name + " on " + device + PipelinePart(&op) + "]";
}

std::string MetricsText(const OperatorMetrics& m, const PhysicalOperator* planned, bool have_plan) {
  // The plan's part last, so that "Name on device: rows" reads as it always has.
  std::string plan = PipelinePart(planned);
  if (planned && !RanAsPlanned(planned->name, m.name)) plan += ", planned as " + planned->name;
  if (!planned && have_plan) plan += ", not in the physical plan";
  char time[32];
  std::snprintf(time, sizeof(time), "%.2f ms", m.millis);
  const std::string rows = m.rows >= 0 ? std::to_string(m.rows) : std::string("uncounted");
  std::string peaks;
  if (m.peak_host_bytes > 0) peaks += ", peak +" + FormatByteSize(m.peak_host_bytes) + " host";
  if (m.spilled_bytes > 0) peaks += ", spilled " + FormatByteSize(m.spilled_bytes);
  if (m.peak_device_bytes > 0) peaks += ", peak +" + FormatByteSize(m.peak_device_bytes) + " GPU";
  return "[" + m.name + " on " + m.device + ": " + rows + " rows, " + std::to_string(m.batches) +
         " batches, " + FormatByteSize(m.bytes) + ", " + time + peaks + plan + "]";
}

void AppendNode(const PlanNode& n, int depth, const PlanTextOptions& o, std::string* out) {
  if (!o.only_cpu || OnCpu(n)) {
    if (o.device_column) {
      char device[8];
      std::snprintf(device, sizeof(device), "%-5s",
                    n.kind == PlanKind::kTransition ? "pcie" : DeviceName(n.device));
      out->append(device);
    }
    out->append(static_cast<size_t>(depth) * 2 + (o.report_marks ? 2 : 0), ' ');
    if (o.report_marks) out->push_back(ReportMark(n));
    out->append(n.Describe());
    const PlacementNote::Kind kind = n.placement.kind;
    if (o.report_marks && n.kind != PlanKind::kTransition) {
      const std::string note = n.placement.ToString();
      if (!note.empty()) out->append(": " + note);
    }
    if (o.cpu_reasons &&
        (kind == PlacementNote::Kind::kUnsupported || kind == PlacementNote::Kind::kCostModel)) {
      out->append("  -- " + n.placement.ToString());
    }
    const PhysicalPlan* physical =
        o.metrics && o.metrics->physical_plan ? o.metrics->physical_plan.get() : o.physical;
    const PhysicalOperator* planned = nullptr;
    if (physical) {
      auto it = physical->find(&n);
      if (it != physical->end()) planned = &it->second;
    }
    if (o.metrics) {
      const OperatorMetrics* m = o.metrics->Find(&n);
      out->append(m ? "  " + MetricsText(*m, planned, physical != nullptr)
                    : std::string("  [not run]"));
    } else if (planned) {
      out->append("  " + PlannedText(n, *planned));
    } else if (physical) {
      out->append("  [not run]");  // below an identical subplan's copy
    }
    out->push_back('\n');
  }
  for (const PlanPtr& c : n.children) {
    if (c) AppendNode(*c, depth + 1, o, out);
  }
}

struct DeviceTotals {
  double cpu_ms = 0, gpu_ms = 0, pcie_ms = 0;
  int64_t pcie_bytes = 0;
  bool any_gpu = false;
};

void AddTotals(const PlanNode& n, const ExecContext& ctx, DeviceTotals* t) {
  if (const OperatorMetrics* m = ctx.Find(&n)) {
    if (m->device == "gpu") {
      t->gpu_ms += m->millis;
      t->any_gpu = true;
    } else if (m->device == "pcie") {
      t->pcie_ms += m->millis;
      t->pcie_bytes += m->bytes;
      t->any_gpu = true;
    } else {
      t->cpu_ms += m->millis;
    }
  }
  for (const PlanPtr& c : n.children) {
    if (c) AddTotals(*c, ctx, t);
  }
}

}  // namespace

bool RanAsPlanned(const std::string& planned, const std::string& ran) {
  if (ran.size() < planned.size() || ran.compare(0, planned.size(), planned) != 0) return false;
  if (ran.size() == planned.size()) return true;
  // A scan says what it read; a flipped join what its key bitmap dropped. Anything else added
  // in parentheses (grace, slices, a rerun on the CPU) is the run adapting.
  const std::string rest = ran.substr(planned.size());
  return rest[0] == ',' || (planned.rfind("Scan ", 0) == 0 && rest.rfind(" (", 0) == 0);
}

std::string PlanText(const PlanNode& root, const PlanTextOptions& options) {
  std::string out;
  AppendNode(root, 0, options, &out);
  return out;
}

std::string PlanToStringWithMetrics(const PlanNode& root, const ExecContext& ctx) {
  PlanTextOptions options;
  options.metrics = &ctx;
  std::string out = PlanText(root, options);
  DeviceTotals totals;
  AddTotals(root, ctx, &totals);
  if (totals.any_gpu) {
    char line[160];
    std::snprintf(line, sizeof(line),
                  "Time by device: cpu %.2f ms, gpu %.2f ms, transfers %.2f ms (%s moved)\n",
                  totals.cpu_ms, totals.gpu_ms, totals.pcie_ms,
                  FormatByteSize(totals.pcie_bytes).c_str());
    out += line;
  }
  if (ctx.eval.gpu_kernels != GpuKernels::kInterpret && ctx.eval.gpu_launches) {
    const int64_t generated = ctx.eval.gpu_launches->generated.load();
    const int64_t interpreted = ctx.eval.gpu_launches->interpreted.load();
    const int64_t fused = ctx.eval.gpu_launches->fused.load();
    if (generated + interpreted + fused > 0) {
      out += "GPU expressions: " + std::to_string(generated) +
             " launches of kernels generated for them, " + std::to_string(interpreted) +
             " interpreted (not compiled yet, or failed to); " + std::to_string(fused) +
             " launches of fused aggregate kernels\n";
    }
  }
  if (ctx.host_admission_wait_ms >= 1) {
    char line[200];
    std::snprintf(line, sizeof(line),
                  "Host admission: est. peak %s, waited %.1f ms, %d other quer%s running at "
                  "entry\n",
                  FormatByteSize(ctx.host_estimated_bytes).c_str(), ctx.host_admission_wait_ms,
                  ctx.host_admission_others, ctx.host_admission_others == 1 ? "y" : "ies");
    out += line;
  }
  if (ctx.gpu_admitted_bytes >= 0) {
    char line[200];
    std::snprintf(line, sizeof(line),
                  "GPU admission: est. peak %s, %s reserved, waited %.1f ms, %d other quer%s "
                  "on the GPU at entry\n",
                  FormatByteSize(ctx.gpu_estimated_bytes).c_str(),
                  FormatByteSize(ctx.gpu_admitted_bytes).c_str(), ctx.gpu_admission_wait_ms,
                  ctx.gpu_admission_others, ctx.gpu_admission_others == 1 ? "y" : "ies");
    out += line;
  }
  return out;
}

}  // namespace tandem
