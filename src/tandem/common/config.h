// The configuration registry: every setting a user can change (with --conf key=value on the
// command line, or SET key = value in SQL) is declared once here with its type, default, allowed
// values and a one-line doc, so validation, `tandem config --list` and the docs agree. A Config
// holds one session's values; unset keys read as their defaults. Values are validated and
// normalized on Set (enums to their canonical spelling, sizes to bytes), and every error names
// the key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem {

enum class ConfigType { kBool, kInt, kDouble, kBytes, kEnum, kString };

const char* ConfigTypeName(ConfigType type);

struct ConfigKey {
  std::string name;  // "tandem.sql.device"
  ConfigType type = ConfigType::kString;
  std::string default_value;         // normalized text
  std::string doc;                   // one line
  std::vector<std::string> allowed;  // kEnum: the canonical spellings
  double min = 0;                    // kInt, kDouble, kBytes: inclusive bounds
  double max = 0;
  bool min_exclusive = false;  // kDouble: (min, max]
  // kString: checks a value and returns its normalized text, or the reason it is refused (the
  // registry puts "setting <name>" in front); null: any text.
  Result<std::string> (*normalize)(const std::string& value) = nullptr;
};

// The names of the settings other code reads.
namespace config_keys {
inline constexpr const char* kDevice = "tandem.sql.device";
inline constexpr const char* kExplain = "tandem.sql.explain";
inline constexpr const char* kAnsi = "tandem.sql.ansi";
inline constexpr const char* kThreads = "tandem.sql.threads";
inline constexpr const char* kMaxExpressionDepth = "tandem.sql.maxExpressionDepth";
inline constexpr const char* kJoinOrderByBytes = "tandem.optimizer.joinOrderByBytes";
inline constexpr const char* kJoinOrder = "tandem.optimizer.joinOrder";
inline constexpr const char* kPipelines = "tandem.exec.pipelines";
inline constexpr const char* kDictionaryConditions = "tandem.exec.dictionaryConditions";
inline constexpr const char* kGpuChunkBytes = "tandem.exec.gpu.chunkBytes";
inline constexpr const char* kGpuHashPartitions = "tandem.exec.gpu.hashPartitions";
inline constexpr const char* kGpuPrefetchSlices = "tandem.exec.gpu.prefetchSlices";
inline constexpr const char* kParquetGpuDecompress = "tandem.io.parquet.gpuDecompress";
inline constexpr const char* kGpuSpillInputs = "tandem.exec.gpu.spillInputs";
inline constexpr const char* kGpuGeneratedKernels = "tandem.exec.gpu.generatedKernels";
inline constexpr const char* kGpuKernelCacheDir = "tandem.exec.gpu.kernelCacheDir";
inline constexpr const char* kCpuBatchRows = "tandem.exec.cpu.batchRows";
inline constexpr const char* kCpuScanPieceRows = "tandem.exec.cpu.scanPieceRows";
inline constexpr const char* kConcurrentGpuTasks = "tandem.sql.concurrentGpuTasks";
inline constexpr const char* kHostMemoryLimit = "tandem.memory.host.limit";
inline constexpr const char* kHostAdmission = "tandem.memory.host.admission";
inline constexpr const char* kSpillDir = "tandem.spill.dir";
inline constexpr const char* kGpuAllocFraction = "tandem.memory.gpu.allocFraction";
inline constexpr const char* kGpuReserve = "tandem.memory.gpu.reserve";
inline constexpr const char* kGpuLimit = "tandem.memory.gpu.limit";
inline constexpr const char* kPinnedPoolSize = "tandem.memory.pinned.poolSize";
inline constexpr const char* kPinnedPoolMax = "tandem.memory.pinned.maxPoolSize";
inline constexpr const char* kPlacementTarget = "tandem.placement.target";
inline constexpr const char* kCalibrationFile = "tandem.placement.calibrationFile";
inline constexpr const char* kPlacementMinGain = "tandem.placement.minGain";
inline constexpr const char* kInjectOom = "tandem.test.injectOom";
inline constexpr const char* kInjectHostOom = "tandem.test.injectHostOom";
}  // namespace config_keys

// Every key, in a stable order (the order `tandem config --list` prints).
const std::vector<ConfigKey>& ConfigKeys();

// The key with this name (case-insensitive; "threads" and "ansi" are accepted as short names of
// tandem.sql.threads and tandem.sql.ansi), or nullptr.
const ConfigKey* FindConfigKey(const std::string& name);

// Checks `value` against the key's type and bounds and returns its normalized text.
Result<std::string> NormalizeConfigValue(const ConfigKey& key, const std::string& value);

class Config {
 public:
  // Validates and stores; errors name the key and what it takes.
  Status Set(const std::string& name, const std::string& value);
  // "key=value" (as --conf takes it).
  Status SetAssignment(const std::string& assignment);
  // Back to the default.
  Status Reset(const std::string& name);

  // The current normalized value (the default when unset). The name must be a registered key;
  // an unknown name reads as "" (a programming error the tests catch).
  std::string Get(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  int64_t GetInt(const std::string& name) const;  // kInt and kBytes
  double GetDouble(const std::string& name) const;
  bool IsSet(const std::string& name) const;  // set explicitly (not just defaulted)

  // The canonical name of a key, for messages ("threads" -> "tandem.sql.threads").
  static std::string CanonicalName(const std::string& name);

 private:
  std::map<std::string, std::string> values_;  // canonical name -> normalized value
};

// "1g", "512MiB", "1073741824" -> bytes; an error names `what`.
Result<int64_t> ParseByteSize(const std::string& text, const std::string& what);

}  // namespace tandem
