// `tandem calibrate`: measures this machine once for the placement cost model. Synthetic tables
// (a fact table of `rows` rows with int64 keys, a few groups, doubles, dates and short strings;
// a dimension table a quarter its size; the fact table as a Parquet file) are queried with the
// real operators, on the CPU and, when a GPU is usable, on the GPU; each operator's recorded time
// and bytes give its throughput (work bytes / (time - fixed cost), as cost_model.h prices them).
// Runs on a tiny table give the fixed per-operator, per-transfer and per-query costs; the
// transitions of the GPU runs give the host<->device bandwidth.
#pragma once

#include <functional>
#include <string>

#include "tandem/gpu/runtime.h"
#include "tandem/placement/calibration_file.h"

namespace tandem::placement {

struct CalibrateOptions {
  int64_t rows = 2'000'000;
  int threads = 0;          // 0: all cores
  bool measure_gpu = true;  // when a GPU is usable
  int repeats = 3;          // the fastest run of each query counts
  gpu::DeviceMemoryConfig gpu_memory;
};

// Progress lines ("cpu filter: 12.3 GB/s").
using ProgressFn = std::function<void(const std::string&)>;

Result<Calibration> Calibrate(const CalibrateOptions& options, const ProgressFn& progress);

}  // namespace tandem::placement
