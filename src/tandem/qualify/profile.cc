// Profiles of applications run with the plugin (see profile.h).
#include "tandem/qualify/profile.h"

#include <algorithm>
#include <functional>
#include <set>

#include "tandem/common/html.h"
#include "tandem/qualify/execution_analysis.h"
#include "tandem/qualify/plan_support.h"

namespace tandem::qualify {
namespace {

using html::Fixed;

std::string Pct(double part, double whole) {
  return Fixed(whole > 0 ? 100.0 * part / whole : 0.0, 0) + " %";
}

std::string Mib(int64_t bytes) { return Fixed(double(bytes) / double(1 << 20), 1) + " MiB"; }

double Metric(const Application& app, const PlanNode& n, const std::string& name) {
  for (const auto& m : n.metrics) {
    if (m.name == name) return MetricValue(app, m.accumulator);
  }
  return 0;
}

TandemNodeProfile TandemNode(const Application& app, const PlanNode& n) {
  TandemNodeProfile t;
  std::string d = n.description;
  if (d.rfind("TandemExec ", 0) == 0) d = d.substr(11);
  const size_t bracket = d.find(" [");
  t.summary = bracket == std::string::npos ? d : d.substr(0, bracket);
  const size_t on = t.summary.rfind(" on ");
  t.device = on == std::string::npos ? "?" : t.summary.substr(on + 4);
  t.tandem_ms = Metric(app, n, "time in Tandem") / 1e6;
  t.gpu_ms = Metric(app, n, "time on GPU") / 1e6;
  t.pcie_bytes = static_cast<int64_t>(Metric(app, n, "bytes across PCIe"));
  t.peak_bytes = static_cast<int64_t>(Metric(app, n, "peak native memory"));
  t.spill_bytes = static_cast<int64_t>(Metric(app, n, "spill size"));
  t.rows = static_cast<int64_t>(Metric(app, n, "number of output rows"));
  return t;
}

void Advise(ExecutionProfile* p) {
  // A command run on the driver alone (no task) has nothing to tune.
  if (p->tandem_nodes.empty() && p->task_ms <= 0) return;
  if (p->tandem_nodes.empty()) {
    p->advice.push_back("nothing ran in Tandem" +
                        (p->spark_nodes.empty()
                             ? std::string()
                             : ": " + p->spark_nodes.front().first + " stays in Spark because " +
                                   p->spark_nodes.front().second));
    return;
  }
  const double outside = std::max(0.0, p->task_ms - p->tandem_ms - p->gpu_ms);
  if (p->task_ms > 0 && outside > 0.5 * p->task_ms) {
    std::string why = p->spark_nodes.empty() ? "Spark's shuffle and transitions"
                                             : p->spark_nodes.front().first + " (" +
                                                   p->spark_nodes.front().second + ")";
    p->advice.push_back(Pct(outside, p->task_ms) + " of task time (" + Fixed(outside / 1000, 1) +
                        " s of " + Fixed(p->task_ms / 1000, 1) +
                        " s) is outside Tandem: most of it in " + why);
  }
  if (p->gpu_ms > 0 && p->pcie_bytes > 0) {
    const double gbps = double(p->pcie_bytes) / (p->gpu_ms / 1000.0) / 1e9;
    if (gbps < 5) {
      p->advice.push_back("the GPU moved " + Mib(p->pcie_bytes) + " across PCIe in " +
                          Fixed(p->gpu_ms, 0) + " ms of GPU time (" + Fixed(gbps, 1) +
                          " GB/s): transfers bound it; keep data on the GPU longer "
                          "(fewer islands) or leave small stages on the CPU");
    }
  }
  if (p->spill_bytes > 0) {
    p->advice.push_back("Tandem spilled " + Mib(p->spill_bytes) +
                        ": raise spark.tandem.memory.host.limit or lower "
                        "spark.tandem.sql.concurrentGpuTasks");
  }
  if (!p->error.empty()) p->advice.push_back("the execution failed: " + p->error);
}

}  // namespace

AppProfile ProfileApplication(const Application& app) {
  AppProfile a;
  a.id = app.id;
  a.name = app.name;
  a.plugin = app.tandem_plugin();
  a.notes = app.problems;
  if (!a.plugin) {
    a.notes.push_back(
        "spark.plugins does not name dev.tandem.spark.TandemPlugin: nothing ran in "
        "Tandem; `tandem qualify` predicts what would");
  }
  const std::string zone = app.Property("spark.sql.session.timeZone", "UTC");
  for (const ExecutionAnalysis& x : AnalyzeExecutions(app)) {
    ExecutionProfile p;
    p.id = x.execution->id;
    p.description = x.execution->description;
    p.measured_ms = x.measured_ms;
    p.error = x.execution->error;
    for (const StageAnalysis& s : x.stages) p.task_ms += s.run_ms;
    std::function<void(const PlanNode&)> walk = [&](const PlanNode& n) {
      if (n.name == "TandemExec") {
        TandemNodeProfile t = TandemNode(app, n);
        p.tandem_ms += t.tandem_ms;
        p.gpu_ms += t.gpu_ms;
        p.pcie_bytes += t.pcie_bytes;
        p.spill_bytes += t.spill_bytes;
        p.peak_bytes = std::max(p.peak_bytes, t.peak_bytes);
        p.tandem_nodes.push_back(t);
      } else {
        JudgedNode j = JudgeNode(n, zone);
        if (j.placement == Placement::kSpark) p.spark_nodes.push_back({n.name, j.reason});
      }
      for (const auto& c : n.children) walk(*c);
    };
    walk(*x.execution->plan);
    Advise(&p);
    a.executions.push_back(std::move(p));
  }
  double task = 0, tandem = 0, gpu = 0;
  int64_t peak = 0;
  for (const ExecutionProfile& p : a.executions) {
    task += p.task_ms;
    tandem += p.tandem_ms;
    gpu += p.gpu_ms;
    peak = std::max(peak, p.peak_bytes);
  }
  if (task > 0) {
    a.advice.push_back("task time in Tandem: " + Pct(tandem + gpu, task) + " (" +
                       Fixed((tandem + gpu) / 1000, 1) + " of " + Fixed(task / 1000, 1) +
                       " s), on the GPU: " + Pct(gpu, task));
  }
  if (peak > 0) a.advice.push_back("largest native memory of a TandemExec: " + Mib(peak));
  return a;
}

std::string RenderProfileText(const std::vector<AppProfile>& apps) {
  std::string out;
  for (const AppProfile& a : apps) {
    out += a.id + (a.name.empty() ? "" : " (" + a.name + ")") + "\n";
    for (const std::string& n : a.notes) out += "  note: " + n + "\n";
    for (const std::string& n : a.advice) out += "  " + n + "\n";
    for (const ExecutionProfile& p : a.executions) {
      out += "  SQL " + std::to_string(p.id) + (p.description.empty() ? "" : " " + p.description) +
             ": " + Fixed(p.measured_ms / 1000, 2) + " s; tasks " + Fixed(p.task_ms / 1000, 2) +
             " s, in Tandem " + Fixed(p.tandem_ms / 1000, 2) + " s CPU + " +
             Fixed(p.gpu_ms / 1000, 2) + " s GPU, " + Mib(p.pcie_bytes) + " across PCIe\n";
      for (const TandemNodeProfile& t : p.tandem_nodes) {
        out += "    * TandemExec " + t.summary + ": " + Fixed(t.tandem_ms, 0) + " ms, " +
               std::to_string(t.rows) + " rows\n";
      }
      for (const auto& [node, why] : p.spark_nodes) out += "    ! " + node + ": " + why + "\n";
      for (const std::string& adv : p.advice) out += "    advice: " + adv + "\n";
    }
  }
  return out;
}

spark::Json RenderProfileJson(const std::vector<AppProfile>& apps) {
  spark::Json list = spark::Json::array();
  for (const AppProfile& a : apps) {
    spark::Json executions = spark::Json::array();
    for (const ExecutionProfile& p : a.executions) {
      spark::Json nodes = spark::Json::array();
      for (const TandemNodeProfile& t : p.tandem_nodes) {
        nodes.push_back({{"fragment", t.summary},
                         {"device", t.device},
                         {"tandem_ms", t.tandem_ms},
                         {"gpu_ms", t.gpu_ms},
                         {"pcie_bytes", t.pcie_bytes},
                         {"peak_native_bytes", t.peak_bytes},
                         {"spill_bytes", t.spill_bytes},
                         {"rows", t.rows}});
      }
      spark::Json spark_nodes = spark::Json::array();
      for (const auto& [node, why] : p.spark_nodes)
        spark_nodes.push_back({{"operator", node}, {"why", why}});
      executions.push_back({{"id", p.id},
                            {"description", p.description},
                            {"measured_ms", p.measured_ms},
                            {"task_ms", p.task_ms},
                            {"tandem_cpu_ms", p.tandem_ms},
                            {"tandem_gpu_ms", p.gpu_ms},
                            {"pcie_bytes", p.pcie_bytes},
                            {"spill_bytes", p.spill_bytes},
                            {"tandem_nodes", nodes},
                            {"spark_nodes", spark_nodes},
                            {"advice", p.advice},
                            {"error", p.error}});
    }
    list.push_back({{"id", a.id},
                    {"name", a.name},
                    {"plugin", a.plugin},
                    {"notes", a.notes},
                    {"advice", a.advice},
                    {"executions", executions}});
  }
  return spark::Json{{"applications", list}};
}

}  // namespace tandem::qualify
