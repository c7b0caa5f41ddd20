// MeasureSession and MeasureInterleaved against a stand-in `tandem` (a shell script printing
// what `tandem sql --timing --format jsonl` prints): per-query times, answers and devices are
// cut at the marker rows, the setup's warnings given to each; a process that fails part-way keeps
// the finished queries, blames the running one and marks the rest as not run; a process with
// several measured runs counts as their median.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tandem/bench/measure.h"

namespace tandem::bench {
namespace {

namespace fs = std::filesystem;

// A script standing in for tandem: one setup statement, then query 1 (a warm-up and one
// measured run) and, when `fail` is false, query 2 likewise; with `fail`, query 2's warm-up
// errors out.
std::string FakeTandem(const fs::path& dir, bool fail) {
  const fs::path path = dir / (fail ? "tandem_fail.sh" : "tandem_ok.sh");
  std::ofstream out(path);
  out << "#!/bin/sh\n"
         "echo 'tandem: warning: table t not cached (queries read it from its files)' >&2\n"
         "echo 'Time: 50.0 ms' >&2\n"  // CACHE TABLE
         "echo '{\"tandem_bench_run\":0}'; echo 'Time: 0.1 ms' >&2\n"
         "echo '{\"q\":1}'; echo 'Devices: gpu 2, cpu 0, transitions 1' >&2;"
         " echo 'Time: 9.0 ms' >&2\n"
         "echo '{\"tandem_bench_run\":1}'; echo 'Time: 0.1 ms' >&2\n"
         "echo '{\"q\":1}'; echo 'Devices: gpu 2, cpu 0, transitions 1' >&2;"
         " echo 'Time: 7.0 ms' >&2\n"
         "echo '{\"tandem_bench_run\":2}'; echo 'Time: 0.1 ms' >&2\n";
  if (fail) {
    out << "echo 'tandem: boom in query 2' >&2; exit 1\n";
  } else {
    out << "echo '{\"q\":2}'; echo 'Devices: cpu only' >&2; echo 'Time: 5.0 ms' >&2\n"
           "echo '{\"tandem_bench_run\":3}'; echo 'Time: 0.1 ms' >&2\n"
           "echo '{\"q\":2}'; echo 'Devices: cpu only' >&2; echo 'Time: 4.0 ms' >&2\n";
  }
  out.close();
  ::chmod(path.c_str(), 0755);
  return path.string();
}

class MeasureSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tandem_measure_session_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  CellSpec Spec(bool fail) {
    CellSpec spec;
    spec.tandem = FakeTandem(dir_, fail);
    spec.mode = "gpu";
    spec.setup = {"CACHE TABLE t"};
    spec.reps = 1;
    spec.warmups = 1;
    return spec;
  }
  fs::path dir_;
};

TEST_F(MeasureSessionTest, CutsTimesAnswersAndDevicesPerQuery) {
  Result<std::vector<CellResult>> cells =
      MeasureSession(Spec(false), {"SELECT 1 AS q", "SELECT 2 AS q"});
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].state, CellResult::State::kOk) << (*cells)[0].note;
  EXPECT_EQ((*cells)[0].times_ms, std::vector<double>{7.0});  // the warm-up's 9 ms is not kept
  EXPECT_EQ((*cells)[0].devices, "gpu 2, cpu 0, transitions 1");
  EXPECT_EQ((*cells)[1].times_ms, std::vector<double>{4.0});
  EXPECT_EQ((*cells)[1].devices, "cpu only");
  EXPECT_NE(CompareResults((*cells)[0].rows, (*cells)[1].rows), "");  // each query's own answer
  // The setup's warning reaches every query of the session (the report says it once).
  for (const CellResult& cell : *cells) {
    EXPECT_EQ(cell.warnings,
              std::vector<std::string>{"table t not cached (queries read it from its files)"});
  }
}

TEST_F(MeasureSessionTest, AFailureBlamesTheRunningQueryAndStopsTheRest) {
  Result<std::vector<CellResult>> cells =
      MeasureSession(Spec(true), {"SELECT 1 AS q", "SELECT 2 AS q", "SELECT 3 AS q"});
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  ASSERT_EQ(cells->size(), 3u);
  EXPECT_EQ((*cells)[0].state, CellResult::State::kOk);
  EXPECT_EQ((*cells)[0].times_ms, std::vector<double>{7.0});
  EXPECT_EQ((*cells)[1].state, CellResult::State::kError);
  EXPECT_EQ((*cells)[1].note, "tandem: boom in query 2");
  EXPECT_EQ((*cells)[2].state, CellResult::State::kError);
  EXPECT_EQ((*cells)[2].note.rfind("not run (the session stopped", 0), 0u) << (*cells)[2].note;
}

// One query: a warm-up of 90 ms, then measured runs of 50, 10 and 30 ms.
std::string FakeTandemRuns(const fs::path& dir) {
  const fs::path path = dir / "tandem_runs.sh";
  std::ofstream out(path);
  out << "#!/bin/sh\n";
  int run = 0;
  for (const char* ms : {"90.0", "50.0", "10.0", "30.0"}) {
    out << "echo '{\"tandem_bench_run\":" << run++ << "}'; echo 'Time: 0.1 ms' >&2\n"
        << "echo '{\"q\":1}'; echo 'Devices: cpu only' >&2; echo 'Time: " << ms << " ms' >&2\n";
  }
  out.close();
  ::chmod(path.c_str(), 0755);
  return path.string();
}

TEST_F(MeasureSessionTest, InterleavedProcessesCountAsTheMedianOfTheirRuns) {
  CellSpec spec;
  spec.tandem = FakeTandemRuns(dir_);
  spec.mode = "cpu";
  spec.query = "SELECT 1 AS q";
  spec.warmups = 1;
  Result<std::vector<CellResult>> cells =
      MeasureInterleaved({spec}, {false}, /*rounds=*/2, /*runs_per_process=*/3, {});
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  ASSERT_EQ(cells->size(), 1u);
  ASSERT_EQ((*cells)[0].state, CellResult::State::kOk) << (*cells)[0].note;
  EXPECT_EQ((*cells)[0].times_ms, (std::vector<double>{30.0, 30.0}));  // not 50, 10 or 90
  EXPECT_EQ((*cells)[0].median_ms, 30.0);
  EXPECT_EQ(Runs(1), "one measured run");
  EXPECT_EQ(Runs(3).rfind("3 measured runs", 0), 0u);
}

}  // namespace
}  // namespace tandem::bench
