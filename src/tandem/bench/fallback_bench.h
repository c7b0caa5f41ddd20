// The fallback matrix (docs/benchmarks.md): one analytical query over the fallback data
// (benchdata/fallback_data.h) under conditions that put CPU-only identity UDFs at different
// places, each under device modes cpu / gpu / auto, at several fact-table sizes.
//
// The query: scan fact -> filter amount and quantity -> join customers -> derive net amount ->
// group by region and segment -> count, sum, average -> sort the 40 rows. Conditions:
//   native             no UDF
//   after_agg          identity_double over the aggregated net total (40 rows)
//   after_filter       identity_double over amount, above the filter
//   before_filter      identity_double over amount, below the filter (the filter reads it)
//   two_islands        before_filter and after_agg together (GPU work between the islands)
//   before_filter_w4   identity_double_4(amount, m1..m3) below the filter: 4 columns cross
//   before_filter_w8   ... 8 columns      before_filter_w12  ... 12 columns
// (before_filter is the 1-column width). Every condition returns the same answer as native.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tandem/bench/report.h"
#include "tandem/common/status.h"

namespace tandem::bench {

struct FallbackCondition {
  std::string name;
  std::string description;
  bool uses_udf;
};

const std::vector<FallbackCondition>& FallbackConditions();

// The SQL of a condition over tables `fact` and `customers`; "" for an unknown name.
std::string FallbackQuerySql(const std::string& condition);

struct FallbackBenchOptions {
  std::string tandem;  // the binary to measure
  std::vector<int64_t> rows = {1000000, 10000000, 50000000};
  std::vector<std::string> modes = {"cpu", "gpu", "auto"};
  std::vector<std::string> conditions;  // empty: all
  int reps = 3;                         // processes per cell, interleaved across modes
  int runs_per_process = 1;             // measured runs in each process (their median is its time)
  std::string udf_library;  // the library with identity_double*; required for UDF conditions
  std::string data_dir = "data/fallback";  // DIR/rows-N/{fact,customers}, generated if missing
  int threads = 0;                         // tandem sql --threads (0: all cores)
  double timeout_s = 1800;                 // per process
  std::string command_line;
  std::function<void(const std::string&)> log;  // progress lines
};

// Generates missing data, measures every cell, checks the answers and returns the report.
Result<Report> RunFallbackBench(const FallbackBenchOptions& options);

}  // namespace tandem::bench
