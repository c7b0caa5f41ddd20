// Placement through the session: SET and RESET go through the configuration registry, EXPLAIN
// shows every node's device (planning for the H200 on a machine without a GPU), the
// planning-time report of tandem.sql.explain, device=gpu without a usable GPU, and CACHE TABLE /
// UNCACHE TABLE giving the same results as uncached scans.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../tpch_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/gpu/runtime.h"
#include "tandem/placement/calibration_file.h"
#include "tandem/placement/settings.h"
#include "tandem/sql/session.h"

namespace tandem {
namespace {

class SessionPlacement : public ::testing::Test {
 protected:
  void SetUp() override {
    // Keep the user's calibration file out of the tests.
    calibration_ = (std::filesystem::temp_directory_path() /
                    ("tandem_no_calibration_" + std::to_string(::getpid()) + ".json"))
                       .string();
    ::setenv("TANDEM_CALIBRATION", calibration_.c_str(), 1);
    sql::SessionOptions options;
    options.notice = [this](const std::string& text) { notices_ += text + "\n"; };
    session_ = std::make_unique<sql::Session>(options);
    ASSERT_TRUE(test_util::RegisterTpchTables(session_.get(), 0.01).ok());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove(calibration_, ec);
    ::unsetenv("TANDEM_CALIBRATION");
  }

  Result<sql::StatementResult> Run(const std::string& sql) { return session_->Execute(sql); }

  // Every row of a result as text, one line per row.
  static std::string Rows(const Table& table) {
    std::string out;
    for (const BatchPtr& b : table.batches) {
      for (int64_t r = 0; r < b->num_rows; ++r) {
        for (int c = 0; c < b->num_columns(); ++c) {
          if (c) out += "|";
          format::AppendText(*b->column(c), r, &out);
        }
        out += "\n";
      }
    }
    return out;
  }

  std::string RowsOf(const std::string& sql) {
    auto r = Run(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    return r.ok() ? Rows(r->table) : "";
  }

  std::string calibration_;
  std::string notices_;
  std::unique_ptr<sql::Session> session_;
};

TEST_F(SessionPlacement, SetGoesThroughTheRegistry) {
  auto r = Run("SET tandem.sql.device = 'CPU'");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message, "set tandem.sql.device = cpu");
  EXPECT_EQ(session_->config().Get(config_keys::kDevice), "cpu");
  r = Run("SET tandem.sql.device = tpu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tandem.sql.device takes auto, gpu or cpu"),
            std::string::npos);
  ASSERT_TRUE(Run("RESET tandem.sql.device").ok());
  EXPECT_EQ(session_->config().Get(config_keys::kDevice), "auto");
  r = Run("SET threads = 2");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message, "set threads = 2");
  EXPECT_EQ(session_->options().num_threads, 2);
  ASSERT_TRUE(Run("SET tandem.sql.ansi = true").ok());
  EXPECT_TRUE(session_->options().ansi);
  EXPECT_FALSE(Run("SELECT 1 / 0").ok());  // ANSI division by zero
}

TEST_F(SessionPlacement, ExplainForTheH200ShowsDevicesAndTransitions) {
  ASSERT_TRUE(Run("SET tandem.placement.target = h200").ok());
  ASSERT_TRUE(Run("SET tandem.sql.device = gpu").ok());
  auto r =
      Run("EXPLAIN SELECT l_returnflag, sum(l_quantity) FROM lineitem "
          "WHERE l_quantity < 10 GROUP BY l_returnflag");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string plan = Rows(r->table);
  EXPECT_NE(plan.find("Placement: device=gpu, target=h200"), std::string::npos) << plan;
  EXPECT_NE(plan.find("gpu    Aggregate"), std::string::npos) << plan;
  EXPECT_NE(plan.find("pcie       HostToDevice"), std::string::npos) << plan;
  EXPECT_NE(plan.find("pcie DeviceToHost"), std::string::npos) << plan;
  EXPECT_NE(plan.find("cpu          Scan lineitem"), std::string::npos) << plan;

  r = Run("EXPLAIN (FORMAT JSON) SELECT count(*) FROM lineitem WHERE l_quantity < 10");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string json = Rows(r->table);
  EXPECT_NE(json.find("\"target\": \"h200\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"device\": \"gpu\""), std::string::npos) << json;
}

TEST_F(SessionPlacement, ExplainSettingPrintsThePlacementAtPlanningTime) {
  ASSERT_TRUE(Run("SET tandem.sql.explain = ALL").ok());
  notices_.clear();
  ASSERT_TRUE(Run("SELECT count(*) FROM nation").ok());
  EXPECT_NE(notices_.find("tandem: Placement:"), std::string::npos) << notices_;
  EXPECT_NE(notices_.find("!Scan nation"), std::string::npos) << notices_;
  if (!gpu::DeviceUsable()) {
    EXPECT_NE(notices_.find("no usable GPU"), std::string::npos) << notices_;
  }
  ASSERT_TRUE(Run("SET tandem.sql.explain = NONE").ok());
  notices_.clear();
  ASSERT_TRUE(Run("SELECT count(*) FROM nation").ok());
  EXPECT_EQ(notices_, "");
}

TEST_F(SessionPlacement, DeviceGpuWithoutAUsableGpuIsAOneLineError) {
  if (gpu::DeviceUsable()) GTEST_SKIP() << "a GPU is usable here";
  ASSERT_TRUE(Run("SET tandem.sql.device = gpu").ok());
  auto r = Run("SELECT count(*) FROM nation");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tandem.sql.device=gpu but no GPU is usable"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST_F(SessionPlacement, CachedTablesGiveTheSameResults) {
  const std::vector<int> queries = {1, 3, 5, 6, 10, 12, 14, 18};
  std::vector<std::string> uncached;
  for (int q : queries) uncached.push_back(RowsOf(test_util::TpchQueryText(q)));
  for (const char* t : {"lineitem", "orders", "customer", "supplier", "nation", "region"}) {
    auto r = Run(std::string("CACHE TABLE ") + t);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->message.rfind(std::string("cached table ") + t, 0), 0u) << r->message;
  }
  EXPECT_EQ(session_->table_cache().tables().size(), 6u);
  for (size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(RowsOf(test_util::TpchQueryText(queries[i])), uncached[i]) << "q" << queries[i];
  }
  auto explain = Run("EXPLAIN ANALYZE SELECT count(*) FROM nation");
  ASSERT_TRUE(explain.ok());
  EXPECT_NE(Rows(explain->table).find("cached in"), std::string::npos) << Rows(explain->table);

  auto r = Run("UNCACHE TABLE lineitem");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message, "uncached table lineitem");
  EXPECT_EQ(session_->table_cache().tables().size(), 5u);
  r = Run("UNCACHE TABLE IF EXISTS no_such_table");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(Run("UNCACHE TABLE no_such_table").ok());
  EXPECT_FALSE(Run("CACHE TABLE no_such_table").ok());
  EXPECT_EQ(RowsOf(test_util::TpchQueryText(1)), uncached[0]);
}

TEST_F(SessionPlacement, CacheStatementsInAScriptKeepPositions) {
  auto results = session_->ExecuteScript(
      "-- cache first\nCACHE TABLE nation;\nSELECT count(*) AS n FROM nation;\n"
      "uncache table if exists nation;\nSELECT n_nam FROM nation");
  ASSERT_FALSE(results.ok());
  // The error position is the script's, as written.
  EXPECT_NE(results.status().message().find("(line 5:8)"), std::string::npos)
      << results.status().message();
  results = session_->ExecuteScript("CACHE TABLE nation; SELECT count(*) FROM nation");
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ(Rows((*results)[1].table), "25\n");
  EXPECT_FALSE(Run("LISTEN nation").ok());  // a real LISTEN is no cache statement
}

TEST(CalibrationFile, RoundTripAndErrors) {
  placement::Calibration c;
  c.created = "2026-01-01T00:00:00Z";
  c.host = "h";
  c.cpu_threads = 16;
  c.rows = 1000;
  c.cpu = placement::BuiltinGenericCpu();
  c.cpu.throughput[0] = 123e9;
  c.has_gpu = true;
  c.gpu_name = "NVIDIA H200";
  c.gpu = placement::BuiltinH200();
  c.transfer = placement::BuiltinH200Transfer();
  c.transfer.host_to_device_bytes_per_s = 42e9;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("tandem_cal_" + std::to_string(::getpid())) / "calibration.json")
                               .string();
  ASSERT_TRUE(placement::SaveCalibration(path, c).ok());
  auto loaded = placement::LoadCalibration(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->has_value());
  EXPECT_DOUBLE_EQ((*loaded)->cpu.throughput[0], 123e9);
  EXPECT_DOUBLE_EQ((*loaded)->transfer.host_to_device_bytes_per_s, 42e9);
  EXPECT_EQ((*loaded)->gpu_name, "NVIDIA H200");

  // The planner reads it (target auto): the calibrated GPU figures are used when explaining.
  Config config;
  ASSERT_TRUE(config.Set(config_keys::kCalibrationFile, path).ok());
  auto setup = placement::SetupPlacement(config, placement::PlanPurpose::kExplain);
  ASSERT_TRUE(setup.ok()) << setup.status().ToString();
  EXPECT_DOUBLE_EQ(setup->options.profile.cpu.throughput[0], 123e9);

  {
    std::ofstream out(path);
    out << "{not json";
  }
  auto broken = placement::LoadCalibration(path);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find(path), std::string::npos);
  EXPECT_FALSE(placement::SetupPlacement(config, placement::PlanPurpose::kExplain).ok());
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  auto missing = placement::LoadCalibration(path);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

}  // namespace
}  // namespace tandem
