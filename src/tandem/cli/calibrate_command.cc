// `tandem calibrate`: measures this machine's operator throughputs (CPU, and GPU plus transfer
// bandwidth when a device is usable) for the placement cost model and writes them, atomically, to
// the calibration file (--output, else tandem.placement.calibrationFile, $TANDEM_CALIBRATION or
// ~/.config/tandem/calibration.json). Progress goes to stderr; the file's path to stdout.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/config.h"
#include "tandem/gpu/memory_config.h"
#include "tandem/placement/calibrate.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "calibrate [--output FILE] [--rows N] [--threads N] [--repeats N] [--cpu-only] "
    "[--conf KEY=VALUE]...";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

bool ParseCount(const std::string& text, int64_t min, int64_t max, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || n < min || n > max) return false;
  *out = n;
  return true;
}

int RunCalibrate(const std::vector<std::string>& argv) {
  placement::CalibrateOptions options;
  Config config;
  std::string output;
  ArgReader reader(argv);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    std::string value;
    int64_t n = 0;
    if (arg == "--output" || arg == "-o") {
      if (!reader.TakeValue(&value) || value.empty()) return UsageError(arg + " needs a file");
      output = value;
    } else if (arg == "--rows") {
      if (!reader.TakeValue(&value) || !ParseCount(value, 1000, int64_t{1} << 40, &n)) {
        return UsageError("--rows needs an integer of at least 1000");
      }
      options.rows = n;
    } else if (arg == "--threads") {
      if (!reader.TakeValue(&value) || !ParseCount(value, 0, 4096, &n)) {
        return UsageError("--threads needs an integer from 0 (all cores) to 4096");
      }
      options.threads = static_cast<int>(n);
    } else if (arg == "--repeats") {
      if (!reader.TakeValue(&value) || !ParseCount(value, 1, 100, &n)) {
        return UsageError("--repeats needs an integer from 1 to 100");
      }
      options.repeats = static_cast<int>(n);
    } else if (arg == "--cpu-only") {
      if (reader.has_inline_value()) return UsageError("--cpu-only takes no value");
      options.measure_gpu = false;
    } else if (arg == "--conf") {
      if (!reader.TakeValue(&value)) return UsageError("--conf needs KEY=VALUE");
      if (Status st = config.SetAssignment(value); !st.ok()) return UsageError(st.message());
    } else {
      return UsageError("unknown argument '" + arg + "'");
    }
  }
  options.gpu_memory = gpu::DeviceMemoryConfigFrom(config);
  if (output.empty()) output = placement::CalibrationPath(config);
  Result<placement::Calibration> calibration = placement::Calibrate(
      options, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  if (!calibration.ok()) return Fail(calibration.status().ToString());
  if (Status st = placement::SaveCalibration(output, *calibration); !st.ok()) {
    return Fail(st.ToString());
  }
  std::printf("%s\n", output.c_str());
  return 0;  // main() checks that standard output was written
}

}  // namespace

TANDEM_REGISTER_COMMAND(calibrate, "calibrate", kUsage, RunCalibrate);

}  // namespace tandem::cli
