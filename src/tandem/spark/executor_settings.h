// The engine's settings in one Spark executor, from the plugin's start-up document
// (TandemNative.init, docs/spark_fragment.md "Start-up"): {"threads": CPU threads per task,
// "device": "auto"|"gpu"|"cpu", "concurrent_gpu_tasks": n, "host_memory_limit": bytes,
// "gpu_memory_limit": bytes,
// "udf_libraries": [paths]}. Each goes through the configuration registry, so a bad value is an
// error naming the Spark setting it came from; an unknown key is an error too (a plugin and
// engine of different versions must not half-agree).
#pragma once

#include <string>
#include <vector>

#include "tandem/common/config.h"
#include "tandem/common/status.h"

namespace tandem::spark {

struct ExecutorSettings {
  Config config;
  std::vector<std::string> udf_libraries;  // loaded by whoever applies the settings
};

Result<ExecutorSettings> ExecutorSettingsFromJson(const std::string& text);

}  // namespace tandem::spark
