// Start-up document -> Config (executor_settings.h).
#include "tandem/spark/executor_settings.h"

#include <nlohmann/json.hpp>

namespace tandem::spark {
namespace {

struct Key {
  const char* json;   // in the start-up document
  const char* spark;  // the setting it came from, for messages
  const char* tandem;
};

constexpr Key kKeys[] = {
    {"threads", "spark.task.cpus", config_keys::kThreads},
    {"device", "spark.tandem.sql.device", config_keys::kDevice},
    {"concurrent_gpu_tasks", "spark.tandem.sql.concurrentGpuTasks",
     config_keys::kConcurrentGpuTasks},
    {"host_memory_limit", "spark.tandem.memory.host.limit", config_keys::kHostMemoryLimit},
    {"gpu_memory_limit", "spark.tandem.memory.gpu.limit", config_keys::kGpuLimit},
};

Status Bad(const std::string& what) { return Status::Invalid("Tandem start-up settings: " + what); }

}  // namespace

Result<ExecutorSettings> ExecutorSettingsFromJson(const std::string& text) {
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Bad("not a JSON object");
  ExecutorSettings settings;
  Config& config = settings.config;
  for (const auto& [name, value] : doc.items()) {
    if (name == "udf_libraries") {
      if (!value.is_array()) return Bad("udf_libraries must be a list");
      for (const auto& path : value) {
        if (!path.is_string() || path.get<std::string>().empty()) {
          return Bad("udf_libraries must list library paths");
        }
        settings.udf_libraries.push_back(path.get<std::string>());
      }
      continue;
    }
    const Key* key = nullptr;
    for (const Key& k : kKeys) {
      if (name == k.json) key = &k;
    }
    if (!key) return Bad("unknown key '" + name + "'");
    const std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    if (Status st = config.Set(key->tandem, v); !st.ok()) {
      return Status::Invalid(std::string(key->spark) + ": " + st.message());
    }
  }
  return settings;
}

}  // namespace tandem::spark
