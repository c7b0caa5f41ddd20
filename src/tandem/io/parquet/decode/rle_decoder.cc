// RLE/bit-packed hybrid run headers: "(count << 1) | 0" starts a repeated run (value in
// ceil(bit_width / 8) little-endian bytes), "(groups << 1) | 1" a run of groups * 8 bit-packed
// values. A final bit-packed run may be cut short by the writer; what is present is decodable.
#include "tandem/io/parquet/decode/rle_decoder.h"

#include <string>

#include "tandem/io/parquet/gpu/hybrid_runs.h"

namespace tandem::parquet::decode {

bool ReadUleb128(const uint8_t** pos, const uint8_t* end, uint64_t* value) {
  return gpu_decode::ReadVarint(pos, end, value);
}

Status RleBitPackedDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Invalid("RLE bit width " + std::to_string(bit_width_) + " out of range");
  }
  uint64_t header;
  if (pos_ >= end_ || !ReadUleb128(&pos_, end_, &header)) {
    return Status::Invalid("RLE data ends before all values were decoded");
  }
  if (header & 1) {
    const uint64_t groups = header >> 1;
    if (groups == 0 || groups > (uint64_t{1} << 31)) {
      return Status::Invalid("bad RLE bit-packed run length");
    }
    const int64_t full_bytes = static_cast<int64_t>(groups) * bit_width_;
    const int64_t avail = end_ - pos_;
    packed_base_ = pos_;
    packed_bytes_ = full_bytes < avail ? full_bytes : avail;
    packed_avail_ = avail;
    packed_index_ = 0;
    packed_left_ =
        bit_width_ == 0 ? static_cast<int64_t>(groups) * 8 : packed_bytes_ * 8 / bit_width_;
    if (packed_left_ > static_cast<int64_t>(groups) * 8) packed_left_ = groups * 8;
    pos_ += packed_bytes_;
    if (packed_left_ == 0) return Status::Invalid("RLE data ends inside a bit-packed run");
  } else {
    const uint64_t count = header >> 1;
    if (count == 0 || count > (uint64_t{1} << 40)) return Status::Invalid("bad RLE run length");
    const int nbytes = (bit_width_ + 7) / 8;
    if (end_ - pos_ < nbytes) return Status::Invalid("RLE data ends inside a repeated run");
    uint64_t v = 0;
    for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(pos_[i]) << (8 * i);
    pos_ += nbytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      return Status::Invalid("RLE repeated value wider than the bit width");
    }
    repeat_value_ = v;
    repeat_left_ = static_cast<int64_t>(count);
  }
  return Status::OK();
}

}  // namespace tandem::parquet::decode
