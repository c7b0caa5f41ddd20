// Qualifying one application (see qualification.h).
#include "tandem/qualify/qualification.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tandem::qualify {
namespace {

int Slots(const Application& app) {
  int64_t cores = 0;
  for (const auto& [id, e] : app.executors) cores += e.cores;
  return static_cast<int>(cores);
}

int Hosts(const Application& app) {
  std::set<std::string> executors;
  for (const auto& [id, e] : app.executors) {
    if (id != "driver" || app.executors.size() == 1) executors.insert(id);
  }
  return std::max<int>(1, static_cast<int>(executors.size()));
}

std::vector<std::string> Settings(const Application& app, const TargetModel& t,
                                  const AppQualification& q) {
  std::vector<std::string> out = {
      "spark.plugins=dev.tandem.spark.TandemPlugin (with --jars tandem-spark-<version>.jar)",
      std::string("spark.tandem.sql.device=") + (t.gpu ? "auto" : "cpu")};
  int64_t peak = 0;
  for (const auto& [key, s] : app.stages) peak = std::max(peak, s.peak_memory_bytes);
  if (t.gpu) {
    out.push_back(
        "one executor per GPU: spark.executor.resource.gpu.amount=1, "
        "spark.task.resource.gpu.amount=1/<executor cores>");
    // Tasks that share a GPU: as many as their peak memory lets fit in a quarter of it each,
    // 1 to 4 (a task's peak in Spark is a rough stand-in for its working set in Tandem).
    const double gib = double(peak) / double(int64_t{1} << 30);
    const int concurrent =
        std::clamp(static_cast<int>(std::floor(32.0 / std::max(gib, 1.0))), 1, 4);
    out.push_back("spark.tandem.sql.concurrentGpuTasks=" + std::to_string(concurrent) +
                  " (the largest task held " + std::to_string(peak >> 20) + " MiB)");
  }
  const std::string memory = app.Property("spark.executor.memory");
  if (!memory.empty()) {
    out.push_back(
        "spark.tandem.memory.host.limit: at most the executor's off-heap room beside "
        "spark.executor.memory=" +
        memory + " (spark.executor.memoryOverhead)");
  }
  if (q.speedup_high < 1.0) {
    out.insert(out.begin(), "the plugin is not expected to help this application: leave it off");
  }
  return out;
}

}  // namespace

AppQualification Qualify(std::unique_ptr<Application> app, const TargetModel& target,
                         const Prices& prices) {
  AppQualification q;
  q.app = std::move(app);
  const Application& a = *q.app;
  q.slots = Slots(a);
  q.executions = AnalyzeExecutions(a);
  double saved = 0, saved_low = 0, saved_high = 0;
  for (const ExecutionAnalysis& x : q.executions) {
    Prediction p = PredictExecution(x, target, q.slots);
    saved += p.measured_ms - p.predicted_ms;
    saved_low += p.measured_ms - p.high_ms;
    saved_high += p.measured_ms - p.low_ms;
    q.predictions.push_back(std::move(p));
  }
  const int64_t end = a.EndOrLast();
  q.measured_ms = a.start_ms >= 0 && end >= a.start_ms ? double(end - a.start_ms) : 0;
  if (q.measured_ms <= 0) {
    for (const ExecutionAnalysis& x : q.executions) q.measured_ms += x.measured_ms;
  }
  q.predicted_ms = std::max(1.0, q.measured_ms - saved);
  q.low_ms = std::max(1.0, q.measured_ms - saved_high);
  q.high_ms = std::max(1.0, q.measured_ms - saved_low);
  q.speedup = q.measured_ms / q.predicted_ms;
  q.speedup_low = q.measured_ms / q.high_ms;
  q.speedup_high = q.measured_ms / q.low_ms;
  q.category = q.executions.empty() ? "no SQL" : Category(q.speedup_low, q.speedup_high, target);
  const int nodes = prices.nodes > 0 ? prices.nodes : Hosts(a);
  const double hours = 1.0 / 3.6e6;
  if (prices.cpu_node_per_hour > 0) {
    q.cost_now = q.measured_ms * hours * nodes * prices.cpu_node_per_hour;
    const double per_hour = target.gpu ? prices.gpu_node_per_hour : prices.cpu_node_per_hour;
    if (per_hour > 0) q.cost_target = q.predicted_ms * hours * nodes * per_hour;
  }
  q.settings = Settings(a, target, q);
  return q;
}

}  // namespace tandem::qualify
