// The registered settings and their validation (see config.h).
#include "tandem/common/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tandem/common/oom_injection.h"
#include "tandem/common/text.h"

namespace tandem {
namespace {

ConfigKey Enum(std::string name, std::string def, std::vector<std::string> allowed,
               std::string doc) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = ConfigType::kEnum;
  k.default_value = std::move(def);
  k.allowed = std::move(allowed);
  k.doc = std::move(doc);
  return k;
}

ConfigKey Number(std::string name, ConfigType type, std::string def, double min, double max,
                 std::string doc, bool min_exclusive = false) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = type;
  k.default_value = std::move(def);
  k.min = min;
  k.max = max;
  k.min_exclusive = min_exclusive;
  k.doc = std::move(doc);
  return k;
}

ConfigKey Plain(std::string name, ConfigType type, std::string def, std::string doc,
                Result<std::string> (*normalize)(const std::string&) = nullptr) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = type;
  k.default_value = std::move(def);
  k.doc = std::move(doc);
  k.normalize = normalize;
  return k;
}

Result<std::string> NormalizeOomInjection(const std::string& value) {
  TANDEM_ASSIGN_OR_RAISE(OomInjection injection, ParseOomInjection(value));
  return OomInjectionText(injection);
}

std::vector<ConfigKey> MakeKeys() {
  using namespace config_keys;
  constexpr double kMaxBytes = 1e15;  // 1 PB: anything above is a typo
  return {
      Enum(kDevice, "auto", {"auto", "gpu", "cpu"},
           "where operators run: auto (the cost model decides; the CPU when no GPU is usable), "
           "gpu (every operator the GPU supports), cpu"),
      Enum(kExplain, "NONE", {"ALL", "NOT_ON_GPU", "NONE"},
           "print each operator's device and why on stderr when a query is planned: ALL, only "
           "those NOT_ON_GPU, or NONE"),
      Plain(kAnsi, ConfigType::kBool, "false",
            "ANSI mode: division by zero is an error instead of NULL"),
      Number(kThreads, ConfigType::kInt, "0", 0, 4096, "CPU threads per query (0: all cores)"),
      Plain(kJoinOrderByBytes, ConfigType::kBool, "true",
            "join ordering joins first the inputs whose join is smallest in bytes (estimated "
            "rows times the width of the columns they carry), so wide rows join late and stay "
            "out of hash tables a large input probes; false: smallest in rows"),
      Enum(kJoinOrder, "greedy", {"greedy", "dp"},
           "how inner joins are ordered: greedy (repeatedly the smallest join, over the "
           "predicates as written) or dp (the cheapest tree by dynamic programming, inputs "
           "whose columns are equal through other inputs joined directly; greedy over those "
           "classes beyond 10 inputs or where a cross product is needed); measured in "
           "bench/results/join_order_dp_2026-12-06.md"),
      Plain(kPipelines, ConfigType::kBool, "true",
            "run CPU operators as push-based pipelines (batches stream from a scan through "
            "filters, projections and join probes into the next aggregation or build); false: "
            "one operator at a time over whole tables, for comparison"),
      Plain(kDictionaryConditions, ConfigType::kBool, "true",
            "CPU Parquet scans test a filter's conditions on single columns on the dictionaries "
            "of dictionary-encoded chunks and build only the rows kept; false: every row is "
            "decoded and filtered, for comparison"),
      Number(kCpuBatchRows, ConfigType::kInt, "131072", 1024, 16777216,
             "rows per batch a CPU pipeline pushes through its operators (a Parquet row group "
             "cut into pieces of this size, a table in memory into morsels of it): large enough "
             "to spread per-batch work, small enough to stay in the caches"),
      Number(kCpuScanPieceRows, ConfigType::kInt, "0", 0, 16777216,
             "a CPU pipeline's Parquet scan decodes each row group on one thread in pieces of "
             "this many rows, every piece going through the pipeline before the next is decoded "
             "(0: the row group's column chunks are decoded on all threads, then cut into "
             "batches)"),
      Number(kGpuChunkBytes, ConfigType::kBytes, "0", 0, kMaxBytes,
             "a GPU part whose input comes from host memory (a table cached there, the CPU's "
             "rows) runs over slices of about this many bytes when the input is larger, "
             "aggregations partially per slice (bytes; 0: a quarter of the GPU memory the "
             "process may use)"),
      Number(kGpuHashPartitions, ConfigType::kInt, "0", 0, 4096,
             "a GPU part over tables cached in GPU memory runs in this many hash partitions of "
             "the key its equi-joins share (each join on the key and aggregation by it sees one "
             "partition at a time), when the plan allows (0 or 1: only when the part's "
             "estimated peak passes the room left on the GPU, or after it ran out of GPU "
             "memory whole, in 4, 16, then 64)"),
      Plain(kParquetGpuDecompress, ConfigType::kBool, "false",
            "GPU scans of Parquet files send compressed data pages to the GPU compressed, where "
            "nvCOMP decompresses them and one thread per page parses them (SNAPPY, ZSTD, LZ4_RAW, "
            "GZIP; a chunk they refuse is read on the host); false: host threads decompress and "
            "parse the pages (off: chunk by chunk it ran 5.5-7.7x slower on an H100, and its "
            "batched form has not run on a GPU yet)"),
      Plain(kGpuPrefetchSlices, ConfigType::kBool, "true",
            "a GPU part that runs over slices of rows from host memory or of Parquet files makes "
            "the next slice's input (reads, decodes, uploads it) on another thread and stream "
            "while the GPU runs the current one, when the GPU has room for both; false: one "
            "slice after the other, for comparison"),
      Plain(kGpuSpillInputs, ConfigType::kBool, "true",
            "a GPU operator whose later input runs out of GPU memory moves the columns only its "
            "earlier inputs hold to host memory, runs that input again, and brings them back, "
            "before the part runs in pieces or on the CPU; false: straight to those"),
      Enum(kGpuGeneratedKernels, "off", {"off", "wait", "background"},
           "GPU expressions run in kernels generated for each expression, and GPU aggregates "
           "of counts and sums in one fused kernel each, compiled at run time (NVRTC), which "
           "keep values in registers instead of interpreting a program per row: wait compiles "
           "(or reads from tandem.exec.gpu.kernelCacheDir) before the first launch, background "
           "compiles on another thread and interprets until the kernel is ready, off always "
           "interprets"),
      Plain(kGpuKernelCacheDir, ConfigType::kString, "",
            "directory where generated GPU kernels are kept between processes (empty: "
            "$XDG_CACHE_HOME/tandem/kernels, else ~/.cache/tandem/kernels)"),
      Number(kConcurrentGpuTasks, ConfigType::kInt, "2", 1, 1024,
             "queries and Spark plan fragments (tasks) of one process that may use the GPU at "
             "once; each is also admitted against its estimated peak of GPU memory, so that "
             "those running together fit the GPU; others wait their turn"),
      Plain(kHostAdmission, ConfigType::kBool, "true",
            "each query and Spark plan fragment (task) of a process waits before it runs while "
            "the estimated peaks of host memory of those running plus its own would pass "
            "tandem.memory.host.limit (less what cached tables hold), so that they take turns "
            "instead of all spilling at once; one always runs; false: all run at once"),
      Number(kMaxExpressionDepth, ConfigType::kInt, "1000", 1, 20000,
             "deepest nesting of expressions and subqueries a statement may have (an error "
             "past it; AND/OR lists, IN lists and UNION chains count as one level)"),
      Number(kHostMemoryLimit, ConfigType::kBytes, "0", 0, kMaxBytes,
             "host memory a process's queries may hold (column buffers, hash tables, aggregate "
             "states); hash joins, aggregations, sorts, windows and results that outgrow it "
             "spill to tandem.spill.dir, scans read in pieces, what still does not fit fails "
             "with an error naming this setting (bytes; 0: 80% of the machine's or cgroup's "
             "memory)"),
      Plain(kSpillDir, ConfigType::kString, "",
            "directory for the temporary files of operators that spill (unnamed files, gone "
            "when the process ends; empty: $TMPDIR, else /tmp)"),
      Number(kGpuAllocFraction, ConfigType::kDouble, "0.9", 0, 1,
             "fraction of free GPU memory the device pool may take", true),
      Number(kGpuReserve, ConfigType::kBytes, "1073741824", 0, kMaxBytes,
             "GPU memory left to CUDA itself, not pooled (bytes; 512m, 1g accepted)"),
      Number(kGpuLimit, ConfigType::kBytes, "0", 0, kMaxBytes,
             "most GPU memory the queries of this process may hold at once, below the pool's "
             "own size (0: the pool's size); past it, what ran out runs on the CPU"),
      Number(kPinnedPoolSize, ConfigType::kBytes, "268435456", 0, kMaxBytes,
             "pinned host memory pool used for every host<->device copy (bytes), allocated at "
             "start"),
      Number(kPinnedPoolMax, ConfigType::kBytes, "1073741824", 0, kMaxBytes,
             "the pinned pool grows by blocks up to this size when it runs short, and keeps "
             "them for the rest of the process (bytes)"),
      Enum(kPlacementTarget, "auto", {"auto", "h200", "cpu-only"},
           "machine the placement planner plans for: auto (this one: its calibration, or the "
           "built-in figures), h200 (built-in NVIDIA H200 figures, also without a GPU), cpu-only"),
      Number(kPlacementMinGain, ConfigType::kDouble, "0.1", 0, 0.9,
             "with device=auto, a plan that uses the GPU must be estimated at least this "
             "fraction faster than the all-CPU plan (a margin for estimation error)"),
      Plain(kCalibrationFile, ConfigType::kString, "",
            "calibration JSON read by the planner and written by `tandem calibrate` (empty: "
            "$TANDEM_CALIBRATION, else ~/.config/tandem/calibration.json)"),
      Plain(kInjectOom, ConfigType::kString, "off",
            "for tests: GPU allocations fail on purpose: off, N (the Nth of each query), "
            "random or random:SEED (one in eight)",
            NormalizeOomInjection),
      Plain(kInjectHostOom, ConfigType::kString, "off",
            "for tests: host buffer allocations fail on purpose: off, N (the Nth of each "
            "query), random or random:SEED (one in 256, at most two a query)",
            NormalizeOomInjection),
  };
}

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  // Shortest text that reads back as the same double.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[64];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

std::string RangeText(const ConfigKey& key) {
  if (key.type == ConfigType::kDouble) {
    return std::string(key.min_exclusive ? "above " : "from ") + FormatDouble(key.min) + " to " +
           FormatDouble(key.max);
  }
  return "from " + FormatDouble(key.min) + " to " + FormatDouble(key.max);
}

}  // namespace

const char* ConfigTypeName(ConfigType type) {
  switch (type) {
    case ConfigType::kBool:
      return "bool";
    case ConfigType::kInt:
      return "int";
    case ConfigType::kDouble:
      return "double";
    case ConfigType::kBytes:
      return "bytes";
    case ConfigType::kEnum:
      return "enum";
    case ConfigType::kString:
      return "string";
  }
  return "?";
}

const std::vector<ConfigKey>& ConfigKeys() {
  static const std::vector<ConfigKey> keys = MakeKeys();
  return keys;
}

std::string Config::CanonicalName(const std::string& name) {
  const std::string lower = AsciiLower(TrimSpace(name));
  if (lower == "threads") return config_keys::kThreads;
  if (lower == "ansi") return config_keys::kAnsi;
  for (const ConfigKey& k : ConfigKeys()) {
    if (AsciiLower(k.name) == lower) return k.name;
  }
  return TrimSpace(name);
}

const ConfigKey* FindConfigKey(const std::string& name) {
  const std::string canonical = Config::CanonicalName(name);
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.name == canonical) return &k;
  }
  return nullptr;
}

Result<int64_t> ParseByteSize(const std::string& text, const std::string& what) {
  const std::string t = AsciiLower(TrimSpace(text));
  auto bad = [&]() {
    return Status::Invalid(what + " takes a size in bytes (e.g. 1073741824, 512m, 1g), got '" +
                           text + "'");
  };
  if (t.empty()) return bad();
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || errno != 0 || !std::isfinite(number) || number < 0) return bad();
  std::string unit = TrimSpace(end);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();  // "gb", "b"
  if (unit.size() == 2 && unit[1] == 'i') unit.pop_back();   // "gi" (from "gib")
  double scale = 1;
  if (unit.empty()) {
    scale = 1;
  } else if (unit == "k") {
    scale = 1024.0;
  } else if (unit == "m") {
    scale = 1024.0 * 1024;
  } else if (unit == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "t") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return bad();
  }
  const double bytes = std::round(number * scale);
  if (bytes > 9e18) return bad();
  return static_cast<int64_t>(bytes);
}

Result<std::string> NormalizeConfigValue(const ConfigKey& key, const std::string& value) {
  const std::string v = TrimSpace(value);
  switch (key.type) {
    case ConfigType::kBool: {
      const std::string l = AsciiLower(v);
      if (l == "true" || l == "on" || l == "1" || l == "yes") return std::string("true");
      if (l == "false" || l == "off" || l == "0" || l == "no") return std::string("false");
      return Status::Invalid("setting " + key.name + " takes true or false, got '" + value + "'");
    }
    case ConfigType::kEnum: {
      for (const std::string& a : key.allowed) {
        if (AsciiLower(a) == AsciiLower(v)) return a;
      }
      std::string list;
      for (size_t i = 0; i < key.allowed.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == key.allowed.size() ? " or " : ", ") + key.allowed[i];
      }
      return Status::Invalid("setting " + key.name + " takes " + list + ", got '" + value + "'");
    }
    case ConfigType::kInt: {
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno != 0 || n < key.min || n > key.max) {
        return Status::Invalid("setting " + key.name + " takes an integer " + RangeText(key) +
                               ", got '" + value + "'");
      }
      return std::to_string(n);
    }
    case ConfigType::kDouble: {
      char* end = nullptr;
      errno = 0;
      const double d = std::strtod(v.c_str(), &end);
      const bool below = key.min_exclusive ? d <= key.min : d < key.min;
      if (v.empty() || *end != '\0' || errno != 0 || !std::isfinite(d) || below || d > key.max) {
        return Status::Invalid("setting " + key.name + " takes a number " + RangeText(key) +
                               ", got '" + value + "'");
      }
      return FormatDouble(d);
    }
    case ConfigType::kBytes: {
      Result<int64_t> bytes = ParseByteSize(v, "setting " + key.name);
      if (!bytes.ok()) return bytes.status();
      if (static_cast<double>(*bytes) < key.min || static_cast<double>(*bytes) > key.max) {
        return Status::Invalid("setting " + key.name + " takes a size " + RangeText(key) +
                               " bytes, got '" + value + "'");
      }
      return std::to_string(*bytes);
    }
    case ConfigType::kString: {
      if (!key.normalize) return v;
      Result<std::string> normalized = key.normalize(v);
      if (normalized.ok()) return normalized;
      const std::string& why = normalized.status().message();
      return Status::Invalid("setting " + key.name + (why.rfind("takes", 0) == 0 ? " " : ": ") +
                             why);
    }
  }
  return Status::Internal("unknown config type");
}

namespace {

Status UnknownKey(const std::string& name) {
  std::string names;
  for (const ConfigKey& k : ConfigKeys()) names += (names.empty() ? "" : ", ") + k.name;
  return Status::Invalid("unknown setting " + TrimSpace(name) + " (settings: " + names +
                         "; `tandem config --list` describes them)");
}

}  // namespace

Status Config::Set(const std::string& name, const std::string& value) {
  const ConfigKey* key = FindConfigKey(name);
  if (!key) return UnknownKey(name);
  Result<std::string> normalized = NormalizeConfigValue(*key, value);
  if (!normalized.ok()) return normalized.status();
  values_[key->name] = std::move(*normalized);
  return Status::OK();
}

Status Config::SetAssignment(const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || TrimSpace(assignment.substr(0, eq)).empty()) {
    return Status::Invalid("--conf takes key=value, got '" + assignment + "'");
  }
  return Set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

Status Config::Reset(const std::string& name) {
  const ConfigKey* key = FindConfigKey(name);
  if (!key) return UnknownKey(name);
  values_.erase(key->name);
  return Status::OK();
}

std::string Config::Get(const std::string& name) const {
  const ConfigKey* key = FindConfigKey(name);
  if (!key) return "";
  auto it = values_.find(key->name);
  return it == values_.end() ? key->default_value : it->second;
}

bool Config::GetBool(const std::string& name) const { return Get(name) == "true"; }

int64_t Config::GetInt(const std::string& name) const {
  return std::strtoll(Get(name).c_str(), nullptr, 10);
}

double Config::GetDouble(const std::string& name) const {
  return std::strtod(Get(name).c_str(), nullptr);
}

bool Config::IsSet(const std::string& name) const {
  const ConfigKey* key = FindConfigKey(name);
  return key && values_.count(key->name) > 0;
}

}  // namespace tandem
