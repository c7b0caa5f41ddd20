// The configuration registry: documented keys, typed reads, validation errors that name the key,
// normalization (enum spellings, sizes), defaults and resets.
#include "tandem/common/config.h"

#include <gtest/gtest.h>

#include <set>

namespace tandem {
namespace {

TEST(Config, EveryKeyIsDocumentedAndItsDefaultValidates) {
  std::set<std::string> names;
  for (const ConfigKey& key : ConfigKeys()) {
    EXPECT_TRUE(names.insert(key.name).second) << key.name;
    EXPECT_FALSE(key.doc.empty()) << key.name;
    Result<std::string> normalized = NormalizeConfigValue(key, key.default_value);
    if (key.type != ConfigType::kString) {
      ASSERT_TRUE(normalized.ok()) << key.name << ": " << normalized.status().ToString();
      EXPECT_EQ(*normalized, key.default_value) << key.name;
    }
    if (key.type == ConfigType::kEnum) EXPECT_FALSE(key.allowed.empty()) << key.name;
  }
  for (const char* required :
       {config_keys::kDevice, config_keys::kExplain, config_keys::kAnsi, config_keys::kThreads,
        config_keys::kGpuAllocFraction, config_keys::kGpuReserve, config_keys::kPinnedPoolSize,
        config_keys::kPinnedPoolMax, config_keys::kPlacementTarget,
        config_keys::kCalibrationFile}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
}

TEST(Config, DefaultsAndTypedReads) {
  Config c;
  EXPECT_EQ(c.Get(config_keys::kDevice), "auto");
  EXPECT_EQ(c.Get(config_keys::kExplain), "NONE");
  EXPECT_FALSE(c.GetBool(config_keys::kAnsi));
  EXPECT_EQ(c.GetInt(config_keys::kThreads), 0);
  EXPECT_DOUBLE_EQ(c.GetDouble(config_keys::kGpuAllocFraction), 0.9);
  EXPECT_EQ(c.GetInt(config_keys::kGpuReserve), int64_t{1} << 30);
  EXPECT_FALSE(c.IsSet(config_keys::kDevice));
}

TEST(Config, SetNormalizesAndResetRestoresTheDefault) {
  Config c;
  ASSERT_TRUE(c.Set("TANDEM.SQL.DEVICE", "GPU").ok());
  EXPECT_EQ(c.Get(config_keys::kDevice), "gpu");
  EXPECT_TRUE(c.IsSet(config_keys::kDevice));
  ASSERT_TRUE(c.Set(config_keys::kExplain, "not_on_gpu").ok());
  EXPECT_EQ(c.Get(config_keys::kExplain), "NOT_ON_GPU");
  ASSERT_TRUE(c.Set("ansi", "on").ok());
  EXPECT_TRUE(c.GetBool(config_keys::kAnsi));
  ASSERT_TRUE(c.Set("threads", " 8 ").ok());
  EXPECT_EQ(c.GetInt(config_keys::kThreads), 8);
  ASSERT_TRUE(c.Set(config_keys::kGpuReserve, "512m").ok());
  EXPECT_EQ(c.GetInt(config_keys::kGpuReserve), int64_t{512} << 20);
  ASSERT_TRUE(c.Set(config_keys::kPinnedPoolSize, "2GiB").ok());
  EXPECT_EQ(c.GetInt(config_keys::kPinnedPoolSize), int64_t{2} << 30);
  ASSERT_TRUE(c.SetAssignment("tandem.memory.gpu.allocFraction=0.5").ok());
  EXPECT_DOUBLE_EQ(c.GetDouble(config_keys::kGpuAllocFraction), 0.5);
  ASSERT_TRUE(c.Set(config_keys::kPlacementTarget, "H200").ok());
  EXPECT_EQ(c.Get(config_keys::kPlacementTarget), "h200");
  ASSERT_TRUE(c.Reset(config_keys::kDevice).ok());
  EXPECT_EQ(c.Get(config_keys::kDevice), "auto");
  EXPECT_FALSE(c.IsSet(config_keys::kDevice));
}

TEST(Config, ValidationErrorsNameTheKey) {
  Config c;
  struct Case {
    const char* key;
    const char* value;
    const char* expect;
  };
  const Case cases[] = {
      {"tandem.sql.device", "tpu", "tandem.sql.device takes auto, gpu or cpu, got 'tpu'"},
      {"tandem.sql.explain", "SOME", "tandem.sql.explain takes ALL, NOT_ON_GPU or NONE"},
      {"tandem.sql.ansi", "maybe", "tandem.sql.ansi takes true or false"},
      {"tandem.sql.threads", "-1", "tandem.sql.threads takes an integer from 0 to 4096"},
      {"tandem.sql.threads", "2x", "tandem.sql.threads takes an integer"},
      {"tandem.memory.gpu.allocFraction", "0", "tandem.memory.gpu.allocFraction takes a number"},
      {"tandem.memory.gpu.allocFraction", "1.5", "above 0 to 1"},
      {"tandem.memory.gpu.reserve", "lots", "tandem.memory.gpu.reserve takes a size in bytes"},
      {"tandem.placement.target", "a100", "tandem.placement.target takes auto, h200 or cpu-only"},
      {"tandem.no.such", "1", "unknown setting tandem.no.such"},
  };
  for (const Case& k : cases) {
    Status st = c.Set(k.key, k.value);
    ASSERT_FALSE(st.ok()) << k.key << "=" << k.value;
    EXPECT_NE(st.message().find(k.expect), std::string::npos) << st.message();
  }
  EXPECT_FALSE(c.SetAssignment("novalue").ok());
  EXPECT_FALSE(c.SetAssignment("=x").ok());
  EXPECT_EQ(c.Get(config_keys::kDevice), "auto");  // failed sets change nothing
}

TEST(Config, ByteSizes) {
  EXPECT_EQ(ParseByteSize("1024", "x").value(), 1024);
  EXPECT_EQ(ParseByteSize("1k", "x").value(), 1024);
  EXPECT_EQ(ParseByteSize("1.5g", "x").value(), int64_t{3} << 29);
  EXPECT_EQ(ParseByteSize("3 MB", "x").value(), int64_t{3} << 20);
  EXPECT_FALSE(ParseByteSize("-1", "x").ok());
  EXPECT_FALSE(ParseByteSize("1q", "x").ok());
  EXPECT_FALSE(ParseByteSize("", "x").ok());
}

}  // namespace
}  // namespace tandem
