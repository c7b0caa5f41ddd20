// Spark event logs as a stream of decoded bytes, whatever codec wrote them. Spark picks the codec
// by the file's suffix (`app-1.zstd`, `events_1_app.lz4.inprogress`) and writes it with its own
// codec classes: zstd-jni (plain zstd frames), lz4-java's LZ4BlockOutputStream, snappy-java's
// SnappyOutputStream and compress-lzf's LZFOutputStream, each with its own framing; users also
// gzip finished logs (or compress them with the zstd or lz4 tools: a `.lz4` file holding LZ4
// frames is recognised by its magic). EventLogStream decodes any of them with bounded memory
// (one block or one input buffer at a time).
//
// A log that is still being written (`.inprogress`) or whose application crashed ends early:
// mid-block, or without the codec's end marker. That is not an error: Read returns the bytes
// decoded before the damage, then 0, and truncated() says the stream was cut and where. Snappy
// and lzf streams have no end marker, so a file cut exactly between two of their chunks looks
// complete. Bytes that cannot be what the codec writes are an error (an Invalid status naming
// the file), and so is a block declaring more than 32 MiB (Spark writes 32 KiB by default).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "tandem/common/status.h"

namespace tandem::qualify {

enum class EventLogCodec { kNone, kZstd, kLz4, kSnappy, kLzf, kGzip };

// "none", "zstd", "lz4", "snappy", "lzf", "gzip".
const char* EventLogCodecName(EventLogCodec codec);

// The codec Spark (or gzip) used for the file `name` (a path or a file name), from its suffix
// after removing a trailing `.inprogress`: `.zstd`/`.zst`, `.lz4`, `.snappy`, `.lzf`,
// `.gz`/`.gzip`; anything else (`app-123`, `app-123.inprogress`, `events.json`) is kNone.
// Suffixes are matched without regard to case.
EventLogCodec CodecFromFileName(const std::string& name);

class CompressedInput;
class Decoder;

class EventLogStream {
 public:
  // Opens `path` with the codec its name implies.
  static Result<std::unique_ptr<EventLogStream>> Open(const std::string& path);
  static Result<std::unique_ptr<EventLogStream>> Open(const std::string& path, EventLogCodec codec);
  // Decodes `file` from its current position; `name` is what messages call it. With
  // `owns_file` the stream closes the file when it is destroyed.
  static std::unique_ptr<EventLogStream> Wrap(std::FILE* file, bool owns_file, std::string name,
                                              EventLogCodec codec);
  ~EventLogStream();
  EventLogStream(const EventLogStream&) = delete;
  EventLogStream& operator=(const EventLogStream&) = delete;

  // Decodes up to `capacity` (> 0) bytes into `out`; returns how many, and 0 only at the end of
  // the stream (then see truncated()). After an error every later call returns the same error.
  Result<size_t> Read(uint8_t* out, size_t capacity);

  // After Read returned 0: whether the stream ended before it was complete, and a one-line
  // description naming the file ("app.lz4: the lz4 block at byte 12345 is truncated (...)").
  bool truncated() const { return !truncation_.empty(); }
  const std::string& truncation_message() const { return truncation_; }

  EventLogCodec codec() const { return codec_; }
  const std::string& name() const;
  // Compressed bytes consumed from the file so far.
  int64_t compressed_offset() const;

 private:
  EventLogStream(std::unique_ptr<CompressedInput> input, EventLogCodec codec);

  std::unique_ptr<CompressedInput> input_;
  std::unique_ptr<Decoder> decoder_;
  EventLogCodec codec_;
  Status error_;
  bool ended_ = false;
  std::string truncation_;
};

}  // namespace tandem::qualify
