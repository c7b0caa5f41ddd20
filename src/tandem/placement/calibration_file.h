// The calibration file: what `tandem calibrate` measured on this machine (CPU operator
// throughputs, and GPU ones plus transfer bandwidth when a device was usable), as JSON at
// tandem.placement.calibrationFile, else $TANDEM_CALIBRATION, else
// ~/.config/tandem/calibration.json. Written atomically (temporary file, then rename).
#pragma once

#include <optional>
#include <string>

#include "tandem/common/config.h"
#include "tandem/common/status.h"
#include "tandem/placement/cost_model.h"

namespace tandem::placement {

struct Calibration {
  std::string created;  // ISO 8601 UTC
  std::string host;     // hostname
  int cpu_threads = 0;
  int64_t rows = 0;  // synthetic rows measured per operator
  DeviceProfile cpu;
  bool has_gpu = false;
  std::string gpu_name;
  DeviceProfile gpu;
  TransferProfile transfer;
};

// Where the file is read from and written to ("" when neither the setting, the variable nor
// $HOME gives a place).
std::string CalibrationPath(const Config& config);

// The calibration at `path`; nullopt when no file exists there. A file that exists but cannot be
// read or parsed is an error naming it.
Result<std::optional<Calibration>> LoadCalibration(const std::string& path);
// The calibration the settings name: as above, except that a file named by the setting
// tandem.placement.calibrationFile must exist ($TANDEM_CALIBRATION and the default place name
// where `tandem calibrate` writes, and may still be empty).
Result<std::optional<Calibration>> LoadConfiguredCalibration(const Config& config);

// JSON text of a calibration, and back.
std::string CalibrationToJson(const Calibration& calibration);
Result<Calibration> CalibrationFromJson(const std::string& text);

// Writes atomically, creating the directory when missing.
Status SaveCalibration(const std::string& path, const Calibration& calibration);

}  // namespace tandem::placement
