// Reading and writing the calibration JSON (see calibration_file.h).
#include "tandem/placement/calibration_file.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tandem/common/atomic_file.h"
#include "tandem/common/text.h"

namespace tandem::placement {
namespace {

using Json = nlohmann::json;
constexpr int kFormatVersion = 1;

Json ProfileToJson(const DeviceProfile& p) {
  Json t = Json::object();
  for (int i = 0; i < kNumOpClasses; ++i) {
    t[OpClassName(static_cast<OpClass>(i))] = p.throughput[static_cast<size_t>(i)];
  }
  return Json{{"throughput_bytes_per_s", t},
              {"operator_fixed_s", p.operator_fixed_s},
              {"query_fixed_s", p.query_fixed_s},
              {"startup_s", p.startup_s},
              {"file_scan_bytes_per_s", p.file_scan_bytes_per_s}};
}

Status Bad(const std::string& what) { return Status::Invalid("calibration: " + what); }

Result<double> PositiveNumber(const Json& j, const std::string& key, bool allow_zero) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return Bad("missing number " + key);
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || (!allow_zero && v == 0)) {
    return Bad(key + " must be a " + (allow_zero ? "non-negative" : "positive") + " number");
  }
  return v;
}

Result<DeviceProfile> ProfileFromJson(const Json& j, const std::string& where,
                                      const DeviceProfile& fallback) {
  if (!j.is_object()) return Bad(where + " must be an object");
  DeviceProfile p = fallback;
  auto t = j.find("throughput_bytes_per_s");
  if (t == j.end() || !t->is_object()) return Bad(where + ".throughput_bytes_per_s missing");
  for (int i = 0; i < kNumOpClasses; ++i) {
    const std::string name = OpClassName(static_cast<OpClass>(i));
    if (!t->contains(name)) continue;  // not measured: keep the built-in figure
    Result<double> v = PositiveNumber(*t, name, false);
    if (!v.ok()) return Bad(where + ".throughput_bytes_per_s." + name + " must be positive");
    p.throughput[static_cast<size_t>(i)] = *v;
  }
  Result<double> op = PositiveNumber(j, "operator_fixed_s", true);
  if (!op.ok()) return Bad(where + ": " + op.status().message());
  Result<double> q = PositiveNumber(j, "query_fixed_s", true);
  if (!q.ok()) return Bad(where + ": " + q.status().message());
  p.operator_fixed_s = *op;
  p.query_fixed_s = *q;
  if (j.contains("startup_s")) {
    Result<double> startup = PositiveNumber(j, "startup_s", true);
    if (!startup.ok()) return Bad(where + ": " + startup.status().message());
    p.startup_s = *startup;
  }
  if (j.contains("file_scan_bytes_per_s")) {  // absent or 0: keep the built-in figure
    Result<double> scan = PositiveNumber(j, "file_scan_bytes_per_s", true);
    if (!scan.ok()) return Bad(where + ": " + scan.status().message());
    if (*scan > 0) p.file_scan_bytes_per_s = *scan;
  }
  return p;
}

}  // namespace

std::string CalibrationPath(const Config& config) {
  const std::string configured = config.Get(config_keys::kCalibrationFile);
  if (!configured.empty()) return configured;
  if (const char* env = std::getenv("TANDEM_CALIBRATION"); env && *env) return env;
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (std::filesystem::path(home) / ".config" / "tandem" / "calibration.json").string();
  }
  return "";
}

std::string CalibrationToJson(const Calibration& c) {
  Json j{{"version", kFormatVersion},    {"created", c.created}, {"host", c.host},
         {"cpu_threads", c.cpu_threads}, {"rows", c.rows},       {"cpu", ProfileToJson(c.cpu)}};
  if (c.has_gpu) {
    Json gpu = ProfileToJson(c.gpu);
    gpu["name"] = c.gpu_name;
    j["gpu"] = gpu;
    j["transfer"] = Json{{"host_to_device_bytes_per_s", c.transfer.host_to_device_bytes_per_s},
                         {"device_to_host_bytes_per_s", c.transfer.device_to_host_bytes_per_s},
                         {"fixed_s", c.transfer.fixed_s}};
  }
  return j.dump(2) + "\n";
}

Result<Calibration> CalibrationFromJson(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Bad("not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kFormatVersion) {
    return Bad("unknown version (expected " + std::to_string(kFormatVersion) + ")");
  }
  Calibration c;
  if (j.contains("created") && j["created"].is_string()) c.created = j["created"];
  if (j.contains("host") && j["host"].is_string()) c.host = j["host"];
  if (j.contains("cpu_threads") && j["cpu_threads"].is_number_integer()) {
    c.cpu_threads = j["cpu_threads"];
  }
  if (j.contains("rows") && j["rows"].is_number_integer()) c.rows = j["rows"];
  if (!j.contains("cpu")) return Bad("missing cpu section");
  TANDEM_ASSIGN_OR_RAISE(c.cpu, ProfileFromJson(j["cpu"], "cpu", BuiltinGenericCpu()));
  if (c.cpu_threads > 0) c.cpu.threads = c.cpu_threads;
  if (j.contains("gpu")) {
    TANDEM_ASSIGN_OR_RAISE(c.gpu, ProfileFromJson(j["gpu"], "gpu", BuiltinH200()));
    if (j["gpu"].contains("name") && j["gpu"]["name"].is_string()) c.gpu_name = j["gpu"]["name"];
    if (!j.contains("transfer") || !j["transfer"].is_object()) return Bad("missing transfer");
    const Json& t = j["transfer"];
    TANDEM_ASSIGN_OR_RAISE(c.transfer.host_to_device_bytes_per_s,
                           PositiveNumber(t, "host_to_device_bytes_per_s", false));
    TANDEM_ASSIGN_OR_RAISE(c.transfer.device_to_host_bytes_per_s,
                           PositiveNumber(t, "device_to_host_bytes_per_s", false));
    TANDEM_ASSIGN_OR_RAISE(c.transfer.fixed_s, PositiveNumber(t, "fixed_s", true));
    c.has_gpu = true;
  }
  return c;
}

Result<std::optional<Calibration>> LoadCalibration(const std::string& path) {
  if (path.empty()) return std::optional<Calibration>();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<Calibration>();
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return Status::IOError("calibration file: " + text.status().message());
  Result<Calibration> c = CalibrationFromJson(*text);
  if (!c.ok()) {
    return Status::Invalid("calibration file " + path + ": " + c.status().message() +
                           " (run `tandem calibrate` again or remove the file)");
  }
  return std::optional<Calibration>(std::move(*c));
}

Result<std::optional<Calibration>> LoadConfiguredCalibration(const Config& config) {
  const std::string path = CalibrationPath(config);
  std::error_code ec;
  if (!config.Get(config_keys::kCalibrationFile).empty() && !std::filesystem::exists(path, ec)) {
    return Status::Invalid("calibration file " + path + " (named by " +
                           config_keys::kCalibrationFile +
                           ") does not exist; run `tandem calibrate` to write it");
  }
  return LoadCalibration(path);
}

Status SaveCalibration(const std::string& path, const Calibration& calibration) {
  if (path.empty()) {
    return Status::Invalid(
        "no place for the calibration file: set HOME, TANDEM_CALIBRATION or "
        "tandem.placement.calibrationFile");
  }
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) {
      return Status::IOError("cannot create " + target.parent_path().string() + ": " +
                             ec.message());
    }
  }
  const std::string text = CalibrationToJson(calibration);
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  TANDEM_RETURN_NOT_OK(file->Write(text.data(), text.size()));
  return file->Commit();
}

}  // namespace tandem::placement
