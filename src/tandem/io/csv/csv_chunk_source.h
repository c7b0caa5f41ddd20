// CSV chunk source (internal): reads a file (or takes a buffer) in blocks of a few MiB and hands
// out chunks of complete, tokenized rows. A row cut by a block end is carried into the next block
// (blocks grow geometrically for rows longer than a block), so memory stays bounded by the
// chunks a caller keeps, not by the file size.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "tandem/io/csv/csv_tokenizer.h"

namespace tandem::csv::internal {

struct RowChunk {
  std::shared_ptr<const std::string> block;  // the bytes the field references point into
  TokenizedRows rows;
};

class ChunkSource {
 public:
  static Result<std::unique_ptr<ChunkSource>> OpenFile(const std::string& path,
                                                       const Dialect& dialect);
  static std::unique_ptr<ChunkSource> FromBuffer(std::string data, const std::string& name,
                                                 const Dialect& dialect);
  ~ChunkSource();

  const std::string& name() const { return name_; }
  // The next chunk of at most max_rows complete rows, or nullopt at the end of the input.
  Result<std::optional<RowChunk>> Next(int64_t max_rows);

 private:
  ChunkSource(std::string name, const Dialect& dialect)
      : name_(std::move(name)), tokenizer_(dialect) {}
  Status Refill();

  std::string name_;
  Tokenizer tokenizer_;
  int fd_ = -1;
  std::shared_ptr<std::string> block_;
  int64_t pos_ = 0;
  bool eof_ = false;
  bool started_ = false;
  int64_t line_ = 1;
  int num_fields_ = -1;
};

// Block size for file reads (tests shrink it to exercise rows that straddle blocks).
void SetBlockSizeForTesting(int64_t bytes);

}  // namespace tandem::csv::internal
