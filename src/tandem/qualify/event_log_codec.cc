// Codec names, the suffix rule Spark's EventLogFileReader.codecName uses (strip `.inprogress`,
// take what follows the last dot), the compressed input, and EventLogStream: the file, one
// decoder (chosen at the first Read), and the sticky end or error state that makes Read safe to
// call again after either.
#include "tandem/qualify/event_log_codec.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "tandem/qualify/event_log_decoder.h"

namespace tandem::qualify {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const char* EventLogCodecName(EventLogCodec codec) {
  switch (codec) {
    case EventLogCodec::kNone:
      return "none";
    case EventLogCodec::kZstd:
      return "zstd";
    case EventLogCodec::kLz4:
      return "lz4";
    case EventLogCodec::kSnappy:
      return "snappy";
    case EventLogCodec::kLzf:
      return "lzf";
    case EventLogCodec::kGzip:
      return "gzip";
  }
  return "unknown";
}

EventLogCodec CodecFromFileName(const std::string& name) {
  std::string base = Lower(name.substr(name.find_last_of('/') + 1));
  static const std::string kInProgress = ".inprogress";
  if (EndsWith(base, kInProgress)) base.resize(base.size() - kInProgress.size());
  const size_t dot = base.find_last_of('.');
  if (dot == std::string::npos) return EventLogCodec::kNone;
  const std::string suffix = base.substr(dot + 1);
  if (suffix == "zstd" || suffix == "zst") return EventLogCodec::kZstd;
  if (suffix == "lz4") return EventLogCodec::kLz4;
  if (suffix == "snappy") return EventLogCodec::kSnappy;
  if (suffix == "lzf") return EventLogCodec::kLzf;
  if (suffix == "gz" || suffix == "gzip") return EventLogCodec::kGzip;
  return EventLogCodec::kNone;
}

// ---- CompressedInput ---------------------------------------------------------------------------

CompressedInput::CompressedInput(std::FILE* file, bool owns_file, std::string name)
    : file_(file), owns_file_(owns_file), name_(std::move(name)) {}

CompressedInput::~CompressedInput() {
  if (owns_file_ && file_ != nullptr) std::fclose(file_);
}

Result<size_t> CompressedInput::Read(uint8_t* out, size_t size) {
  size_t done = 0;
  if (peeked_pos_ < peeked_.size()) {
    done = std::min(size, peeked_.size() - peeked_pos_);
    std::memcpy(out, peeked_.data() + peeked_pos_, done);
    peeked_pos_ += done;
  }
  errno = 0;
  const size_t n = std::fread(out + done, 1, size - done, file_);  // short only at end or error
  if (n < size - done && std::ferror(file_)) {
    const int err = errno;
    return Status::IOError("cannot read " + name_ + ": " +
                           (err != 0 ? std::strerror(err) : "read error"));
  }
  done += n;
  offset_ += static_cast<int64_t>(done);
  return done;
}

Result<size_t> CompressedInput::Peek(uint8_t* out, size_t size) {
  const size_t have = peeked_.size() - peeked_pos_;
  if (have < size) {
    peeked_.erase(peeked_.begin(), peeked_.begin() + static_cast<ptrdiff_t>(peeked_pos_));
    peeked_pos_ = 0;
    peeked_.resize(size);
    errno = 0;
    const size_t n = std::fread(peeked_.data() + have, 1, size - have, file_);
    peeked_.resize(have + n);
    if (n < size - have && std::ferror(file_)) {
      const int err = errno;
      return Status::IOError("cannot read " + name_ + ": " +
                             (err != 0 ? std::strerror(err) : "read error"));
    }
  }
  const size_t n = std::min(size, peeked_.size() - peeked_pos_);
  std::memcpy(out, peeked_.data() + peeked_pos_, n);
  return n;
}

// ---- choosing the decoder ---------------------------------------------------------------------

Result<std::unique_ptr<Decoder>> MakeDecoder(EventLogCodec codec, CompressedInput* input) {
  switch (codec) {
    case EventLogCodec::kNone:
      return MakePlainDecoder(input);
    case EventLogCodec::kZstd:
      return MakeZstdDecoder(input);
    case EventLogCodec::kLz4: {
      // 0x184D2204 little-endian; a file cut inside the magic still counts as a frame.
      static constexpr uint8_t kFrameMagic[4] = {0x04, 0x22, 0x4D, 0x18};
      uint8_t magic[4];
      TANDEM_ASSIGN_OR_RAISE(size_t n, input->Peek(magic, sizeof(magic)));
      const bool frame = n > 0 && std::memcmp(magic, kFrameMagic, n) == 0;
      return frame ? MakeLz4FrameDecoder(input) : MakeLz4BlockDecoder(input);
    }
    case EventLogCodec::kSnappy:
      return MakeSnappyStreamDecoder(input);
    case EventLogCodec::kLzf:
      return MakeLzfStreamDecoder(input);
    case EventLogCodec::kGzip:
      return MakeGzipDecoder(input);
  }
  return Status::Internal("no decoder for event log codec " +
                          std::to_string(static_cast<int>(codec)));
}

// ---- EventLogStream ----------------------------------------------------------------------------

EventLogStream::EventLogStream(std::unique_ptr<CompressedInput> input, EventLogCodec codec)
    : input_(std::move(input)), codec_(codec) {}

EventLogStream::~EventLogStream() = default;

Result<std::unique_ptr<EventLogStream>> EventLogStream::Open(const std::string& path) {
  return Open(path, CodecFromFileName(path));
}

Result<std::unique_ptr<EventLogStream>> EventLogStream::Open(const std::string& path,
                                                             EventLogCodec codec) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::IOError("cannot open " + path + ": " + std::strerror(errno));
  }
  return Wrap(file, /*owns_file=*/true, path, codec);
}

std::unique_ptr<EventLogStream> EventLogStream::Wrap(std::FILE* file, bool owns_file,
                                                     std::string name, EventLogCodec codec) {
  auto input = std::make_unique<CompressedInput>(file, owns_file, std::move(name));
  return std::unique_ptr<EventLogStream>(new EventLogStream(std::move(input), codec));
}

const std::string& EventLogStream::name() const { return input_->name(); }

int64_t EventLogStream::compressed_offset() const { return input_->offset(); }

Result<size_t> EventLogStream::Read(uint8_t* out, size_t capacity) {
  if (!error_.ok()) return error_;
  if (ended_) return size_t{0};
  if (capacity == 0) return Status::Internal("EventLogStream::Read with no room to read into");
  if (decoder_ == nullptr) {
    Result<std::unique_ptr<Decoder>> decoder = MakeDecoder(codec_, input_.get());
    if (!decoder.ok()) {
      error_ = decoder.status();
      return error_;
    }
    decoder_ = std::move(decoder).value();
  }
  Result<size_t> n = decoder_->Read(out, capacity, &truncation_);
  if (!n.ok()) {
    error_ = n.status();
    return error_;
  }
  if (*n == 0) ended_ = true;
  return n;
}

}  // namespace tandem::qualify
