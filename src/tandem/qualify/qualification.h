// One application qualified: its log read, its SQL executions analysed and predicted for a
// target, and the application's own time and cost with Tandem: its duration less what its
// executions save (they run one after another in the logs Spark writes per application; an
// overlap would only make the saving smaller than counted here, which the range allows for).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/qualify/app_model.h"
#include "tandem/qualify/execution_analysis.h"
#include "tandem/qualify/wall_model.h"

namespace tandem::qualify {

struct Prices {
  double cpu_node_per_hour = 0;  // 0: unknown (no cost estimate)
  double gpu_node_per_hour = 0;
  int nodes = 0;  // 0: the executors' hosts seen in the log
};

struct AppQualification {
  std::unique_ptr<Application> app;  // owned here: the analyses point into it
  std::vector<ExecutionAnalysis> executions;
  std::vector<Prediction> predictions;  // one per execution
  double measured_ms = 0, predicted_ms = 0, low_ms = 0, high_ms = 0;
  double speedup = 1, speedup_low = 1, speedup_high = 1;
  std::string category;
  int slots = 0;  // task slots the log shows (executor cores)
  // Cost of the application's run (measured, on CPU nodes) and predicted on the target.
  double cost_now = 0, cost_target = 0;
  std::vector<std::string> settings;  // Spark settings to start with on the target
};

AppQualification Qualify(std::unique_ptr<Application> app, const TargetModel& target,
                         const Prices& prices);

}  // namespace tandem::qualify
