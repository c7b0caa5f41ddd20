// ByteSource: random access to the bytes of one Parquet file, wherever they live: an open file
// (read with pread) or a buffer in memory (viewed in place, no copy). ParquetFile reads its
// footer and column chunks through it, so files and buffers share one reading path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tandem/common/status.h"
#include "tandem/memory/buffer.h"

namespace tandem::parquet {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual int64_t size() const = 0;
  // The bytes [offset, offset + length) in place when the source is in memory, else nullptr.
  // The caller has checked the range against size().
  virtual const uint8_t* View(int64_t offset, int64_t length) const = 0;
  // Copies the bytes [offset, offset + length) to out; the caller has checked the range.
  virtual Status ReadAt(int64_t offset, int64_t length, uint8_t* out) const = 0;
};

// Opens `path` for reading; errors name the path.
Result<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path);
// A source over `buffer`, which it keeps alive.
std::unique_ptr<ByteSource> MemorySource(std::shared_ptr<Buffer> buffer);

}  // namespace tandem::parquet
