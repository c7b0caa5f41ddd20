// The executor's start-up document (spark/executor_settings.h): every key lands on its Tandem
// setting, bad values name the Spark setting, unknown keys and C++ UDF libraries are refused.
#include "tandem/spark/executor_settings.h"

#include <gtest/gtest.h>

namespace tandem::spark {
namespace {

TEST(ExecutorSettings, KeysBecomeTandemSettings) {
  auto c = ExecutorConfigFromJson(
      R"({"threads": 3, "device": "cpu", "concurrent_gpu_tasks": 1,
          "host_memory_limit": 2147483648, "udf_libraries": []})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->GetInt(config_keys::kThreads), 3);
  EXPECT_EQ(c->Get(config_keys::kDevice), "cpu");
  EXPECT_EQ(c->GetInt(config_keys::kConcurrentGpuTasks), 1);
  EXPECT_EQ(c->GetInt(config_keys::kHostMemoryLimit), int64_t{2147483648});
}

TEST(ExecutorSettings, BadDocumentsAreErrorsNamingTheSetting) {
  auto bad_device = ExecutorConfigFromJson(R"({"device": "tpu"})");
  ASSERT_FALSE(bad_device.ok());
  EXPECT_NE(bad_device.status().message().find("spark.tandem.sql.device"), std::string::npos)
      << bad_device.status().ToString();
  auto unknown = ExecutorConfigFromJson(R"({"thread": 2})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key 'thread'"), std::string::npos);
  auto udfs = ExecutorConfigFromJson(R"({"udf_libraries": ["/x/libudf.so"]})");
  ASSERT_FALSE(udfs.ok());
  EXPECT_NE(udfs.status().message().find("spark.tandem.udf.libraries"), std::string::npos);
  EXPECT_FALSE(ExecutorConfigFromJson("[1]").ok());
  EXPECT_FALSE(ExecutorConfigFromJson(R"({"threads": -4})").ok());
}

}  // namespace
}  // namespace tandem::spark
