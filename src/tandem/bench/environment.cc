// The benchmark's environment: see environment.h.
#include "tandem/bench/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tandem/bench/subprocess.h"
#include "tandem/common/config.h"
#include "tandem/placement/calibration_file.h"

namespace tandem::bench {
namespace {

namespace fs = std::filesystem;

std::string ProcField(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

std::string Machine() {
  std::string cpu = ProcField("/proc/cpuinfo", "model name");
  if (cpu.empty()) cpu = "unknown CPU";
  std::ostringstream out;
  out << cpu << ", " << std::thread::hardware_concurrency() << " cores";
  const std::string mem = ProcField("/proc/meminfo", "MemTotal");  // "131072000 kB"
  if (!mem.empty()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f GiB", std::strtod(mem.c_str(), nullptr) / (1 << 20));
    out << ", " << buf;
  }
  struct utsname u;
  if (::uname(&u) == 0) out << ", " << u.sysname << " " << u.release;
  return out.str();
}

std::string Now() {
  const std::time_t t = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&t, &local);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M %z", &local);
  return buf;
}

fs::path BinaryDir(const std::string& tandem) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(tandem), ec);
  return ec ? fs::path(tandem).parent_path() : p.parent_path();
}

}  // namespace

Environment DescribeEnvironment(const std::string& tandem) {
  Environment env;
  env.date = Now();
  env.machine = Machine();
  env.version = "unknown";
  env.gpu = "unknown";
  Result<ProcessResult> proc = RunProcess({tandem, "version"}, 120);
  if (proc.ok() && proc->exit_code == 0) {
    std::istringstream in(proc->out);
    std::string line;
    if (std::getline(in, line)) env.version = line;
    while (std::getline(in, line)) {
      if (line.rfind("GPU: ", 0) == 0) {
        env.gpu = line.substr(5);
        env.gpu_usable = env.gpu.rfind("none usable", 0) != 0;
      }
    }
  }
  const std::string path = placement::CalibrationPath(Config());
  Result<std::optional<placement::Calibration>> cal = placement::LoadCalibration(path);
  if (!cal.ok()) {
    env.placement_figures = "unreadable calibration file: " + cal.status().message();
  } else if (*cal) {
    env.placement_figures =
        "calibration file " + path + " (created " + (*cal)->created + " on " + (*cal)->host + ")";
  } else {
    env.placement_figures =
        "built-in figures (no calibration file" + (path.empty() ? "" : " at " + path) + ")";
  }
  return env;
}

std::string FindRepositoryRoot(const std::string& tandem) {
  std::error_code ec;
  for (fs::path start : {BinaryDir(tandem), fs::current_path(ec)}) {
    for (fs::path p = start; !p.empty(); p = p.parent_path()) {
      if (fs::exists(p / "tests" / "tpch" / "queries" / "q01.sql", ec)) return p.string();
      if (p == p.parent_path()) break;
    }
  }
  return "";
}

std::string FindExampleUdfLibrary(const std::string& tandem) {
  std::error_code ec;
  const fs::path lib = BinaryDir(tandem) / "examples" / "udf" / "libtandem_example_udf.so";
  return fs::exists(lib, ec) ? lib.string() : "";
}

}  // namespace tandem::bench
