// Settings -> planner options (see settings.h).
#include "tandem/placement/settings.h"

#include <cstdio>

#include "tandem/gpu/runtime.h"
#include "tandem/placement/calibration_file.h"

namespace tandem::placement {

Result<PlacementSetup> SetupPlacement(const Config& config, PlanPurpose purpose) {
  PlacementSetup setup;
  setup.device = config.Get(config_keys::kDevice);
  setup.target = config.Get(config_keys::kPlacementTarget);
  PlacementOptions& o = setup.options;
  o.mode = setup.device == "gpu"   ? DeviceMode::kGpu
           : setup.device == "cpu" ? DeviceMode::kCpu
                                   : DeviceMode::kAuto;
  o.min_gain = config.GetDouble(config_keys::kPlacementMinGain);

  const std::string path = CalibrationPath(config);
  TANDEM_ASSIGN_OR_RAISE(std::optional<Calibration> calibration, LoadConfiguredCalibration(config));
  o.profile.cpu = calibration ? calibration->cpu : BuiltinGenericCpu();
  const std::string cpu_source =
      calibration ? "CPU calibrated (" + path + ")" : std::string("built-in generic CPU figures");

  std::string why_not;
  const bool usable = o.mode != DeviceMode::kCpu && gpu::DeviceUsable(&why_not);
  const std::string unsupported_prefix = "not supported yet: ";
  if (why_not.rfind(unsupported_prefix, 0) == 0) why_not.erase(0, unsupported_prefix.size());
  if (why_not.empty()) why_not = "no CUDA device";

  if (setup.target == "cpu-only") {
    o.profile.description = cpu_source;
    o.gpu_allowed = false;
    o.no_gpu_reason = "tandem.placement.target=cpu-only";
    return setup;
  }
  // A calibration measured on an H200 also serves plans for the h200 target.
  const bool calibrated_gpu =
      calibration && calibration->has_gpu &&
      (setup.target != "h200" || calibration->gpu_name.find("H200") != std::string::npos);
  if (!calibrated_gpu) {
    o.profile.has_gpu = true;
    o.profile.gpu_name = "NVIDIA H200";
    o.profile.gpu = BuiltinH200();
    o.profile.transfer = BuiltinH200Transfer();
    o.profile.description = "built-in H200 figures, " + cpu_source;
  } else {
    o.profile.has_gpu = true;
    o.profile.gpu_name = calibration->gpu_name;
    o.profile.gpu = calibration->gpu;
    o.profile.transfer = calibration->transfer;
    o.profile.description = "calibrated (" + path + ")";
  }
  // Planning for a named target needs no device unless the plan will run.
  const bool explain_for_target = purpose == PlanPurpose::kExplain && setup.target != "auto";
  o.gpu_allowed = usable || explain_for_target;
  // A named target is planned for a running engine; this machine's plans pay the start-up while
  // the runtime has not started in this process.
  o.include_gpu_startup =
      usable && !explain_for_target && gpu::GetPoolStats().pool_limit_bytes == 0;
  // A start-up already under way in the background (tandem sql starts one) costs only its rest.
  if (o.include_gpu_startup) {
    o.profile.gpu.startup_s = gpu::RuntimeStartupRemaining(o.profile.gpu.startup_s);
  }
  if (!o.gpu_allowed) {
    o.no_gpu_reason = "no usable GPU (" + why_not + ")";
    if (o.mode == DeviceMode::kGpu && purpose == PlanPurpose::kExecute) {
      return Status::Invalid("tandem.sql.device=gpu but no GPU is usable (" + why_not +
                             "); set tandem.sql.device=auto or cpu");
    }
    if (o.mode == DeviceMode::kAuto && purpose == PlanPurpose::kExecute) {
      setup.fallback_notice = "no usable GPU (" + why_not + "); running on the CPU";
    }
  }
  return setup;
}

std::string DescribeSetup(const PlacementSetup& setup) {
  std::string s = "device=" + setup.device + ", target=" + setup.target;
  if (setup.options.mode == DeviceMode::kCpu) return s;
  if (!setup.options.gpu_allowed) return s + ", " + setup.options.no_gpu_reason;
  s += ", " + setup.options.profile.description;
  if (setup.options.include_gpu_startup) {
    char startup[96];
    std::snprintf(startup, sizeof(startup), ", GPU start-up %.0f ms priced (first use here)",
                  setup.options.profile.gpu.startup_s * 1e3);
    s += startup;
  }
  return s;
}

}  // namespace tandem::placement
