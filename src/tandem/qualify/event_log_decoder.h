// Internal to EventLogStream: the compressed bytes of one event log file (CompressedInput) and
// the Decoder each codec implements on top of them. Decoders stream: they hold at most one
// block (Spark writes 32 KiB blocks by default; larger than 32 MiB is refused) or one input
// buffer, never the whole file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/qualify/event_log_codec.h"

namespace tandem::qualify {

// The largest block a framed codec (lz4, snappy) may declare. lz4-java's own limit is 32 MiB;
// snappy-java would allow 512 MiB, but Spark writes 32 KiB unless configured otherwise.
inline constexpr int64_t kMaxEventLogBlockBytes = int64_t{32} << 20;

// The file being decoded, read front to back; `offset()` is how many bytes were consumed, which
// is what error messages cite as "at byte N".
class CompressedInput {
 public:
  CompressedInput(std::FILE* file, bool owns_file, std::string name);
  ~CompressedInput();
  CompressedInput(const CompressedInput&) = delete;
  CompressedInput& operator=(const CompressedInput&) = delete;

  // Reads up to `size` bytes; fewer only at the end of the file (0: nothing was left).
  Result<size_t> Read(uint8_t* out, size_t size);
  // Copies up to `size` bytes that the next Read will return (fewer only at the end of the
  // file), to sniff a format by its first bytes.
  Result<size_t> Peek(uint8_t* out, size_t size);
  int64_t offset() const { return offset_; }
  const std::string& name() const { return name_; }

  // "<name>: <what>" as an Invalid status.
  Status Damaged(const std::string& what) const { return Status::Invalid(name_ + ": " + what); }

 private:
  std::FILE* file_;
  bool owns_file_;
  std::string name_;
  int64_t offset_ = 0;
  std::vector<uint8_t> peeked_;  // read from the file but not yet by Read
  size_t peeked_pos_ = 0;
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Writes between 1 and `capacity` (> 0) decoded bytes to `out` and returns how many, or
  // returns 0 at the end of the stream. At an end where the stream stops before it was complete
  // (mid-block, or without its end marker), it first sets *truncation to a one-line description
  // naming the file; at a clean end it leaves *truncation empty.
  virtual Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) = 0;
};

// The decoder for `codec`, chosen before the first byte is decoded: a `.lz4` file is sniffed,
// since the lz4 command-line tool writes LZ4 frames where Spark writes LZ4Block streams.
Result<std::unique_ptr<Decoder>> MakeDecoder(EventLogCodec codec, CompressedInput* input);

// One per format; `input` outlives the decoder.
std::unique_ptr<Decoder> MakePlainDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeZstdDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeGzipDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeLz4BlockDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeLz4FrameDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeSnappyStreamDecoder(CompressedInput* input);
std::unique_ptr<Decoder> MakeLzfStreamDecoder(CompressedInput* input);

}  // namespace tandem::qualify
