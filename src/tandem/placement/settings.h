// From settings to planner options: reads tandem.sql.device, tandem.placement.target and the
// calibration file, asks the runtime whether a GPU is usable, and decides what the planner may
// do. Executing needs a real device; explaining may plan for a target GPU on a machine without
// one (`tandem explain --target h200`).
#pragma once

#include <string>

#include "tandem/common/config.h"
#include "tandem/placement/placement.h"

namespace tandem::placement {

enum class PlanPurpose { kExecute, kExplain };

struct PlacementSetup {
  PlacementOptions options;
  std::string target;  // tandem.placement.target
  std::string device;  // tandem.sql.device
  // One line when device=auto fell back to the CPU because no GPU is usable ("" otherwise).
  std::string fallback_notice;
};

// Errors: device=gpu when executing without a usable GPU; a broken calibration file.
Result<PlacementSetup> SetupPlacement(const Config& config, PlanPurpose purpose);

// For explain headers: "device=auto, target=h200: built-in H200 figures ...".
std::string DescribeSetup(const PlacementSetup& setup);

}  // namespace tandem::placement
