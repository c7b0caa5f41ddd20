// Parquet read benchmark: reads a file, directory or glob (TPC-H lineitem in scripts/bench.sh)
// into Tandem batches on all cores, --warmup times untimed then --reps times timed, and prints
// each time, the median and the row count. scripts/bench.sh alternates it with
// bench/parquet_read_pyarrow.py on the same files.
//   parquet_read_bench PATH [--reps N] [--warmup N] [--threads N] [--columns a,b]
// Last line, for scripts: "tandem median_ms=<ms> rows=<rows> reps=<n>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tandem/io/parquet/dataset.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: parquet_read_bench PATH [--reps N] [--warmup N] [--threads N] "
               "[--columns a,b]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string path;
  int reps = 5, warmup = 1;
  tandem::parquet::ReadOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--reps" || arg == "--warmup" || arg == "--threads" || arg == "--columns") {
      const char* v = next();
      if (!v) return Usage();
      if (arg == "--reps") reps = std::max(1, std::atoi(v));
      if (arg == "--warmup") warmup = std::max(0, std::atoi(v));
      if (arg == "--threads") options.num_threads = std::atoi(v);
      if (arg == "--columns") {
        std::stringstream list(v);
        std::string name;
        while (std::getline(list, name, ',')) options.columns.push_back(name);
      }
    } else if (path.empty() && arg[0] != '-') {
      path = arg;
    } else {
      return Usage();
    }
  }
  if (path.empty()) return Usage();

  std::vector<double> times;
  int64_t rows = 0;
  tandem::parquet::ReadStats stats;
  for (int r = 0; r < warmup + reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto table = tandem::parquet::ReadParquet(path, options, &stats);
    const auto end = std::chrono::steady_clock::now();
    if (!table.ok()) {
      std::fprintf(stderr, "parquet_read_bench: %s\n", table.status().ToString().c_str());
      return 1;
    }
    rows = table->num_rows();
    const double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (r >= warmup) {
      times.push_back(ms);
      std::printf("tandem rep %d: %.1f ms\n", r - warmup + 1, ms);
    }
    // The table is freed here, inside neither timing: pyarrow's side does the same.
  }
  std::sort(times.begin(), times.end());
  const double median = times.size() % 2
                            ? times[times.size() / 2]
                            : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::printf("files %lld, row groups %lld, compressed bytes read %lld\n",
              static_cast<long long>(stats.files), static_cast<long long>(stats.row_groups),
              static_cast<long long>(stats.bytes_read));
  std::printf("tandem median_ms=%.1f rows=%lld reps=%d\n", median, static_cast<long long>(rows),
              reps);
  return 0;
}
