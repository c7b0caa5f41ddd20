// PageReader: walks the pages of one column chunk held in memory. Parses each page header,
// verifies the CRC-32 when the header carries one, and decompresses the page body (for data
// pages v2 only the values part; its levels are stored uncompressed in front of them).
#pragma once

#include <cstdint>

#include "tandem/common/status.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

// Where a decompressed page's bytes came from, to decompress it again (DecompressPage): a
// reader that decodes a page in parts need not hold a copy of it between them.
struct PageBody {
  const uint8_t* compressed = nullptr;  // the page's body in its chunk (v2: levels first)
  int64_t compressed_size = 0;
  int64_t raw_size = 0;  // uncompressed
  int64_t prefix = 0;    // v2: level bytes stored uncompressed in front of the values
  CompressionCodec codec = CompressionCodec::UNCOMPRESSED;
};

struct Page {
  PageHeader header;
  int64_t index = 0;  // page number within the chunk, for error messages
  // Uncompressed body (v2: levels, then values): in the chunk when the page is stored
  // uncompressed; else in the reader's PageDestination, or in the reading thread's scratch,
  // valid until that thread's next page.
  const uint8_t* data = nullptr;
  int64_t size = 0;
  bool decompressed = false;  // data was decompressed (scratch or destination); `body` redoes it
  PageBody body;
};

// Decompresses `body` into the calling thread's scratch and returns the uncompressed page:
// PageReader::Next's own step, and a reader's way to have a page again later (the page read last
// on this thread is overwritten).
Result<const uint8_t*> DecompressPage(const PageBody& body);
// The same into `out`, which holds body.raw_size bytes.
Status DecompressPageInto(const PageBody& body, uint8_t* out);

// Where PageReader::Next decompresses a compressed page of `raw_size` bytes: a buffer of the
// caller's (the GPU staging decompresses data pages straight into the buffer it uploads, saving
// a copy), or nullptr for the thread's scratch.
class PageDestination {
 public:
  virtual ~PageDestination() = default;
  virtual uint8_t* For(const PageHeader& header, int64_t raw_size) = 0;
  // True: leave this compressed page compressed (a GPU decompresses it later). Next then gives
  // the page with `body` set, data null and size the uncompressed size.
  virtual bool Defer(const PageHeader& /*header*/) { return false; }
};

class PageReader {
 public:
  PageReader(const uint8_t* chunk, int64_t size, CompressionCodec codec,
             PageDestination* destination = nullptr)
      : pos_(chunk), end_(chunk + size), codec_(codec), destination_(destination) {}

  // Reads the next page into *page; returns false at the end of the chunk. The page's number is
  // pages_read() - 1, for the caller's error context.
  Result<bool> Next(Page* page);
  int64_t pages_read() const { return index_; }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
  CompressionCodec codec_;
  PageDestination* destination_;
  int64_t index_ = 0;
};

}  // namespace tandem::parquet
