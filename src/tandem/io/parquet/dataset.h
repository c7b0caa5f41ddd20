// Multi-file Parquet reading with pruning counts: the same as ReadParquet (reader.h) plus a
// ReadStats record of what the scan touched and skipped, for EXPLAIN and benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/io/parquet/reader.h"

namespace tandem::parquet {

struct ReadStats {
  int64_t files = 0;               // files listed
  int64_t files_skipped = 0;       // skipped by predicates on hive partition columns
  int64_t row_groups = 0;          // row groups in the files not skipped
  int64_t row_groups_skipped = 0;  // skipped by min/max/null-count statistics
  int64_t rows = 0;                // rows returned
  int64_t bytes_read = 0;          // compressed bytes of the column chunks decoded
  // ReadOptions::row_conditions: chunks read as dictionary codes, and the rows their conditions
  // dropped before the row groups' batches were built.
  int64_t chunks_as_codes = 0;
  int64_t rows_dropped_by_conditions = 0;
};

// ReadParquet (reader.h) that also fills *stats (when not null), even on the error path as far
// as it got.
Result<Table> ReadParquet(const std::string& path, const ReadOptions& options, ReadStats* stats);

// Partition column types: int64 when every non-NULL value of a key parses as a decimal integer
// in int64 range, else string.
bool ParsePartitionInt64(const std::string& text, int64_t* value);

}  // namespace tandem::parquet
