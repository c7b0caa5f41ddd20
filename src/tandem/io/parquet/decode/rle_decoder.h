// RleBitPackedDecoder: Parquet's RLE/bit-packed hybrid encoding, used for definition levels,
// dictionary indexes and RLE booleans. Runs are decoded in bulk (a run of repeats is a fill, a
// bit-packed run an unpack); every header and byte count is checked against the input.
#pragma once

#include <cstdint>

#include "tandem/common/status.h"
#include "tandem/io/parquet/decode/bit_unpack.h"

namespace tandem::parquet::decode {

class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  // bit_width 0..32; data is the encoded runs (without any length prefix).
  RleBitPackedDecoder(const uint8_t* data, int64_t size, int bit_width)
      : pos_(data), end_(data + size), bit_width_(bit_width) {}

  // Whether the next n values (n > 0) are one run of repeats of `value`: if so they are
  // consumed, else nothing is (GetBatch reads them). Invalid if the runs end first.
  Result<bool> SkipRepeats(int64_t n, uint64_t value) {
    if (repeat_left_ == 0 && packed_left_ == 0) TANDEM_RETURN_NOT_OK(NextRun());
    if (repeat_left_ < n || repeat_value_ != value) return false;
    repeat_left_ -= n;
    return true;
  }
  // Decodes exactly n values into out; Invalid if the runs end first.
  template <typename T>
  Status GetBatch(T* out, int64_t n) {
    int64_t done = 0;
    while (done < n) {
      if (repeat_left_ == 0 && packed_left_ == 0) TANDEM_RETURN_NOT_OK(NextRun());
      if (repeat_left_ > 0) {
        const int64_t k = repeat_left_ < n - done ? repeat_left_ : n - done;
        const T v = static_cast<T>(repeat_value_);
        for (int64_t i = 0; i < k; ++i) out[done + i] = v;
        repeat_left_ -= k;
        done += k;
      } else {
        const int64_t k = packed_left_ < n - done ? packed_left_ : n - done;
        UnpackBits(packed_base_, packed_avail_, packed_index_, bit_width_, k, out + done);
        packed_index_ += k;
        packed_left_ -= k;
        done += k;
      }
    }
    return Status::OK();
  }

 private:
  Status NextRun();

  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t repeat_left_ = 0;
  uint64_t repeat_value_ = 0;
  int64_t packed_left_ = 0;
  const uint8_t* packed_base_ = nullptr;
  int64_t packed_bytes_ = 0;
  // Bytes readable from packed_base_ (to the end of the data: loads may pass the run's end, the
  // values never do).
  int64_t packed_avail_ = 0;
  int64_t packed_index_ = 0;
};

// Reads an unsigned LEB128 varint at *pos (advancing it); false if it runs past end.
bool ReadUleb128(const uint8_t** pos, const uint8_t* end, uint64_t* value);

}  // namespace tandem::parquet::decode
