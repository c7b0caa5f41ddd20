// Parquet writing: a streaming writer that takes batches of one schema and writes them to a
// temporary file next to the target, renamed into place by Close(). A writer destroyed without a
// successful Close() removes its temporary file, so no partial file is ever left behind.
#pragma once

#include <memory>
#include <string>

#include "tandem/column/table.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

struct WriteOptions {
  CompressionCodec codec = CompressionCodec::SNAPPY;  // UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4_RAW or ZSTD
  int zstd_level = 3;
  bool dictionary = true;             // dictionary-encode columns while the dictionary stays small
  int64_t row_group_rows = 1 << 20;   // rows per row group
  int64_t data_page_bytes = 1 << 20;  // target uncompressed data page size
  bool statistics = true;             // min/max/null_count per column chunk
};

class ParquetFileWriter {
 public:
  static Result<std::unique_ptr<ParquetFileWriter>> Open(const std::string& path,
                                                         const Schema& schema,
                                                         const WriteOptions& options = {});
  virtual ~ParquetFileWriter() = default;
  virtual Status WriteBatch(const Batch& batch) = 0;
  // Flushes the last row group, writes the footer, fsyncs and renames into place.
  virtual Status Close() = 0;
};

// Convenience: writes a whole table.
Status WriteParquet(const std::string& path, const Table& table, const WriteOptions& options = {});

}  // namespace tandem::parquet
