// DELTA_BINARY_PACKED: header <block size> <miniblocks per block> <count> <zigzag first value>,
// then blocks of <zigzag min delta> <one bit width per miniblock> <bit-packed miniblocks>.
// Miniblocks are read lazily, so a stream's end is known once its last value is decoded.
#include "tandem/io/parquet/decode/delta.h"

#include <algorithm>
#include <string>

#include "tandem/io/parquet/decode/bit_unpack.h"
#include "tandem/io/parquet/decode/rle_decoder.h"

namespace tandem::parquet::decode {
namespace {

uint64_t ZigZag(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }

Status Corrupt(const std::string& what) {
  return Status::Invalid("corrupt DELTA_BINARY_PACKED data: " + what);
}

}  // namespace

Status DeltaBinaryPackedDecoder::Init(const uint8_t* data, int64_t size, int value_bits) {
  pos_ = data;
  end_ = data + size;
  value_bits_ = value_bits;
  uint64_t block_size, mbs, count, first;
  if (!ReadUleb128(&pos_, end_, &block_size) || !ReadUleb128(&pos_, end_, &mbs) ||
      !ReadUleb128(&pos_, end_, &count) || !ReadUleb128(&pos_, end_, &first)) {
    return Corrupt("truncated header");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20)) {
    return Corrupt("block size " + std::to_string(block_size));
  }
  if (mbs == 0 || block_size % mbs != 0 || (block_size / mbs) % 32 != 0) {
    return Corrupt(std::to_string(mbs) + " miniblocks per block");
  }
  if (count > (uint64_t{1} << 40)) return Corrupt("value count " + std::to_string(count));
  block_size_ = static_cast<int64_t>(block_size);
  miniblocks_per_block_ = static_cast<int64_t>(mbs);
  values_per_miniblock_ = block_size_ / miniblocks_per_block_;
  total_values_ = static_cast<int64_t>(count);
  last_value_ = ZigZag(first);
  emitted_ = 0;
  miniblock_index_ = miniblocks_per_block_;
  mb_left_ = 0;
  widths_.assign(static_cast<size_t>(miniblocks_per_block_), 0);
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::NextMiniblock() {
  if (miniblock_index_ == miniblocks_per_block_) {
    uint64_t min_delta;
    if (!ReadUleb128(&pos_, end_, &min_delta)) return Corrupt("truncated block header");
    min_delta_ = ZigZag(min_delta);
    if (end_ - pos_ < miniblocks_per_block_) return Corrupt("truncated miniblock bit widths");
    for (int64_t i = 0; i < miniblocks_per_block_; ++i) widths_[i] = pos_[i];
    pos_ += miniblocks_per_block_;
    miniblock_index_ = 0;
  }
  mb_width_ = widths_[miniblock_index_++];
  if (mb_width_ > value_bits_) {
    return Corrupt("miniblock bit width " + std::to_string(mb_width_));
  }
  const int64_t needed_values = std::min<int64_t>(values_per_miniblock_, values_left());
  const int64_t full_bytes = values_per_miniblock_ * mb_width_ / 8;
  const int64_t needed_bytes = (needed_values * mb_width_ + 7) / 8;
  const int64_t avail = end_ - pos_;
  if (avail < needed_bytes) return Corrupt("truncated miniblock");
  mb_base_ = pos_;
  mb_bytes_ = std::min(full_bytes, avail);
  pos_ += mb_bytes_;
  mb_used_ = 0;
  mb_left_ = values_per_miniblock_;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder::Decode(T* out, int64_t n) {
  if (n > values_left()) {
    return Corrupt("asked for " + std::to_string(n) + " values, " + std::to_string(values_left()) +
                   " left");
  }
  int64_t i = 0;
  if (n > 0 && emitted_ == 0) {
    out[i++] = static_cast<T>(last_value_);
    ++emitted_;
  }
  uint64_t deltas[256];
  while (i < n) {
    if (mb_left_ == 0) TANDEM_RETURN_NOT_OK(NextMiniblock());
    int64_t k = std::min<int64_t>({n - i, mb_left_, 256});
    UnpackBits(mb_base_, mb_bytes_, mb_used_, mb_width_, k, deltas);
    uint64_t v = last_value_;
    for (int64_t j = 0; j < k; ++j) {
      v += min_delta_ + deltas[j];
      out[i + j] = static_cast<T>(v);
    }
    last_value_ = v;
    mb_used_ += k;
    mb_left_ -= k;
    i += k;
    emitted_ += k;
  }
  return Status::OK();
}

template Status DeltaBinaryPackedDecoder::Decode<int32_t>(int32_t*, int64_t);
template Status DeltaBinaryPackedDecoder::Decode<int64_t>(int64_t*, int64_t);

Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t n, ByteArrays* out) {
  DeltaBinaryPackedDecoder lengths;
  TANDEM_RETURN_NOT_OK(lengths.Init(data, size, 32));
  if (lengths.total_values() < n) {
    return Status::Invalid(
        "corrupt DELTA_LENGTH_BYTE_ARRAY data: " + std::to_string(lengths.total_values()) +
        " lengths for " + std::to_string(n) + " values");
  }
  std::vector<int32_t> lens(static_cast<size_t>(n));
  TANDEM_RETURN_NOT_OK(lengths.Decode(lens.data(), n));
  // Skip lengths of values beyond n (should not exist, but keep the byte position right).
  while (lengths.values_left() > 0) {
    int32_t tmp[64];
    TANDEM_RETURN_NOT_OK(lengths.Decode(tmp, std::min<int64_t>(64, lengths.values_left())));
  }
  const uint8_t* bytes = lengths.position();
  const int64_t avail = data + size - bytes;
  out->offsets.resize(static_cast<size_t>(n) + 1);
  int64_t total = 0;
  out->offsets[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (lens[i] < 0)
      return Status::Invalid("corrupt DELTA_LENGTH_BYTE_ARRAY data: negative length");
    total += lens[i];
    out->offsets[i + 1] = total;
  }
  if (total > avail) {
    return Status::Invalid("corrupt DELTA_LENGTH_BYTE_ARRAY data: lengths sum to " +
                           std::to_string(total) + " bytes, " + std::to_string(avail) + " left");
  }
  out->base = bytes;
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t n, ByteArrays* out) {
  DeltaBinaryPackedDecoder prefixes;
  TANDEM_RETURN_NOT_OK(prefixes.Init(data, size, 32));
  if (prefixes.total_values() < n) {
    return Status::Invalid("corrupt DELTA_BYTE_ARRAY data: too few prefix lengths");
  }
  std::vector<int32_t> prefix(static_cast<size_t>(prefixes.total_values()));
  TANDEM_RETURN_NOT_OK(prefixes.Decode(prefix.data(), prefixes.total_values()));
  const uint8_t* rest = prefixes.position();
  ByteArrays suffixes;
  TANDEM_RETURN_NOT_OK(DecodeDeltaLengthByteArray(rest, data + size - rest, n, &suffixes));
  out->offsets.resize(static_cast<size_t>(n) + 1);
  out->offsets[0] = 0;
  out->owned.Clear();
  int64_t prev_begin = 0, prev_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = prefix[i];
    if (p < 0 || p > prev_len) {
      return Status::Invalid("corrupt DELTA_BYTE_ARRAY data: prefix length " + std::to_string(p) +
                             " longer than the previous value");
    }
    const int64_t slen = suffixes.offsets[i + 1] - suffixes.offsets[i];
    const int64_t begin = out->owned.size();
    out->owned.Resize(begin + p + slen);
    uint8_t* dst = out->owned.data() + begin;
    if (p > 0) std::memmove(dst, out->owned.data() + prev_begin, static_cast<size_t>(p));
    if (slen > 0)
      std::memcpy(dst + p, suffixes.base + suffixes.offsets[i], static_cast<size_t>(slen));
    prev_begin = begin;
    prev_len = p + slen;
    out->offsets[i + 1] = begin + prev_len;
  }
  out->base = out->owned.data();
  return Status::OK();
}

}  // namespace tandem::parquet::decode
