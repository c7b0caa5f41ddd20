// The RLE / bit-packed hybrid encoding of Parquet, used for definition levels (bit width 1) and
// dictionary indexes. Runs of 8 or more equal values become RLE runs; the rest is bit-packed in
// groups of 8 (at most 63 groups per run header, as parquet-mr and Arrow write).
#pragma once

#include <cstdint>
#include <string>

namespace tandem::parquet {

// Appends the encoding of n values, each below 2^bit_width (1..32), to out. No length prefix.
void EncodeRleBitPacked(const uint32_t* values, int64_t n, int bit_width, std::string* out);

// Appends the definition levels (bit width 1) of rows [offset, offset + n) of a validity bitmap
// (1 = present); a null bitmap means every row is present. No length prefix.
void EncodeDefinitionLevels(const uint8_t* validity, int64_t offset, int64_t n, std::string* out);

// Smallest bit width (at least 1) that holds every index below num_entries.
int BitWidthForDictionary(int64_t num_entries);

}  // namespace tandem::parquet
