// The deprecated BIT_PACKED level encoding of Parquet: values of `bit_width` bits packed one
// after the other from the most significant bit of each byte down (unlike the LSB-first runs of
// the RLE/bit-packed hybrid). Still found in definition levels of old data pages v1.
#pragma once

#include <cstdint>

#include "tandem/common/status.h"

namespace tandem::parquet::decode {

// Unpacks n values into out (values above 255 become 255, which no flat column's level
// reaches); Invalid when the `size` bytes hold fewer than n values or bit_width is not 0..16.
Status UnpackMsbFirst(const uint8_t* data, int64_t size, int bit_width, int64_t n, uint8_t* out);

}  // namespace tandem::parquet::decode
