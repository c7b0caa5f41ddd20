// The decoders for the block framings of Spark's JVM codec libraries. Each block is read whole
// (its compressed bytes, then its decoded bytes), checked, and served from memory; blocks are
// at most kMaxEventLogBlockBytes, 32 KiB with Spark's defaults. Framings, as read in the
// libraries' sources (lz4-java 1.8.0, snappy-java 1.1.10.7, compress-lzf 1.1.2):
//
// lz4 (net.jpountz.lz4.LZ4BlockOutputStream): blocks of a 21-byte header
//   "LZ4Block" | token | compressed length | decoded length | checksum   (int32s little-endian)
// then the payload. token = method | (log2(block size) - 10) with method 0x10 (stored raw) or
// 0x20 (one LZ4 block, decoded with LZ4_decompress_safe); the decoded length is at most
// 1 << (10 + (token & 0x0F)). The checksum is XXH32 (seed 0x9747b28c) of the decoded bytes
// masked to 28 bits (StreamingXXHash32.asChecksum), and it is verified. A stream ends with an
// empty block (both lengths and the checksum 0); another stream may follow it, as Spark's
// LZ4BlockInputStream (stopOnEmptyBlock = false) accepts. The end block is written only when
// the stream is closed, so a log that stops after a data block is reported as truncated.
//
// snappy (org.xerial.snappy.SnappyOutputStream): a 16-byte header
//   0x82 "SNAPPY" 0x00 | version (int32 BE, 1) | minimum compatible version (int32 BE, 1)
// then chunks of [compressed length, int32 big-endian][one raw snappy block], without an end
// marker. A header may reappear where a chunk length is expected (concatenated streams).
// snappy-java's fallback of reading a file without the header as one raw snappy block is not
// followed: SnappyOutputStream always writes the header.
//
// lzf (com.ning.compress.lzf.LZFOutputStream): chunks of at most 65535 decoded bytes,
//   "ZV" | 0 | length (uint16 BE) | the bytes as they are, or
//   "ZV" | 1 | compressed length (uint16 BE) | decoded length (uint16 BE) | one LZF block
// without an end marker. compress-lzf reads any type other than 0 as compressed; only 0 and 1
// are written, and other types are reported as damage here.
//
// Snappy and lzf streams have no end marker, so a file cut exactly between two chunks ends
// cleanly: only a cut inside a chunk is seen as truncation.
#include <lz4.h>
#include <snappy.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "tandem/qualify/event_log_decoder.h"
#include "tandem/qualify/lzf.h"
#include "tandem/qualify/xxhash32.h"

namespace tandem::qualify {
namespace {

uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint32_t LoadBE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

uint32_t LoadBE16(const uint8_t* p) { return static_cast<uint32_t>(p[0]) << 8 | p[1]; }

// A byte buffer that grows to the largest block seen and is reused (no zero-filling).
class ByteBuffer {
 public:
  uint8_t* Reserve(size_t n) {
    if (n > capacity_) {
      data_ = std::make_unique_for_overwrite<uint8_t[]>(n);
      capacity_ = n;
    }
    return data_.get();
  }
  uint8_t* data() { return data_.get(); }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

// Serves the decoded bytes of one block at a time; subclasses decode the next block.
class BlockDecoder : public Decoder {
 public:
  explicit BlockDecoder(CompressedInput* input) : input_(input) {}

  Result<size_t> Read(uint8_t* out, size_t capacity, std::string* truncation) final {
    while (pos_ == size_) {
      if (ended_) return size_t{0};
      pos_ = size_ = 0;
      TANDEM_ASSIGN_OR_RAISE(bool more, NextBlock(truncation));
      if (!more) {
        ended_ = true;
        return size_t{0};
      }
    }
    const size_t n = std::min(capacity, size_ - pos_);
    std::memcpy(out, block_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 protected:
  // Decodes the next block into block_ and sets size_ (which may be 0), or returns false at the
  // end of the stream, after setting *truncation when the stream was cut.
  virtual Result<bool> NextBlock(std::string* truncation) = 0;

  // "<name>: the <what> at byte <at> is truncated (the file ends after <have> of its <need>
  // bytes)".
  std::string Cut(const std::string& what, int64_t at, size_t have, size_t need) const {
    return input_->name() + ": the " + what + " at byte " + std::to_string(at) +
           " is truncated (the file ends after " + std::to_string(have) + " of its " +
           std::to_string(need) + " bytes)";
  }

  CompressedInput* input_;
  ByteBuffer block_;
  size_t size_ = 0;
  ByteBuffer compressed_;

 private:
  size_t pos_ = 0;
  bool ended_ = false;
};

// ---- lz4 ------------------------------------------------------------------------------------

constexpr uint8_t kLz4Magic[8] = {'L', 'Z', '4', 'B', 'l', 'o', 'c', 'k'};
constexpr size_t kLz4HeaderBytes = 21;
constexpr uint32_t kLz4MethodRaw = 0x10;
constexpr uint32_t kLz4MethodLz4 = 0x20;
constexpr uint32_t kLz4Seed = 0x9747b28c;

class Lz4BlockDecoder : public BlockDecoder {
 public:
  using BlockDecoder::BlockDecoder;

 protected:
  Result<bool> NextBlock(std::string* truncation) override {
    const int64_t at = input_->offset();
    uint8_t header[kLz4HeaderBytes];
    TANDEM_ASSIGN_OR_RAISE(size_t got, input_->Read(header, kLz4HeaderBytes));
    if (got == 0) {
      if (in_stream_) {
        *truncation = input_->name() + ": the lz4 stream ends at byte " + std::to_string(at) +
                      " without its end block (the log was not closed)";
      }
      return false;
    }
    if (std::memcmp(header, kLz4Magic, std::min(got, sizeof(kLz4Magic))) != 0) {
      if (at == 0) return input_->Damaged("not an lz4 stream (no LZ4Block magic)");
      return input_->Damaged("no LZ4Block magic at byte " + std::to_string(at) +
                             ", where the next lz4 block should start");
    }
    if (got < kLz4HeaderBytes) {
      *truncation = Cut("header of the lz4 block", at, got, kLz4HeaderBytes);
      return false;
    }
    const uint32_t token = header[8];
    const uint32_t method = token & 0xF0;
    const int64_t max_length = int64_t{1} << (10 + (token & 0x0F));
    const int64_t compressed = static_cast<int32_t>(LoadLE32(header + 9));
    const int64_t length = static_cast<int32_t>(LoadLE32(header + 13));
    const uint32_t check = LoadLE32(header + 17);
    const std::string block = "the lz4 block at byte " + std::to_string(at);
    if ((method != kLz4MethodRaw && method != kLz4MethodLz4) || length > max_length || length < 0 ||
        compressed < 0 || (length == 0) != (compressed == 0) ||
        (method == kLz4MethodRaw && length != compressed) ||
        (method == kLz4MethodLz4 && compressed > LZ4_compressBound(static_cast<int>(length)))) {
      return input_->Damaged(block + " has an impossible header (token " + std::to_string(token) +
                             ", " + std::to_string(compressed) + " compressed bytes, " +
                             std::to_string(length) + " decoded bytes)");
    }
    if (length == 0) {  // the end block
      if (check != 0) return input_->Damaged(block + " is an end block with a nonzero checksum");
      in_stream_ = false;
      return true;
    }
    in_stream_ = true;
    uint8_t* out = block_.Reserve(static_cast<size_t>(length));
    uint8_t* payload = method == kLz4MethodRaw ? out : compressed_.Reserve(compressed);
    TANDEM_ASSIGN_OR_RAISE(got, input_->Read(payload, static_cast<size_t>(compressed)));
    if (got < static_cast<size_t>(compressed)) {
      *truncation = Cut("lz4 block", at, kLz4HeaderBytes + got, kLz4HeaderBytes + compressed);
      return false;
    }
    if (method == kLz4MethodLz4) {
      const int n =
          LZ4_decompress_safe(reinterpret_cast<const char*>(payload), reinterpret_cast<char*>(out),
                              static_cast<int>(compressed), static_cast<int>(length));
      if (n != length) {
        return input_->Damaged(block + " is damaged (it does not decode to its " +
                               std::to_string(length) + " bytes)");
      }
    }
    if ((XxHash32(out, static_cast<size_t>(length), kLz4Seed) & 0x0FFFFFFFu) != check) {
      return input_->Damaged(block + " is damaged (its checksum does not match)");
    }
    size_ = static_cast<size_t>(length);
    return true;
  }

 private:
  bool in_stream_ = false;  // a data block was read and its stream's end block was not
};

// ---- snappy ---------------------------------------------------------------------------------

constexpr uint8_t kSnappyMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kSnappyHeaderBytes = 16;

class SnappyStreamDecoder : public BlockDecoder {
 public:
  using BlockDecoder::BlockDecoder;

 protected:
  Result<bool> NextBlock(std::string* truncation) override {
    if (!header_read_) {
      uint8_t header[kSnappyHeaderBytes];
      TANDEM_ASSIGN_OR_RAISE(size_t got, input_->Read(header, kSnappyHeaderBytes));
      if (got == 0) return false;  // an empty file
      if (std::memcmp(header, kSnappyMagic, std::min(got, sizeof(kSnappyMagic))) != 0) {
        return input_->Damaged("not a snappy stream (no snappy-java SNAPPY header)");
      }
      if (got < kSnappyHeaderBytes) {
        *truncation = Cut("snappy stream header", 0, got, kSnappyHeaderBytes);
        return false;
      }
      TANDEM_RETURN_NOT_OK(CheckVersion(header, 0));
      header_read_ = true;
    }
    while (true) {
      const int64_t at = input_->offset();
      uint8_t word[kSnappyHeaderBytes];
      TANDEM_ASSIGN_OR_RAISE(size_t got, input_->Read(word, 4));
      if (got == 0) return false;  // no end marker: a chunk boundary is a clean end
      if (got < 4) {
        *truncation = Cut("length of the snappy chunk", at, got, 4);
        return false;
      }
      if (std::memcmp(word, kSnappyMagic, 4) == 0) {  // another stream's header
        TANDEM_ASSIGN_OR_RAISE(got, input_->Read(word + 4, kSnappyHeaderBytes - 4));
        if (got < kSnappyHeaderBytes - 4) {
          *truncation = Cut("snappy stream header", at, 4 + got, kSnappyHeaderBytes);
          return false;
        }
        if (std::memcmp(word, kSnappyMagic, sizeof(kSnappyMagic)) != 0) {
          return input_->Damaged("the snappy stream header at byte " + std::to_string(at) +
                                 " is damaged");
        }
        TANDEM_RETURN_NOT_OK(CheckVersion(word, at));
        continue;
      }
      const int64_t compressed = static_cast<int32_t>(LoadBE32(word));
      const std::string chunk = "the snappy chunk at byte " + std::to_string(at);
      if (compressed <= 0) {
        return input_->Damaged(chunk + " has an impossible length (" + std::to_string(compressed) +
                               ")");
      }
      if (compressed > kMaxEventLogBlockBytes) {
        return input_->Damaged(chunk + " declares " + std::to_string(compressed) +
                               " bytes, more than the 32 MiB this reader accepts");
      }
      uint8_t* in = compressed_.Reserve(static_cast<size_t>(compressed));
      TANDEM_ASSIGN_OR_RAISE(got, input_->Read(in, static_cast<size_t>(compressed)));
      if (got < static_cast<size_t>(compressed)) {
        *truncation = Cut("snappy chunk", at, 4 + got, 4 + compressed);
        return false;
      }
      const char* src = reinterpret_cast<const char*>(in);
      size_t length = 0;
      if (!snappy::GetUncompressedLength(src, static_cast<size_t>(compressed), &length)) {
        return input_->Damaged(chunk + " is damaged (no valid snappy length)");
      }
      if (length > static_cast<size_t>(kMaxEventLogBlockBytes)) {
        return input_->Damaged(chunk + " decodes to " + std::to_string(length) +
                               " bytes, more than the 32 MiB this reader accepts");
      }
      uint8_t* out = block_.Reserve(length);
      if (!snappy::RawUncompress(src, static_cast<size_t>(compressed),
                                 reinterpret_cast<char*>(out))) {
        return input_->Damaged(chunk + " is damaged (it is not valid snappy data)");
      }
      size_ = length;
      return true;
    }
  }

 private:
  Status CheckVersion(const uint8_t* header, int64_t at) const {
    const int32_t version = static_cast<int32_t>(LoadBE32(header + 8));
    if (version < 1) {  // snappy-java's SnappyCodec.MINIMUM_COMPATIBLE_VERSION
      return input_->Damaged("the snappy stream header at byte " + std::to_string(at) +
                             " has version " + std::to_string(version) + " (at least 1 expected)");
    }
    return Status::OK();
  }

  bool header_read_ = false;
};

// ---- lzf ------------------------------------------------------------------------------------

constexpr size_t kLzfHeaderBytes = 5;  // "ZV", type, length; a compressed chunk adds 2 bytes

class LzfStreamDecoder : public BlockDecoder {
 public:
  using BlockDecoder::BlockDecoder;

 protected:
  Result<bool> NextBlock(std::string* truncation) override {
    const int64_t at = input_->offset();
    uint8_t header[kLzfHeaderBytes + 2];
    TANDEM_ASSIGN_OR_RAISE(size_t got, input_->Read(header, kLzfHeaderBytes));
    if (got == 0) return false;  // no end marker: a chunk boundary is a clean end
    static constexpr uint8_t kSignature[2] = {'Z', 'V'};
    if (std::memcmp(header, kSignature, std::min<size_t>(got, 2)) != 0) {
      if (at == 0) return input_->Damaged("not an lzf stream (no ZV chunk signature)");
      return input_->Damaged("no ZV signature at byte " + std::to_string(at) +
                             ", where the next lzf chunk should start");
    }
    if (got < kLzfHeaderBytes) {
      *truncation = Cut("header of the lzf chunk", at, got, kLzfHeaderBytes);
      return false;
    }
    const std::string chunk = "the lzf chunk at byte " + std::to_string(at);
    const uint32_t type = header[2];
    const size_t stored = LoadBE16(header + 3);
    if (type == 0) {  // stored as is
      TANDEM_ASSIGN_OR_RAISE(got, input_->Read(block_.Reserve(stored), stored));
      if (got < stored) {
        *truncation = Cut("lzf chunk", at, kLzfHeaderBytes + got, kLzfHeaderBytes + stored);
        return false;
      }
      size_ = stored;
      return true;
    }
    if (type != 1) {
      return input_->Damaged(chunk + " has unknown type " + std::to_string(type) +
                             " (0 or 1 expected)");
    }
    TANDEM_ASSIGN_OR_RAISE(got, input_->Read(header + kLzfHeaderBytes, 2));
    if (got < 2) {
      *truncation = Cut("header of the lzf chunk", at, kLzfHeaderBytes + got, kLzfHeaderBytes + 2);
      return false;
    }
    const size_t length = LoadBE16(header + kLzfHeaderBytes);
    uint8_t* in = compressed_.Reserve(stored);
    TANDEM_ASSIGN_OR_RAISE(got, input_->Read(in, stored));
    if (got < stored) {
      *truncation = Cut("lzf chunk", at, kLzfHeaderBytes + 2 + got, kLzfHeaderBytes + 2 + stored);
      return false;
    }
    Status decoded = LzfDecompress(in, stored, block_.Reserve(length), length);
    if (!decoded.ok()) return input_->Damaged(chunk + " is damaged (" + decoded.message() + ")");
    size_ = length;
    return true;
  }
};

}  // namespace

std::unique_ptr<Decoder> MakeLz4BlockDecoder(CompressedInput* input) {
  return std::make_unique<Lz4BlockDecoder>(input);
}
std::unique_ptr<Decoder> MakeSnappyStreamDecoder(CompressedInput* input) {
  return std::make_unique<SnappyStreamDecoder>(input);
}
std::unique_ptr<Decoder> MakeLzfStreamDecoder(CompressedInput* input) {
  return std::make_unique<LzfStreamDecoder>(input);
}

}  // namespace tandem::qualify
