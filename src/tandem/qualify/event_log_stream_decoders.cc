// The decoders whose libraries stream by themselves: plain text, zstd (zstd-jni's
// ZstdOutputStream writes standard zstd frames, decoded with ZSTD_decompressStream), gzip (zlib's
// inflate with the gzip wrapper) and LZ4 frames (what the lz4 command-line tool writes, for logs
// users compressed themselves; LZ4F_decompress). All accept several concatenated frames or
// members. The stream is cut when the file ends inside a frame or member; a file ending between
// two frames or members, or an empty file, ends cleanly.
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "tandem/qualify/event_log_decoder.h"

namespace tandem::qualify {
namespace {

constexpr size_t kInputBufferBytes = size_t{256} << 10;

// A loop that neither consumes input nor produces output more than this many times in a row is
// a bug, never an endless wait.
constexpr int kMaxIdleSteps = 4;

class PlainDecoder : public Decoder {
 public:
  explicit PlainDecoder(CompressedInput* input) : input_(input) {}
  Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) override {
    return input_->Read(out, capacity);
  }

 private:
  CompressedInput* input_;
};

class ZstdDecoder : public Decoder {
 public:
  explicit ZstdDecoder(CompressedInput* input)
      : input_(input), stream_(ZSTD_createDStream()), buffer_(ZSTD_DStreamInSize()) {
    if (stream_ != nullptr) ZSTD_initDStream(stream_);
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(stream_); }

  Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) override {
    if (stream_ == nullptr) return Status::OutOfMemory("cannot allocate a zstd decoder");
    int idle = 0;
    while (true) {
      if (in_.pos == in_.size && !eof_) {
        buffer_start_ = input_->offset();
        TANDEM_ASSIGN_OR_RAISE(size_t n, input_->Read(buffer_.data(), buffer_.size()));
        in_ = ZSTD_inBuffer{buffer_.data(), n, 0};
        eof_ = n == 0;
      }
      ZSTD_outBuffer out_buffer{out, capacity, 0};
      const size_t in_before = in_.pos;
      const size_t ret = ZSTD_decompressStream(stream_, &out_buffer, &in_);
      if (ZSTD_isError(ret)) return Damaged(ret, buffer_start_ + static_cast<int64_t>(in_before));
      if (in_.pos > in_before && !in_frame_) {
        in_frame_ = true;
        frame_start_ = buffer_start_ + static_cast<int64_t>(in_before);
      }
      if (ret == 0) {
        in_frame_ = false;
        ++frames_;
      }
      if (out_buffer.pos > 0) return out_buffer.pos;
      if (eof_ && in_.pos == in_.size) {
        if (in_frame_) {
          *truncation = input_->name() + ": the zstd frame at byte " +
                        std::to_string(frame_start_) + " is truncated (the file ends at byte " +
                        std::to_string(input_->offset()) + " before the frame is complete)";
        }
        return size_t{0};
      }
      if (in_.pos == in_before && ++idle > kMaxIdleSteps) {
        return Status::Internal(input_->name() + ": the zstd decoder makes no progress");
      }
    }
  }

 private:
  Status Damaged(size_t error, int64_t at) const {
    const bool not_a_frame = ZSTD_getErrorCode(error) == ZSTD_error_prefix_unknown;
    if (not_a_frame && !in_frame_) {
      if (frames_ == 0 && at == 0)
        return input_->Damaged("not a zstd stream (no zstd frame magic)");
      return input_->Damaged("the bytes at byte " + std::to_string(at) +
                             " after a complete zstd frame are not a zstd frame");
    }
    return input_->Damaged("the zstd frame at byte " +
                           std::to_string(in_frame_ ? frame_start_ : at) + " is damaged (" +
                           ZSTD_getErrorName(error) + ")");
  }

  CompressedInput* input_;
  ZSTD_DStream* stream_;
  std::vector<uint8_t> buffer_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  int64_t buffer_start_ = 0;  // file offset of buffer_[0]
  bool eof_ = false;
  bool in_frame_ = false;  // some bytes of the current frame were consumed
  int64_t frame_start_ = 0;
  int64_t frames_ = 0;  // frames decoded completely
};

class GzipDecoder : public Decoder {
 public:
  explicit GzipDecoder(CompressedInput* input) : input_(input), buffer_(kInputBufferBytes) {
    stream_ = z_stream{};
    initialized_ = inflateInit2(&stream_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipDecoder() override {
    if (initialized_) inflateEnd(&stream_);
  }

  Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) override {
    if (!initialized_) return Status::OutOfMemory("cannot allocate a gzip decoder");
    int idle = 0;
    while (true) {
      if (stream_.avail_in == 0 && !eof_) {
        buffer_start_ = input_->offset();
        TANDEM_ASSIGN_OR_RAISE(size_t n, input_->Read(buffer_.data(), buffer_.size()));
        stream_.next_in = buffer_.data();
        stream_.avail_in = static_cast<uInt>(n);
        eof_ = n == 0;
      }
      const uInt room = static_cast<uInt>(std::min<size_t>(capacity, UINT_MAX));
      stream_.next_out = out;
      stream_.avail_out = room;
      const uInt in_before = stream_.avail_in;
      const int64_t at = buffer_start_ + (stream_.next_in - buffer_.data());
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      const size_t produced = room - stream_.avail_out;
      if (stream_.avail_in < in_before && !in_member_) {
        in_member_ = true;
        member_start_ = at;
      }
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        ++members_;
        if (inflateReset(&stream_) != Z_OK) return Status::Internal("inflateReset failed");
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return Damaged(rc, at);
      }
      if (produced > 0) return produced;
      if (eof_ && stream_.avail_in == 0 && rc != Z_STREAM_END) {
        if (in_member_) {
          *truncation = input_->name() + ": the gzip member at byte " +
                        std::to_string(member_start_) + " is truncated (the file ends at byte " +
                        std::to_string(input_->offset()) + " before the member is complete)";
        }
        return size_t{0};
      }
      if (stream_.avail_in == in_before && rc != Z_STREAM_END && ++idle > kMaxIdleSteps) {
        return Status::Internal(input_->name() + ": the gzip decoder makes no progress");
      }
    }
  }

 private:
  Status Damaged(int rc, int64_t at) const {
    const std::string why =
        stream_.msg != nullptr ? stream_.msg : "zlib error " + std::to_string(rc);
    if (!in_member_ || member_start_ == at) {
      // The member starting here: is it a gzip member at all (1f 8b)?
      const int64_t i = at - buffer_start_;
      const int64_t have =
          static_cast<int64_t>(stream_.next_in - buffer_.data() + stream_.avail_in);
      const bool magic = i >= 0 && i + 2 <= have && buffer_[i] == 0x1f && buffer_[i + 1] == 0x8b;
      if (!magic && members_ == 0) return input_->Damaged("not a gzip stream (" + why + ")");
      if (!magic) {
        return input_->Damaged("the bytes at byte " + std::to_string(at) +
                               " after a complete gzip member are not a gzip member (" + why + ")");
      }
      return input_->Damaged("the gzip member at byte " + std::to_string(at) + " is damaged (" +
                             why + ")");
    }
    return input_->Damaged("the gzip member at byte " + std::to_string(member_start_) +
                           " is damaged (" + why + ")");
  }

  CompressedInput* input_;
  std::vector<uint8_t> buffer_;
  z_stream stream_;
  bool initialized_ = false;
  int64_t buffer_start_ = 0;
  bool eof_ = false;
  bool in_member_ = false;
  int64_t member_start_ = 0;
  int64_t members_ = 0;
};

class Lz4FrameDecoder : public Decoder {
 public:
  explicit Lz4FrameDecoder(CompressedInput* input) : input_(input), buffer_(kInputBufferBytes) {
    if (LZ4F_isError(LZ4F_createDecompressionContext(&context_, LZ4F_VERSION))) context_ = nullptr;
  }
  ~Lz4FrameDecoder() override { LZ4F_freeDecompressionContext(context_); }

  Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) override {
    if (context_ == nullptr) return Status::OutOfMemory("cannot allocate an lz4 frame decoder");
    int idle = 0;
    while (true) {
      if (pos_ == size_ && !eof_) {
        buffer_start_ = input_->offset();
        TANDEM_ASSIGN_OR_RAISE(size_, input_->Read(buffer_.data(), buffer_.size()));
        pos_ = 0;
        eof_ = size_ == 0;
      }
      size_t produced = capacity, consumed = size_ - pos_;
      const int64_t at = buffer_start_ + static_cast<int64_t>(pos_);
      const size_t ret =
          LZ4F_decompress(context_, out, &produced, buffer_.data() + pos_, &consumed, nullptr);
      if (LZ4F_isError(ret)) {
        return input_->Damaged("the lz4 frame at byte " +
                               std::to_string(in_frame_ ? frame_start_ : at) + " is damaged (" +
                               LZ4F_getErrorName(ret) + ")");
      }
      pos_ += consumed;
      if (consumed > 0 && !in_frame_) {
        in_frame_ = true;
        frame_start_ = at;
      }
      if (ret == 0) in_frame_ = false;
      if (produced > 0) return produced;
      if (eof_ && pos_ == size_) {
        if (in_frame_) {
          *truncation = input_->name() + ": the lz4 frame at byte " + std::to_string(frame_start_) +
                        " is truncated (the file ends at byte " + std::to_string(input_->offset()) +
                        " before the frame is complete)";
        }
        return size_t{0};
      }
      if (consumed == 0 && ++idle > kMaxIdleSteps) {
        return Status::Internal(input_->name() + ": the lz4 frame decoder makes no progress");
      }
    }
  }

 private:
  CompressedInput* input_;
  LZ4F_dctx* context_ = nullptr;
  std::vector<uint8_t> buffer_;
  size_t pos_ = 0, size_ = 0;
  int64_t buffer_start_ = 0;
  bool eof_ = false;
  bool in_frame_ = false;
  int64_t frame_start_ = 0;
};

}  // namespace

std::unique_ptr<Decoder> MakePlainDecoder(CompressedInput* input) {
  return std::make_unique<PlainDecoder>(input);
}
std::unique_ptr<Decoder> MakeZstdDecoder(CompressedInput* input) {
  return std::make_unique<ZstdDecoder>(input);
}
std::unique_ptr<Decoder> MakeGzipDecoder(CompressedInput* input) {
  return std::make_unique<GzipDecoder>(input);
}
std::unique_ptr<Decoder> MakeLz4FrameDecoder(CompressedInput* input) {
  return std::make_unique<Lz4FrameDecoder>(input);
}

}  // namespace tandem::qualify
