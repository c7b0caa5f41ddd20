// `tandem bench tpch`: the 22 TPC-H queries (tests/tpch/queries) under device modes cpu / gpu /
// auto, from Parquet files and optionally hot (tables held by CACHE TABLE), each (query, mode,
// source) cell in a fresh process (measure.h), every mode's answer checked against the cpu
// answer; plus DuckDB on the same files when the project's Python has it, timed by the existing
// harness (bench/tpch_gpu_bench.py duck_times: one warm-up, then the runs) and its answers
// checked against Tandem's cpu answers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tandem/bench/report.h"
#include "tandem/common/status.h"

namespace tandem::bench {

struct TpchBenchOptions {
  std::string tandem;
  std::string sf = "1";
  std::vector<std::string> modes = {"cpu", "gpu", "auto"};
  std::vector<std::string> sources = {"files"};  // files and/or hot
  std::vector<int> queries;                      // empty: 1..22
  int reps = 3;                 // files: processes per cell; hot: measured runs per query
  int runs_per_process = 1;     // files: measured runs in each process (their median is its time)
  int warmups = 2;              // files: unmeasured runs in each process before the measured ones
  std::string data_dir;         // default <repo>/data/tpch-sf<sf>; generated if missing
  std::string duckdb = "auto";  // auto (when available), on, off
  int threads = 0;
  // "key=value" settings every Tandem process runs with (`tandem sql --conf`), already checked.
  std::vector<std::string> settings;
  double timeout_s = 1800;
  std::string command_line;
  std::function<void(const std::string&)> log;
};

Result<Report> RunTpchBench(const TpchBenchOptions& options);

}  // namespace tandem::bench
