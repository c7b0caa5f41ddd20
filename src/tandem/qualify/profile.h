// `tandem profile`: what an application run with the plugin did, per SQL execution: the
// TandemExec nodes (the device each ran on, its time in Tandem and on the GPU, bytes across
// PCIe, peak native memory, spill), the operators left in Spark and why the plugin's table says
// they stay, the share of task time spent in Tandem, and advice, each line with the measured
// figures behind it.
#pragma once

#include <string>
#include <vector>

#include "tandem/qualify/app_model.h"
#include "tandem/spark/fragment_json.h"

namespace tandem::qualify {

struct TandemNodeProfile {
  std::string summary;  // "top_n#9(project#8(...)) on cpu"
  std::string device;   // cpu, gpu, gpu+cpu
  double tandem_ms = 0, gpu_ms = 0;
  int64_t pcie_bytes = 0, peak_bytes = 0, spill_bytes = 0, rows = 0;
};

struct ExecutionProfile {
  int64_t id = -1;
  std::string description;
  double measured_ms = 0;
  double task_ms = 0;  // executor run time of its stages
  double tandem_ms = 0, gpu_ms = 0;
  int64_t pcie_bytes = 0, spill_bytes = 0, peak_bytes = 0;
  std::vector<TandemNodeProfile> tandem_nodes;
  std::vector<std::pair<std::string, std::string>> spark_nodes;  // (operator, why it stays)
  std::vector<std::string> advice;
  std::string error;
};

struct AppProfile {
  std::string id, name;
  bool plugin = false;  // the log shows spark.plugins with Tandem's
  std::vector<std::string> notes;
  std::vector<ExecutionProfile> executions;
  std::vector<std::string> advice;  // for the application
};

AppProfile ProfileApplication(const Application& app);

std::string RenderProfileText(const std::vector<AppProfile>& apps);
spark::Json RenderProfileJson(const std::vector<AppProfile>& apps);

}  // namespace tandem::qualify
