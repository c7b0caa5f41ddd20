// The planning half of a Parquet table read, shared by ReadParquet (host decoding) and
// ReadParquetToDevice (GPU decoding): list the files, skip files by predicates on hive partition
// columns, open the rest in parallel, check they share one schema, resolve the projection and
// keep the row groups whose statistics may match the predicates. What is left to do is decoding
// the (row group, file column) chunks and assembling them in order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tandem/io/file_listing.h"
#include "tandem/io/parquet/dataset.h"

namespace tandem::parquet {

struct PartitionColumn {
  std::string name;
  DataType type;
  bool has_null = false;
};

// A row group that may hold matching rows.
struct KeptRowGroup {
  size_t file;  // index into ParquetReadPlan::files
  int row_group;
  int64_t rows;
};

struct ParquetReadPlan {
  io::FileListing listing;
  std::vector<PartitionColumn> partitions;
  std::vector<size_t> kept_files;                   // indexes into listing.files
  std::vector<std::unique_ptr<ParquetFile>> files;  // opened: kept_files (or the first file)
  Schema file_schema;                               // columns of the files
  Schema full_schema;                               // file columns, then partition columns
  Schema out_schema;                                // the projection
  std::vector<int> projection;                      // indexes into full_schema
  std::vector<int> file_columns;         // distinct file columns to decode, in projection order
  std::vector<KeptRowGroup> row_groups;  // in file, then row-group order

  // The partition value of key k for the file of row group r (nullopt: NULL).
  const std::optional<std::string>& PartitionValue(size_t r, size_t k) const {
    return listing.files[kept_files[row_groups[r].file]].partition_values[k];
  }
  // Compressed bytes of the chunk of file column `column` in row group r (0 when unknown).
  int64_t ChunkCompressedBytes(size_t r, int column) const;
  int64_t ChunkUncompressedBytes(size_t r, int column) const;
};

// Plans the read; fills stats->files, files_skipped, row_groups and row_groups_skipped. Errors
// are those of ReadParquet (unknown columns with suggestions, schema mismatches, ...).
Result<ParquetReadPlan> PlanParquetRead(const std::string& path, const ReadOptions& options,
                                        ReadStats* stats);

// Whether a row group belongs to the file split [start, start + length) (ReadOptions).
bool RowGroupInSplit(const RowGroup& rg, int64_t start, int64_t length);

// The constant column of one partition value, `rows` long.
ColumnPtr PartitionColumnValues(const DataType& type, const std::optional<std::string>& value,
                                int64_t rows);

}  // namespace tandem::parquet
