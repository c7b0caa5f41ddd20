// The text printer of placed plans (see plan_text.h).
#include "tandem/exec/plan_text.h"

#include <cstdio>

#include "tandem/common/text.h"

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

std::string MetricsText(const OperatorMetrics& m) {
  char time[32];
  std::snprintf(time, sizeof(time), "%.2f ms", m.millis);
  const std::string rows = m.rows >= 0 ? std::to_string(m.rows) : std::string("uncounted");
  std::string peaks;
  if (m.peak_host_bytes > 0) peaks += ", peak +" + FormatByteSize(m.peak_host_bytes) + " host";
  if (m.spilled_bytes > 0) peaks += ", spilled " + FormatByteSize(m.spilled_bytes);
  if (m.peak_device_bytes > 0) peaks += ", peak +" + FormatByteSize(m.peak_device_bytes) + " GPU";
  return "[" + m.name + " on " + m.device + ": " + rows + " rows, " + std::to_string(m.batches) +
         " batches, " + FormatByteSize(m.bytes) + ", " + time + peaks + "]";
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
    if (o.metrics) {
      const OperatorMetrics* m = o.metrics->Find(&n);
      out->append(m ? "  " + MetricsText(*m) : std::string("  [not run]"));
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
