// PageReader: walks the pages of one column chunk held in memory. Parses each page header,
// verifies the CRC-32 when the header carries one, and decompresses the page body (for data
// pages v2 only the values part; its levels are stored uncompressed in front of them).
#pragma once

#include <cstdint>

#include "tandem/common/status.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

struct Page {
  PageHeader header;
  int64_t index = 0;              // page number within the chunk, for error messages
  const uint8_t* data = nullptr;  // uncompressed body (v2: levels, then values)
  int64_t size = 0;
};

class PageReader {
 public:
  PageReader(const uint8_t* chunk, int64_t size, CompressionCodec codec)
      : pos_(chunk), end_(chunk + size), codec_(codec) {}

  // Reads the next page into *page; returns false at the end of the chunk. The page's number is
  // pages_read() - 1, for the caller's error context.
  Result<bool> Next(Page* page);
  int64_t pages_read() const { return index_; }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
  CompressionCodec codec_;
  int64_t index_ = 0;
};

}  // namespace tandem::parquet
