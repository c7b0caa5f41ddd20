// DELTA_BINARY_PACKED (int32/int64), DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoders.
// Block and miniblock headers are validated; arithmetic wraps in unsigned 64 bits as the format
// requires, so hostile deltas cannot cause undefined behaviour.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/io/parquet/decode/raw_buffer.h"

namespace tandem::parquet::decode {

class DeltaBinaryPackedDecoder {
 public:
  // Reads the header. `value_bits` is 32 or 64 (miniblock widths above it are errors).
  Status Init(const uint8_t* data, int64_t size, int value_bits);
  int64_t total_values() const { return total_values_; }
  int64_t values_left() const { return total_values_ - emitted_; }
  // Decodes the next n values (T = int32_t or int64_t).
  template <typename T>
  Status Decode(T* out, int64_t n);
  // First byte after the miniblocks consumed so far (after all values: the end of the stream).
  const uint8_t* position() const { return pos_; }

 private:
  Status NextMiniblock();

  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  int value_bits_ = 64;
  int64_t block_size_ = 0;
  int64_t miniblocks_per_block_ = 0;
  int64_t values_per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t emitted_ = 0;
  uint64_t last_value_ = 0;
  uint64_t min_delta_ = 0;
  int64_t miniblock_index_ = 0;  // within the current block; == miniblocks_per_block_: new block
  std::vector<uint8_t> widths_;
  const uint8_t* mb_base_ = nullptr;
  int64_t mb_bytes_ = 0;
  int mb_width_ = 0;
  int64_t mb_used_ = 0;
  int64_t mb_left_ = 0;
};

// Dense byte arrays: value i is base[offsets[i] .. offsets[i+1]).
struct ByteArrays {
  std::vector<int64_t> offsets;  // n + 1 entries
  const uint8_t* base = nullptr;
  RawBuffer owned;  // backs `base` when the values had to be assembled (DELTA_BYTE_ARRAY)
  int64_t size() const { return offsets.empty() ? 0 : static_cast<int64_t>(offsets.size()) - 1; }
};

// Decodes n DELTA_LENGTH_BYTE_ARRAY values from data (the values point into data).
Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t n, ByteArrays* out);
// Decodes n DELTA_BYTE_ARRAY values (prefix/suffix), assembled into out->owned.
Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t n, ByteArrays* out);

}  // namespace tandem::parquet::decode
