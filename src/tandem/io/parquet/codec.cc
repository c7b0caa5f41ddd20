// Page compression codecs: thin, size-checked wrappers over snappy, zlib, zstd, lz4 and brotli
// (snappy pages decompress with snappy_decode.h, faster than Debian's libsnappy).
// Decompression must produce exactly the size the page header announces; anything else is
// reported as corrupt data rather than trusted.
#include "tandem/io/parquet/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <limits>

#include "tandem/io/parquet/snappy_decode.h"

namespace tandem::parquet {
namespace {

Status SizeMismatch(const char* codec, int64_t got, int64_t want) {
  return Status::Invalid(std::string("corrupt ") + codec + " data: decompressed size " +
                         std::to_string(got) + " does not match the page header's " +
                         std::to_string(want));
}

Status Corrupt(const char* codec) {
  return Status::Invalid(std::string("corrupt ") + codec + " data");
}

Status SnappyDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  int64_t len = 0;
  if (!SnappyUncompressedLength(in, in_size, &len)) return Corrupt("snappy");
  if (len != out_size) return SizeMismatch("snappy", len, out_size);
  if (!SnappyDecompressBlock(in, in_size, out, out_size)) return Corrupt("snappy");
  return Status::OK();
}

// Inflates gzip or zlib data, member after member (concatenated gzip streams are legal).
Status GzipDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("inflateInit2 failed");
  int64_t in_pos = 0, out_pos = 0;
  Status result = Status::OK();
  while (true) {
    const uInt max_chunk = std::numeric_limits<uInt>::max();
    zs.next_in = const_cast<Bytef*>(in + in_pos);
    zs.avail_in = static_cast<uInt>(std::min<int64_t>(in_size - in_pos, max_chunk));
    zs.next_out = out + out_pos;
    zs.avail_out = static_cast<uInt>(std::min<int64_t>(out_size - out_pos, max_chunk));
    const uInt avail_in_before = zs.avail_in, avail_out_before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += avail_in_before - zs.avail_in;
    out_pos += avail_out_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Skip trailing zero padding; another member may follow.
      while (in_pos < in_size && in[in_pos] == 0) ++in_pos;
      if (in_pos >= in_size) break;
      if (inflateReset(&zs) != Z_OK) {
        result = Corrupt("gzip");
        break;
      }
      continue;
    }
    if (rc == Z_OK) {
      if (avail_in_before == zs.avail_in && avail_out_before == zs.avail_out) {
        result = out_pos >= out_size ? SizeMismatch("gzip", out_size + 1, out_size)
                                     : Corrupt("gzip");  // no progress: truncated input
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && out_pos >= out_size) {
      result = SizeMismatch("gzip", out_size + 1, out_size);
      break;
    }
    result = Corrupt("gzip");
    break;
  }
  inflateEnd(&zs);
  TANDEM_RETURN_NOT_OK(result);
  if (out_pos != out_size) return SizeMismatch("gzip", out_pos, out_size);
  return Status::OK();
}

Status ZstdDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  const size_t n =
      ZSTD_decompress(out, static_cast<size_t>(out_size), in, static_cast<size_t>(in_size));
  if (ZSTD_isError(n)) {
    return Status::Invalid(std::string("corrupt zstd data: ") + ZSTD_getErrorName(n));
  }
  if (static_cast<int64_t>(n) != out_size) return SizeMismatch("zstd", n, out_size);
  return Status::OK();
}

Status Lz4RawDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  if (in_size > std::numeric_limits<int>::max() || out_size > std::numeric_limits<int>::max()) {
    return Status::Invalid("LZ4 block larger than 2 GiB");
  }
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                    static_cast<int>(in_size), static_cast<int>(out_size));
  if (n < 0) return Corrupt("lz4");
  if (n != out_size) return SizeMismatch("lz4", n, out_size);
  return Status::OK();
}

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Hadoop's LZ4 framing: blocks of [BE uncompressed length][BE compressed length][LZ4 block].
bool TryHadoopLz4(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  int64_t in_pos = 0, out_pos = 0;
  while (in_pos < in_size) {
    if (in_size - in_pos < 8) return false;
    const int64_t raw_len = LoadBigEndian32(in + in_pos);
    const int64_t comp_len = LoadBigEndian32(in + in_pos + 4);
    in_pos += 8;
    if (comp_len > in_size - in_pos || raw_len > out_size - out_pos) return false;
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in + in_pos),
                                      reinterpret_cast<char*>(out + out_pos),
                                      static_cast<int>(comp_len), static_cast<int>(raw_len));
    if (n != raw_len) return false;
    in_pos += comp_len;
    out_pos += raw_len;
  }
  return out_pos == out_size;
}

Status Lz4HadoopDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  if (TryHadoopLz4(in, in_size, out, out_size)) return Status::OK();
  return Lz4RawDecompress(in, in_size, out, out_size);
}

Status BrotliDecompress(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  size_t decoded = static_cast<size_t>(out_size);
  const BrotliDecoderResult rc =
      BrotliDecoderDecompress(static_cast<size_t>(in_size), in, &decoded, out);
  if (rc != BROTLI_DECODER_RESULT_SUCCESS) return Corrupt("brotli");
  if (static_cast<int64_t>(decoded) != out_size) return SizeMismatch("brotli", decoded, out_size);
  return Status::OK();
}

Status GzipCompress(const uint8_t* in, int64_t in_size, std::string* out, int level) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (level <= 0 || level > 9) level = Z_DEFAULT_COMPRESSION;
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  const size_t start = out->size();
  const uLong bound = deflateBound(&zs, static_cast<uLong>(in_size));
  out->resize(start + bound);
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(in_size);
  zs.next_out = reinterpret_cast<Bytef*>(out->data() + start);
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  const size_t produced = bound - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    out->resize(start);
    return Status::Internal("gzip compression failed");
  }
  out->resize(start + produced);
  return Status::OK();
}

}  // namespace

bool CodecSupported(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
    case CompressionCodec::SNAPPY:
    case CompressionCodec::GZIP:
    case CompressionCodec::BROTLI:
    case CompressionCodec::LZ4:
    case CompressionCodec::ZSTD:
    case CompressionCodec::LZ4_RAW:
      return true;
    case CompressionCodec::LZO:
      return false;
  }
  return false;
}

Status Decompress(CompressionCodec codec, const uint8_t* in, int64_t in_size, uint8_t* out,
                  int64_t out_size) {
  if (in_size < 0 || out_size < 0) return Status::Invalid("negative compressed page size");
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      if (in_size != out_size) return SizeMismatch("uncompressed", in_size, out_size);
      if (in_size > 0) std::memcpy(out, in, static_cast<size_t>(in_size));
      return Status::OK();
    case CompressionCodec::SNAPPY:
      return SnappyDecompress(in, in_size, out, out_size);
    case CompressionCodec::GZIP:
      return GzipDecompress(in, in_size, out, out_size);
    case CompressionCodec::ZSTD:
      return ZstdDecompress(in, in_size, out, out_size);
    case CompressionCodec::LZ4_RAW:
      return Lz4RawDecompress(in, in_size, out, out_size);
    case CompressionCodec::LZ4:
      return Lz4HadoopDecompress(in, in_size, out, out_size);
    case CompressionCodec::BROTLI:
      return BrotliDecompress(in, in_size, out, out_size);
    case CompressionCodec::LZO:
      break;
  }
  return Status::Unsupported(std::string("compression codec ") + CodecName(codec));
}

Status Compress(CompressionCodec codec, const uint8_t* in, int64_t in_size, std::string* out,
                int level) {
  const size_t start = out->size();
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      out->append(reinterpret_cast<const char*>(in), static_cast<size_t>(in_size));
      return Status::OK();
    case CompressionCodec::SNAPPY: {
      out->resize(start + snappy::MaxCompressedLength(static_cast<size_t>(in_size)));
      size_t n = 0;
      snappy::RawCompress(reinterpret_cast<const char*>(in), static_cast<size_t>(in_size),
                          out->data() + start, &n);
      out->resize(start + n);
      return Status::OK();
    }
    case CompressionCodec::GZIP:
      return GzipCompress(in, in_size, out, level);
    case CompressionCodec::ZSTD: {
      const size_t bound = ZSTD_compressBound(static_cast<size_t>(in_size));
      out->resize(start + bound);
      const size_t n = ZSTD_compress(out->data() + start, bound, in, static_cast<size_t>(in_size),
                                     level == 0 ? 3 : level);
      if (ZSTD_isError(n)) {
        out->resize(start);
        return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
      }
      out->resize(start + n);
      return Status::OK();
    }
    case CompressionCodec::LZ4_RAW:
    case CompressionCodec::LZ4: {
      if (in_size > LZ4_MAX_INPUT_SIZE) return Status::Invalid("page too large for LZ4");
      const bool hadoop = codec == CompressionCodec::LZ4;
      const int header = hadoop ? 8 : 0;
      const int bound = LZ4_compressBound(static_cast<int>(in_size));
      out->resize(start + header + bound);
      const int n =
          LZ4_compress_default(reinterpret_cast<const char*>(in), out->data() + start + header,
                               static_cast<int>(in_size), bound);
      if (n <= 0 && in_size > 0) {
        out->resize(start);
        return Status::Internal("lz4 compression failed");
      }
      if (hadoop) {
        uint8_t* h = reinterpret_cast<uint8_t*>(out->data() + start);
        const uint32_t raw = static_cast<uint32_t>(in_size), comp = static_cast<uint32_t>(n);
        for (int i = 0; i < 4; ++i) {
          h[i] = static_cast<uint8_t>(raw >> (24 - 8 * i));
          h[4 + i] = static_cast<uint8_t>(comp >> (24 - 8 * i));
        }
      }
      out->resize(start + header + n);
      return Status::OK();
    }
    case CompressionCodec::BROTLI: {
      size_t n = BrotliEncoderMaxCompressedSize(static_cast<size_t>(in_size));
      if (n == 0) n = static_cast<size_t>(in_size) + 1024;
      out->resize(start + n);
      const int quality = level <= 0 || level > 11 ? BROTLI_DEFAULT_QUALITY : level;
      if (!BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                                 static_cast<size_t>(in_size), in, &n,
                                 reinterpret_cast<uint8_t*>(out->data() + start))) {
        out->resize(start);
        return Status::Internal("brotli compression failed");
      }
      out->resize(start + n);
      return Status::OK();
    }
    case CompressionCodec::LZO:
      break;
  }
  return Status::Unsupported(std::string("compression codec ") + CodecName(codec));
}

}  // namespace tandem::parquet
