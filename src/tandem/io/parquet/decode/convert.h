// Conversions from Parquet physical values to Tandem storage values (widening decimals, narrowing
// small integers, timestamp units, INT96, big-endian decimals, FLOAT16), plus the scatter step
// that spreads densely decoded values over the rows of a page that has nulls. One switch per
// call, then a tight loop: no per-value dispatch.
#pragma once

#include <cstdint>

#include "tandem/common/status.h"
#include "tandem/io/parquet/decode/delta.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::parquet::decode {

// Bytes one physical value takes in PLAIN encoding (BOOLEAN and BYTE_ARRAY: 0).
int PhysicalWidth(PhysicalType type, int32_t type_length);

// Converts n dense physical values at src (PLAIN layout) into n storage values at dst, whose
// width is out_width (the Tandem type's byte width). Invalid if a decimal does not fit.
Status ConvertFixed(Conversion conversion, const uint8_t* src, int64_t n, int32_t type_length,
                    int out_width, uint8_t* dst);

// Converts n BYTE_ARRAY decimals (big-endian two's complement) into out_width-byte integers.
Status ConvertByteArrayDecimals(const ByteArrays& values, int64_t n, int out_width, uint8_t* dst);

// Spreads the dense values over n rows: row i takes the next dense value when valid[i] != 0,
// and zero otherwise.
void ScatterFixed(const uint8_t* dense, const uint8_t* valid, int64_t n, int width, uint8_t* dst);

// Unsplits n BYTE_STREAM_SPLIT values of `width` bytes from a values section of `size` bytes.
Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int width, int64_t n, uint8_t* out);

}  // namespace tandem::parquet::decode
