// Parallel TPC-H generation: splits every table into files (a layout that depends only on the
// scale factor), generates the files on a pool of threads in slices of ~128K rows, and hands each
// slice to a sink per file (a Parquet or CSV writer in `tandem datagen`, memory in tests). The
// output is identical for any thread count.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/common/progress_bar.h"
#include "tandem/tpch/tpch_schema.h"

namespace tandem::tpch {

// Where the batches of one output file go. Write is called in row order; Close once at the end.
class TpchFileSink {
 public:
  virtual ~TpchFileSink() = default;
  virtual Status Write(const Batch& batch) = 0;
  virtual Status Close() = 0;
};

// Opens the sink for file `file_index` (0-based) of `table`. Called from worker threads.
using TpchSinkFactory =
    std::function<Result<std::unique_ptr<TpchFileSink>>(TpchTable table, int64_t file_index)>;

// One output file: driver rows [begin, end) of its table (see TpchSizes::DriverRows).
struct TpchFilePlan {
  TpchTable table;
  int64_t file_index;
  int64_t begin;
  int64_t end;
};

// The files of `table`: ~4M rows each (1M orders for orders/lineitem, 1M parts for partsupp),
// balanced, at least one.
std::vector<TpchFilePlan> PlanTpchFiles(const TpchSizes& sizes, TpchTable table);

struct TpchDatagenOptions {
  double scale_factor = 1;
  int threads = 0;                  // 0: all hardware threads
  ProgressBar* progress = nullptr;  // advanced by rows written, if given
};

struct TpchDatagenResult {
  int64_t rows[8] = {};   // per table, indexed by static_cast<int>(TpchTable)
  int64_t files[8] = {};  // per table
};

// Generates all eight tables into sinks from `open_sink`. Stops at the first error and returns it
// (sinks of unfinished files are destroyed without Close).
Result<TpchDatagenResult> GenerateTpch(const TpchDatagenOptions& options,
                                       const TpchSinkFactory& open_sink);

}  // namespace tandem::tpch
