// What a benchmark report says about where it ran: the date, the machine (CPU model, cores,
// memory, OS), the GPU and Tandem's version as the `tandem version` of the measured binary
// reports them (asked in a child process, so the benchmark's own process never starts CUDA),
// and where the repository's files (TPC-H queries, the example UDF library) are.
#pragma once

#include <string>

namespace tandem::bench {

struct Environment {
  std::string date;     // "2026-05-01 14:03 +0000"
  std::string machine;  // "AMD EPYC 9654 96-Core Processor, 16 cores, 125.8 GiB, Linux 6.8.0"
  std::string gpu;      // the `GPU: ...` line of `tandem version`, without the prefix
  std::string version;  // the first line of `tandem version`
  // The figures auto plans with: "calibration file P (created D on H)" or "built-in figures (no
  // calibration file at P)"; the measured processes inherit the same environment.
  std::string placement_figures;
  bool gpu_usable = false;
};

Environment DescribeEnvironment(const std::string& tandem);

// The repository root: the nearest ancestor of the binary's folder, then of the current folder,
// holding tests/tpch/queries; "" when none does.
std::string FindRepositoryRoot(const std::string& tandem);

// The example UDF library built next to the binary (<build>/examples/udf/...), or "".
std::string FindExampleUdfLibrary(const std::string& tandem);

}  // namespace tandem::bench
