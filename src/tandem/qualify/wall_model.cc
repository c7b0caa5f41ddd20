// The wall-clock model (see wall_model.h).
#include "tandem/qualify/wall_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tandem/common/text.h"

namespace tandem::qualify {
namespace {

std::string Percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f %%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

double Waves(double tasks, double slots) { return std::ceil(tasks / std::max(1.0, slots)); }

}  // namespace

Result<TargetModel> LoadTarget(const std::string& target) {
  TargetModel m;
  // The built-in figures were fitted by bench/qualify_accuracy.py on event logs of labelled
  // runs; bench/results/qualify_accuracy_cpu/ holds the fit and its held-out errors.
  if (target == "cpu") {
    m.source =
        "built in: Tandem's CPU path under the plugin (fitted on TPC-H SF1 and the "
        "fallback matrix, bench/results/qualify_accuracy_cpu)";
    m.scan_speedup = 3;
    m.aggregate_speedup = 3;
    m.decimal_aggregate_speedup = 3;
    m.wide_aggregate_speedup = 1.5;
    m.sort_speedup = 1.5;
    m.speedup = 2;
    m.task_fixed_ms = 0;
    m.row_crossing_ns = 0;
    m.shuffle_write_factor = 1.2;
    m.stage_planning_ms = 0;
    m.error_p10 = -0.19;
    m.error_p90 = 0.47;
    return m;
  }
  if (target == "h200") {
    m.name = "h200";
    m.gpu = true;
    m.source =
        "built in: NVIDIA H200 (fitted on TPC-H SF10 from files, odd queries; "
        "bench/results/qualify_accuracy_cpu)";
    m.scan_speedup = 2;
    m.aggregate_speedup = 12;
    m.decimal_aggregate_speedup = 12;
    m.wide_aggregate_speedup = 4;
    m.sort_speedup = 16;
    m.speedup = 6;
    m.task_fixed_ms = 0;
    m.row_crossing_ns = 0;
    m.shuffle_write_factor = 1.2;
    m.stage_planning_ms = 0;
    m.cpu_speedup = 2;
    m.gpu_task_fixed_ms = 40;
    m.min_gpu_work_ms = 0;
    m.pcie_bytes_per_ms = 40e6;
    // Held-out queries' predicted / measured time - 1: the model under-predicts the GPU's gain.
    m.error_p10 = 0.0;
    m.error_p90 = 1.0;
    return m;
  }
  TANDEM_ASSIGN_OR_RAISE(std::string text, ReadTextFile(target));
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Invalid(target +
                           ": not a JSON object (a target is cpu, h200 or a calibration "
                           "file of the model's fields)");
  }
  m.name = j.value("name", target);
  m.source = target;
  auto num = [&](const char* key, double* v) -> Status {
    auto it = j.find(key);
    if (it == j.end()) return Status::OK();
    if (!it->is_number()) return Status::Invalid(target + ": " + key + " must be a number");
    *v = it->get<double>();
    return Status::OK();
  };
  TANDEM_RETURN_NOT_OK(num("speedup", &m.speedup));
  m.scan_speedup = m.aggregate_speedup = m.wide_aggregate_speedup = m.sort_speedup = m.speedup;
  m.decimal_aggregate_speedup = m.speedup;
  TANDEM_RETURN_NOT_OK(num("scan_speedup", &m.scan_speedup));
  TANDEM_RETURN_NOT_OK(num("aggregate_speedup", &m.aggregate_speedup));
  m.wide_aggregate_speedup = m.aggregate_speedup;
  TANDEM_RETURN_NOT_OK(num("wide_aggregate_speedup", &m.wide_aggregate_speedup));
  m.decimal_aggregate_speedup = m.aggregate_speedup;
  TANDEM_RETURN_NOT_OK(num("decimal_aggregate_speedup", &m.decimal_aggregate_speedup));
  TANDEM_RETURN_NOT_OK(num("sort_speedup", &m.sort_speedup));
  TANDEM_RETURN_NOT_OK(num("shuffle_write_factor", &m.shuffle_write_factor));
  TANDEM_RETURN_NOT_OK(num("task_fixed_ms", &m.task_fixed_ms));
  TANDEM_RETURN_NOT_OK(num("row_crossing_ns", &m.row_crossing_ns));
  TANDEM_RETURN_NOT_OK(num("stage_planning_ms", &m.stage_planning_ms));
  TANDEM_RETURN_NOT_OK(num("cpu_speedup", &m.cpu_speedup));
  TANDEM_RETURN_NOT_OK(num("min_gpu_work_ms", &m.min_gpu_work_ms));
  TANDEM_RETURN_NOT_OK(num("gpu_task_fixed_ms", &m.gpu_task_fixed_ms));
  TANDEM_RETURN_NOT_OK(num("pcie_bytes_per_ms", &m.pcie_bytes_per_ms));
  TANDEM_RETURN_NOT_OK(num("error_p10", &m.error_p10));
  TANDEM_RETURN_NOT_OK(num("error_p90", &m.error_p90));
  TANDEM_RETURN_NOT_OK(num("recommend_at", &m.recommend_at));
  m.gpu = j.value("gpu", false);
  for (double v : {m.speedup, m.scan_speedup, m.aggregate_speedup, m.wide_aggregate_speedup,
                   m.decimal_aggregate_speedup, m.sort_speedup, m.cpu_speedup}) {
    if (v <= 0) return Status::Invalid(target + ": speedups must be > 0");
  }
  return m;
}

std::string Category(double speedup_low, double speedup_high, const TargetModel& target) {
  if (speedup_low >= target.recommend_at) return "recommended";
  if (speedup_high < 1.0) return "not recommended";
  return "maybe";
}

Prediction PredictExecution(const ExecutionAnalysis& x, const TargetModel& t, int measured_slots) {
  Prediction p;
  p.measured_ms = x.measured_ms;
  if (x.ran_in_tandem) {
    p.predicted_ms = p.low_ms = p.high_ms = std::max(1.0, x.measured_ms);
    p.speedup = p.speedup_low = p.speedup_high = x.measured_ms / p.predicted_ms;
    p.category = "already in Tandem";
    p.reasons.push_back("it ran with the plugin on: `tandem profile` tells what ran where");
    return p;
  }
  double saved = 0;
  double tandem_work = 0, python_work = 0, spark_work = 0, shuffle = 0;
  int small_stages = 0;
  for (const StageAnalysis& s : x.stages) {
    if (s.wall_ms <= 0 || s.run_ms <= 0) continue;
    const double tasks = double(s.stats->tasks_ended);
    const double tandem = s.tandem_ms();
    double fixed = t.task_fixed_ms;
    double transfer = 0;
    // Tandem's work at each kind's speedup (a GPU target's small stages: its CPU path's).
    const bool small = t.gpu && tandem < t.min_gpu_work_ms;
    double work = small ? tandem / t.cpu_speedup
                        : s.tandem_scan_ms / t.scan_speedup +
                              s.tandem_aggregate_ms / t.aggregate_speedup +
                              s.tandem_wide_aggregate_ms / t.wide_aggregate_speedup +
                              s.tandem_decimal_aggregate_ms / t.decimal_aggregate_speedup +
                              s.tandem_sort_ms / t.sort_speedup + s.tandem_other_ms / t.speedup;
    if (small) ++small_stages;
    if (t.gpu && !small && tandem > 0) {
      fixed += t.gpu_task_fixed_ms;
      transfer = double(s.stats->input_bytes + s.stats->shuffle_read_bytes) / t.pcie_bytes_per_ms;
    }
    double run =
        s.shuffle_write_ms * t.shuffle_write_factor + s.fetch_wait_ms + s.python_ms + s.spark_ms;
    if (tandem > 0) {
      run +=
          work + tasks * fixed + transfer + double(s.rows_out_of_tandem) * t.row_crossing_ns / 1e6;
    }
    // The stage's wall moves by the task time saved over its parallelism, in the target's waves.
    double wall = s.wall_ms - (s.run_ms - run) / s.parallelism;
    if (t.target_slots > 0 && measured_slots > 0) {
      wall *= Waves(tasks, t.target_slots) / Waves(tasks, measured_slots);
    }
    wall = std::max(wall, 1.0) + t.stage_planning_ms * (tandem > 0 ? 1 : 0);
    const double share = s.wall_ms > 0 ? s.exclusive_ms / s.wall_ms : 0;
    saved += (s.wall_ms - wall) * share;
    tandem_work += tandem * share / s.parallelism;
    python_work += s.python_ms * share / s.parallelism;
    spark_work += s.spark_ms * share / s.parallelism;
    shuffle += (s.shuffle_write_ms + s.fetch_wait_ms) * share / s.parallelism;
  }
  p.predicted_ms = std::max(1.0, x.measured_ms - saved);
  p.driver_ms = std::max(0.0, x.measured_ms - x.stage_ms);
  p.shuffle_ms = shuffle;
  p.python_ms = python_work;
  p.spark_ms = spark_work;
  p.tandem_ms = tandem_work;
  // The range: the calibration's errors around the point.
  // An error e means predicted = measured * (1 + e), so the measured time lies in
  // [predicted / (1 + p90), predicted / (1 + p10)].
  p.low_ms = p.predicted_ms / std::max(0.05, 1 + t.error_p90);
  p.high_ms = p.predicted_ms / std::max(0.05, 1 + t.error_p10);
  p.speedup = x.measured_ms / p.predicted_ms;
  p.speedup_low = x.measured_ms / std::max(1.0, p.high_ms);
  p.speedup_high = x.measured_ms / std::max(1.0, p.low_ms);
  p.category = Category(p.speedup_low, p.speedup_high, t);
  if (x.tandem_nodes == 0) {
    // Nothing would change: the model's error band says nothing about an untouched execution.
    p.low_ms = p.high_ms = p.predicted_ms;
    p.speedup_low = p.speedup_high = p.speedup;
    p.category = "not recommended";
  }
  // Reasons, largest first.
  struct Part {
    double ms;
    std::string text;
  };
  std::vector<Part> parts;
  const double d = x.measured_ms;
  if (p.driver_ms > 0.1 * d) {
    parts.push_back({p.driver_ms, Percent(p.driver_ms, d) + " of the time is on the driver "
                                                            "(planning, scheduling, results)"});
  }
  if (python_work > 0.1 * d) {
    parts.push_back({python_work, Percent(python_work, d) +
                                      " of the time is in Python UDFs, which stay in Python"});
  }
  if (spark_work > 0.1 * d) {
    std::string why;
    int most = 0;
    for (const auto& [reason, n] : x.spark_reasons) {
      if (n > most) {
        most = n;
        why = reason;
      }
    }
    parts.push_back({spark_work, Percent(spark_work, d) +
                                     " of the time is in operators left to Spark" +
                                     (why.empty() ? "" : " (" + why + ")")});
  }
  if (shuffle > 0.1 * d) {
    parts.push_back({shuffle, Percent(shuffle, d) + " of the time is in Spark's shuffle"});
  }
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.ms > b.ms; });
  for (const Part& part : parts) p.reasons.push_back(part.text);
  if (small_stages > 0 && t.gpu) {
    p.reasons.push_back(std::to_string(small_stages) +
                        " stage(s) too small for the GPU would run on Tandem's CPU path");
  }
  if (x.tandem_nodes == 0) p.reasons.insert(p.reasons.begin(), "no operator would run in Tandem");
  return p;
}

}  // namespace tandem::qualify
