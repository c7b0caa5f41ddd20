// MSB-first bit unpacking for BIT_PACKED definition levels (see msb_bit_unpack.h).
#include "tandem/io/parquet/decode/msb_bit_unpack.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "tandem/common/bit_util.h"

namespace tandem::parquet::decode {

Status UnpackMsbFirst(const uint8_t* data, int64_t size, int bit_width, int64_t n, uint8_t* out) {
  if (bit_width < 0 || bit_width > 16) {
    return Status::Invalid("BIT_PACKED bit width " + std::to_string(bit_width));
  }
  if (n < 0 || (n > 0 && bit_width > 0 && bit_util::BytesForBits(n * bit_width) > size)) {
    return Status::Invalid(std::to_string(n) + " BIT_PACKED values of " +
                           std::to_string(bit_width) + " bits need more than " +
                           std::to_string(size) + " bytes");
  }
  if (bit_width == 0) {
    if (n > 0) std::memset(out, 0, static_cast<size_t>(n));
    return Status::OK();
  }
  if (bit_width == 1) {  // the common case: max level 1, eight levels per byte
    for (int64_t i = 0; i < n; ++i) out[i] = (data[i >> 3] >> (7 - (i & 7))) & 1;
    return Status::OK();
  }
  int64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t value = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) {
      value = (value << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1u);
    }
    out[i] = static_cast<uint8_t>(std::min<uint32_t>(value, 255));
  }
  return Status::OK();
}

}  // namespace tandem::parquet::decode
