// `tandem bench fallback|tpch ...`: the benchmarks of docs/benchmarks.md. Each cell runs in a
// fresh `tandem sql` process of this same binary (/proc/self/exe); the report goes to --out as
// report.html (self-contained, with charts), results.csv and results.md. Progress goes to
// stderr, the report's folder to stdout.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tandem/bench/environment.h"
#include "tandem/bench/fallback_bench.h"
#include "tandem/bench/report.h"
#include "tandem/bench/report_reader.h"
#include "tandem/bench/subprocess.h"
#include "tandem/bench/tpch_bench.h"
#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/config.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "bench fallback [--rows 1000000,10000000,50000000] [--modes cpu,gpu,auto] [--reps 3] "
    "[--runs 1] [--udf LIB] [--conditions a,b] [--data DIR] [--threads N] [--out DIR] | "
    "bench tpch [--sf 1] [--modes cpu,gpu,auto] [--sources files,hot] [--queries 1,6] "
    "[--reps 3] [--runs 1] [--warmups 2] [--duckdb auto|on|off] [--data DIR] [--threads N] "
    "[--conf KEY=VALUE]... [--out DIR] | "
    "bench report DIR [--out DIR]";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || n < min || n > max) return false;
  *out = n;
  return true;
}

bool ValidModes(const std::vector<std::string>& modes) {
  if (modes.empty()) return false;
  for (const std::string& m : modes) {
    if (m != "cpu" && m != "gpu" && m != "auto") return false;
  }
  return true;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line = "tandem bench";
  for (const std::string& a : argv) line += " " + a;
  return line;
}

void Log(const std::string& line) {
  std::fprintf(stderr, "bench: %s\n", line.c_str());
  std::fflush(stderr);
}

int Finish(Result<bench::Report> report, const std::string& out) {
  if (!report.ok()) return Fail(report.status().ToString());
  if (Status st = bench::WriteReport(out, *report); !st.ok()) return Fail(st.ToString());
  std::printf("%s\n", out.c_str());
  return 0;  // main() checks that standard output was written
}

// Options both benchmarks share; returns true when `arg` was one of them (or an error code).
struct Common {
  std::vector<std::string> modes = {"cpu", "gpu", "auto"};
  int reps = 3;
  int runs = 1;
  int threads = 0;
  std::string data;
  std::string out;
  double timeout_s = 1800;
};

// 0: not a common option; 1: taken; otherwise the exit code of a usage error (negated).
int TakeCommon(ArgReader& reader, Common* common) {
  const std::string arg = reader.arg();
  std::string value;
  int64_t n = 0;
  if (arg != "--modes" && arg != "--reps" && arg != "--runs" && arg != "--threads" &&
      arg != "--data" && arg != "--out" && arg != "--timeout") {
    return 0;
  }
  if (!reader.TakeValue(&value)) return -UsageError(arg + " needs a value");
  if (arg == "--modes") {
    common->modes = SplitList(value);
    if (!ValidModes(common->modes)) return -UsageError("--modes takes cpu, gpu and/or auto");
  } else if (arg == "--reps") {
    if (!ParseInt(value, 1, 1000, &n)) return -UsageError("--reps needs an integer from 1");
    common->reps = static_cast<int>(n);
  } else if (arg == "--runs") {
    if (!ParseInt(value, 1, 100, &n)) return -UsageError("--runs needs an integer from 1 to 100");
    common->runs = static_cast<int>(n);
  } else if (arg == "--threads") {
    if (!ParseInt(value, 0, 4096, &n)) return -UsageError("--threads needs 0..4096");
    common->threads = static_cast<int>(n);
  } else if (arg == "--timeout") {
    if (!ParseInt(value, 1, 86400, &n)) return -UsageError("--timeout needs seconds");
    common->timeout_s = static_cast<double>(n);
  } else if (arg == "--data") {
    common->data = value;
  } else {
    common->out = value;
  }
  return 1;
}

int RunFallback(const std::vector<std::string>& argv, const std::string& self) {
  bench::FallbackBenchOptions options;
  Common common;
  ArgReader reader(argv);
  reader.Next();  // "fallback"
  while (reader.Next()) {
    if (int taken = TakeCommon(reader, &common); taken < 0) {
      return -taken;
    } else if (taken) {
      continue;
    }
    const std::string arg = reader.arg();
    std::string value;
    if (arg == "--rows") {
      if (!reader.TakeValue(&value)) return UsageError("--rows needs a list of row counts");
      options.rows.clear();
      for (const std::string& item : SplitList(value)) {
        int64_t n = 0;
        if (!ParseInt(item, 1, int64_t{1} << 40, &n)) {
          return UsageError("--rows needs positive integers, got '" + item + "'");
        }
        options.rows.push_back(n);
      }
      if (options.rows.empty()) return UsageError("--rows needs at least one row count");
    } else if (arg == "--udf") {
      if (!reader.TakeValue(&value) || value.empty()) return UsageError("--udf needs a library");
      options.udf_library = value;
    } else if (arg == "--conditions") {
      if (!reader.TakeValue(&value)) return UsageError("--conditions needs a list");
      options.conditions = SplitList(value);
    } else {
      return UsageError("unknown argument '" + arg + "'");
    }
  }
  options.tandem = self;
  options.modes = common.modes;
  options.reps = common.reps;
  options.runs_per_process = common.runs;
  options.threads = common.threads;
  options.timeout_s = common.timeout_s;
  const std::string root = bench::FindRepositoryRoot(self);
  options.data_dir = !common.data.empty() ? common.data
                     : root.empty()       ? "data/fallback"
                                          : root + "/data/fallback";
  if (options.udf_library.empty()) options.udf_library = bench::FindExampleUdfLibrary(self);
  options.command_line = CommandLine(argv);
  options.log = Log;
  const std::string out = common.out.empty() ? "bench-fallback" : common.out;
  return Finish(bench::RunFallbackBench(options), out);
}

int RunTpch(const std::vector<std::string>& argv, const std::string& self) {
  bench::TpchBenchOptions options;
  Common common;
  ArgReader reader(argv);
  reader.Next();  // "tpch"
  while (reader.Next()) {
    if (int taken = TakeCommon(reader, &common); taken < 0) {
      return -taken;
    } else if (taken) {
      continue;
    }
    const std::string arg = reader.arg();
    std::string value;
    if (!reader.TakeValue(&value)) return UsageError(arg + " needs a value");
    if (arg == "--sf") {
      const double sf = std::strtod(value.c_str(), nullptr);
      if (!(sf >= 0.01) || sf > 1000) return UsageError("--sf needs a number from 0.01 to 1000");
      options.sf = value;
    } else if (arg == "--sources") {
      options.sources = SplitList(value);
      for (const std::string& s : options.sources) {
        if (s != "files" && s != "hot") return UsageError("--sources takes files and/or hot");
      }
      if (options.sources.empty()) return UsageError("--sources takes files and/or hot");
    } else if (arg == "--queries") {
      for (const std::string& item : SplitList(value)) {
        int64_t n = 0;
        if (!ParseInt(item, 1, 22, &n)) return UsageError("--queries takes numbers 1..22");
        options.queries.push_back(static_cast<int>(n));
      }
    } else if (arg == "--duckdb") {
      if (value != "auto" && value != "on" && value != "off") {
        return UsageError("--duckdb takes auto, on or off");
      }
      options.duckdb = value;
    } else if (arg == "--warmups") {
      int64_t n = 0;
      if (!ParseInt(value, 1, 10, &n)) return UsageError("--warmups needs an integer from 1 to 10");
      options.warmups = static_cast<int>(n);
    } else if (arg == "--conf") {
      // Checked here, so that a misspelt key is one usage error, not 22 failed cells.
      Config check;
      if (Status st = check.SetAssignment(value); !st.ok()) {
        return UsageError("--conf " + value + ": " + st.message());
      }
      const std::string key = Config::CanonicalName(value.substr(0, value.find('=')));
      if (key == config_keys::kDevice || key == config_keys::kThreads) {
        return UsageError("--conf " + value + ": use --modes and --threads");
      }
      options.settings.push_back(value);
    } else {
      return UsageError("unknown argument '" + arg + "'");
    }
  }
  options.tandem = self;
  options.modes = common.modes;
  options.reps = common.reps;
  options.runs_per_process = common.runs;
  options.threads = common.threads;
  options.timeout_s = common.timeout_s;
  options.data_dir = common.data;
  options.command_line = CommandLine(argv);
  options.log = Log;
  const std::string out = common.out.empty() ? "bench-tpch-sf" + options.sf : common.out;
  return Finish(bench::RunTpchBench(options), out);
}

// `bench report DIR [--out DIR2]`: renders a written report again (into DIR2, default DIR).
int RunReport(const std::vector<std::string>& argv) {
  ArgReader reader(argv);
  reader.Next();  // "report"
  std::string dir, out;
  while (reader.Next()) {
    const std::string arg = reader.arg();
    if (arg == "--out") {
      if (!reader.TakeValue(&out) || out.empty()) return UsageError("--out needs a folder");
    } else if (dir.empty() && !reader.is_option()) {
      dir = arg;
    } else {
      return UsageError("unknown argument '" + arg + "'");
    }
  }
  if (dir.empty()) return UsageError("bench report needs the folder of a written report");
  return Finish(bench::ReadReport(dir), out.empty() ? dir : out);
}

int RunBench(const std::vector<std::string>& argv) {
  if (argv.empty()) return UsageError("bench needs a benchmark: fallback or tpch");
  if (argv[0] == "report") return RunReport(argv);
  const std::string self = bench::SelfExecutable();
  if (self.empty()) return Fail("cannot find this program's path (/proc/self/exe)");
  if (argv[0] == "fallback") return RunFallback(argv, self);
  if (argv[0] == "tpch") return RunTpch(argv, self);
  return UsageError("unknown benchmark '" + argv[0] + "' (fallback, tpch or report)");
}

}  // namespace

TANDEM_REGISTER_COMMAND(bench, "bench", kUsage, RunBench);

}  // namespace tandem::cli
