// Data of the fallback-matrix benchmark (docs/benchmarks.md): a wide fact table of orders
// (identifiers, order measures, short strings, free text, twelve float64 metrics m1..m12) and a
// 100,000-row customer dimension (segment, region, risk), written as Zstandard Parquet.
//
// Every value is a pure function of (seed, column, row) (counter-based random numbers), so the
// output is identical for any thread count and any file split. The fact table is cut into files
// of `rows_per_file` rows, generated in parallel; each file is written in slices.
//
// Domains (the benchmark's selectivity and its 40-group result depend on them):
//   order_id     1..rows, in order                 customer_id  1..100,000 uniform
//   order_date   2020-01-01 .. 2023-12-31           amount       1.00 .. 1000.00 (cents)
//   quantity     1..50                              discount     0.00 .. 0.30 (hundredths)
//   status       5 words     channel  4 words       sku          "SKU-" + 6 digits
//   note         3..14 words, NULL in 1% of rows    m1..m12      hundredths, |m_k| <= 10 k^2
//   customers: customer_id 1..100,000; segment 5 words; region 8 words; risk 0.000 .. 1.000
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/common/progress_bar.h"
#include "tandem/common/status.h"

namespace tandem::benchdata {

inline constexpr int64_t kFallbackCustomers = 100000;
inline constexpr int kFallbackMetrics = 12;
inline constexpr uint64_t kFallbackDefaultSeed = 20260501;

// The words of the low-cardinality string columns (their counts fix the result's 40 groups).
const std::vector<std::string>& FallbackSegments();  // 5
const std::vector<std::string>& FallbackRegions();   // 8
const std::vector<std::string>& FallbackStatuses();  // 5
const std::vector<std::string>& FallbackChannels();  // 4

Schema FallbackFactSchema();
Schema FallbackCustomerSchema();

// Rows [begin, end) of the fact table (0-based row numbers; order_id = row + 1).
BatchPtr GenerateFactRows(int64_t begin, int64_t end, uint64_t seed = kFallbackDefaultSeed);
// Customers [begin, end) (0-based; customer_id = row + 1), within [0, kFallbackCustomers).
BatchPtr GenerateCustomerRows(int64_t begin, int64_t end, uint64_t seed = kFallbackDefaultSeed);

struct FallbackFilePlan {
  int64_t file_index;
  int64_t begin;
  int64_t end;
};
// The fact table's files: ceil(rows / rows_per_file) of them (at least one), in row order.
std::vector<FallbackFilePlan> PlanFactFiles(int64_t rows, int64_t rows_per_file);

struct FallbackDataOptions {
  int64_t rows = 1000000;  // fact rows
  int threads = 0;         // 0: all hardware threads
  int64_t rows_per_file = 1 << 20;
  int64_t slice_rows = 1 << 17;  // rows generated and handed to the writer at a time
  int64_t row_group_rows = 1 << 18;
  uint64_t seed = kFallbackDefaultSeed;
  ProgressBar* progress = nullptr;  // advanced by rows written, if given
};

struct FallbackDataResult {
  int64_t fact_rows = 0;
  int64_t fact_files = 0;
  int64_t customer_rows = 0;
};

// Writes DIR/fact/part-NNNNN.parquet and DIR/customers/part-00000.parquet (Zstandard; each file
// atomically) and removes part files of an earlier run that this run did not write.
Result<FallbackDataResult> WriteFallbackData(const std::string& dir,
                                             const FallbackDataOptions& options);

}  // namespace tandem::benchdata
