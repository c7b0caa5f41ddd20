// CheckPageFraming (see page_framing.h), after the Snappy, Zstandard (RFC 8878, 3.1.1) and gzip
// (RFC 1952) formats.
#include "tandem/io/parquet/gpu/page_framing.h"

#include <string>

namespace tandem::parquet::gpu_decode {
namespace {

Status Disagrees(const char* codec, const char* what, uint64_t found, int64_t out_bytes) {
  return Status::Invalid(std::string(codec) + " " + what + " of " + std::to_string(found) +
                         " bytes, its header says " + std::to_string(out_bytes));
}

uint64_t LittleEndian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

Status CheckSnappy(const uint8_t* data, int64_t size, int64_t out_bytes) {
  uint64_t length = 0;
  for (int64_t i = 0, shift = 0; i < size && i < 5; ++i, shift += 7) {
    length |= static_cast<uint64_t>(data[i] & 0x7f) << shift;
    if ((data[i] & 0x80) == 0) {
      if (length != static_cast<uint64_t>(out_bytes)) {
        return Disagrees("SNAPPY", "block", length, out_bytes);
      }
      return Status::OK();
    }
  }
  return Status::Invalid("SNAPPY block without a whole length prefix");
}

Status CheckZstd(const uint8_t* data, int64_t size, int64_t out_bytes) {
  if (size < 6 || LittleEndian(data, 4) != 0xFD2FB528u) {
    return Status::Invalid("not a ZSTD frame (no magic number)");
  }
  const uint8_t descriptor = data[4];
  const int fcs_flag = descriptor >> 6;
  const bool single_segment = (descriptor & 0x20) != 0;
  const int dict_id_bytes[] = {0, 1, 2, 4};
  const int fcs_bytes[] = {single_segment ? 1 : 0, 2, 4, 8};
  const int64_t at = 5 + (single_segment ? 0 : 1) + dict_id_bytes[descriptor & 3];
  const int n = fcs_bytes[fcs_flag];
  if (n == 0) return Status::OK();  // the frame does not say its size
  if (at + n > size) return Status::Invalid("ZSTD frame header cut short");
  uint64_t content = LittleEndian(data + at, n);
  if (n == 2) content += 256;
  if (content != static_cast<uint64_t>(out_bytes)) {
    return Disagrees("ZSTD", "frame", content, out_bytes);
  }
  return Status::OK();
}

Status CheckGzip(const uint8_t* data, int64_t size, int64_t out_bytes) {
  if (size < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8) {
    return Status::Invalid("not a GZIP member (no magic bytes)");
  }
  const uint64_t isize = LittleEndian(data + size - 4, 4);
  if (isize != (static_cast<uint64_t>(out_bytes) & 0xffffffffu)) {
    return Disagrees("GZIP", "member", isize, out_bytes);
  }
  return Status::OK();
}

}  // namespace

Status CheckPageFraming(CompressionCodec codec, const uint8_t* data, int64_t size,
                        int64_t out_bytes) {
  if (!data || size <= 0) return Status::Invalid("no compressed bytes");
  switch (codec) {
    case CompressionCodec::SNAPPY:
      return CheckSnappy(data, size, out_bytes);
    case CompressionCodec::ZSTD:
      return CheckZstd(data, size, out_bytes);
    case CompressionCodec::GZIP:
      return CheckGzip(data, size, out_bytes);
    default:
      return Status::OK();
  }
}

}  // namespace tandem::parquet::gpu_decode
