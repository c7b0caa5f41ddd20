// The executor's start-up document (spark/executor_settings.h): every key lands on its Tandem
// setting, bad values name the Spark setting, unknown keys are refused, UDF libraries are listed
// for whoever applies the settings.
#include "tandem/spark/executor_settings.h"

#include <gtest/gtest.h>

namespace tandem::spark {
namespace {

TEST(ExecutorSettings, KeysBecomeTandemSettings) {
  auto s = ExecutorSettingsFromJson(
      R"({"threads": 3, "device": "cpu", "concurrent_gpu_tasks": 1,
          "host_memory_limit": 2147483648, "gpu_memory_limit": 1073741824,
          "udf_libraries": ["/x/libudf.so"]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const Config& c = s->config;
  EXPECT_EQ(c.GetInt(config_keys::kThreads), 3);
  EXPECT_EQ(c.Get(config_keys::kDevice), "cpu");
  EXPECT_EQ(c.GetInt(config_keys::kConcurrentGpuTasks), 1);
  EXPECT_EQ(c.GetInt(config_keys::kHostMemoryLimit), int64_t{2147483648});
  EXPECT_EQ(c.GetInt(config_keys::kGpuLimit), int64_t{1073741824});
  EXPECT_EQ(s->udf_libraries, std::vector<std::string>{"/x/libudf.so"});
}

TEST(ExecutorSettings, BadDocumentsAreErrorsNamingTheSetting) {
  auto bad_device = ExecutorSettingsFromJson(R"({"device": "tpu"})");
  ASSERT_FALSE(bad_device.ok());
  EXPECT_NE(bad_device.status().message().find("spark.tandem.sql.device"), std::string::npos)
      << bad_device.status().ToString();
  auto unknown = ExecutorSettingsFromJson(R"({"thread": 2})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key 'thread'"), std::string::npos);
  EXPECT_FALSE(ExecutorSettingsFromJson(R"({"udf_libraries": [3]})").ok());
  EXPECT_FALSE(ExecutorSettingsFromJson("[1]").ok());
  EXPECT_FALSE(ExecutorSettingsFromJson(R"({"threads": -4})").ok());
}

}  // namespace
}  // namespace tandem::spark
