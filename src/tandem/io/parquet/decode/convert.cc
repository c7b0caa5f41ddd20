// Physical -> storage conversions and null scattering (see convert.h).
#include "tandem/io/parquet/decode/convert.h"

#include <cmath>
#include <cstring>
#include <string>

namespace tandem::parquet::decode {
namespace {

template <typename From, typename To>
void Cast(const uint8_t* src, int64_t n, uint8_t* dst) {
  const auto* in = reinterpret_cast<const From*>(src);
  auto* out = reinterpret_cast<To*>(dst);
  // memcpy-free loads: PLAIN data may be unaligned, so go through memcpy per element.
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, in + i, sizeof(From));
    To t = static_cast<To>(v);
    std::memcpy(out + i, &t, sizeof(To));
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

constexpr int64_t kJulianEpochDay = 2440588;  // Julian day number of 1970-01-01
constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;

// Big-endian two's complement of `len` bytes -> int128; false if it does not fit.
bool BigEndianToInt128(const uint8_t* p, int64_t len, int128_t* out) {
  if (len == 0) {
    *out = 0;
    return true;
  }
  const bool negative = p[0] & 0x80;
  const uint8_t fill = negative ? 0xff : 0x00;
  int64_t skip = 0;
  while (len - skip > 16) {
    if (p[skip] != fill) return false;
    ++skip;
  }
  uint128_t v = negative ? ~uint128_t{0} : 0;
  for (int64_t i = skip; i < len; ++i) v = (v << 8) | p[i];
  *out = static_cast<int128_t>(v);
  if (len - skip == 16 && ((*out < 0) != negative)) return false;
  return true;
}

Status StoreDecimal(int128_t v, int out_width, uint8_t* dst) {
  if (out_width == 8) {
    if (v < INT64_MIN || v > INT64_MAX) return Status::Invalid("decimal value out of range");
    const int64_t narrow = static_cast<int64_t>(v);
    std::memcpy(dst, &narrow, 8);
  } else {
    std::memcpy(dst, &v, 16);
  }
  return Status::OK();
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    f = mant == 0 ? INFINITY : NAN;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -f : f;
}

template <int W>
void ScatterWidth(const uint8_t* dense, const uint8_t* valid, int64_t n, uint8_t* dst) {
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) {
      std::memcpy(dst + i * W, dense + j * W, W);
      ++j;
    } else {
      std::memset(dst + i * W, 0, W);
    }
  }
}

template <int W>
void UnsplitWidth(const uint8_t* data, int64_t stride, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < W; ++k) out[i * W + k] = data[k * stride + i];
  }
}

}  // namespace

int PhysicalWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::INT32:
    case PhysicalType::FLOAT:
      return 4;
    case PhysicalType::INT64:
    case PhysicalType::DOUBLE:
      return 8;
    case PhysicalType::INT96:
      return 12;
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      return type_length;
    default:
      return 0;
  }
}

Status ConvertFixed(Conversion conversion, const uint8_t* src, int64_t n, int32_t type_length,
                    int out_width, uint8_t* dst) {
  switch (conversion) {
    case Conversion::kCopy:
      if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n * out_width));
      return Status::OK();
    case Conversion::kInt32ToInt8:
      Cast<int32_t, int8_t>(src, n, dst);
      return Status::OK();
    case Conversion::kInt32ToInt16:
      Cast<int32_t, int16_t>(src, n, dst);
      return Status::OK();
    case Conversion::kInt32ToInt64:
      Cast<int32_t, int64_t>(src, n, dst);
      return Status::OK();
    case Conversion::kInt32ToInt128:
      Cast<int32_t, int128_t>(src, n, dst);
      return Status::OK();
    case Conversion::kInt64ToInt128:
      Cast<int64_t, int128_t>(src, n, dst);
      return Status::OK();
    case Conversion::kMillisToMicros: {
      bool overflow = false;
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, src + i * 8, 8);
        overflow |= __builtin_mul_overflow(v, int64_t{1000}, &v);
        std::memcpy(dst + i * 8, &v, 8);
      }
      if (overflow) return Status::Invalid("timestamp in milliseconds out of range");
      return Status::OK();
    }
    case Conversion::kNanosToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, src + i * 8, 8);
        v = FloorDiv(v, 1000);
        std::memcpy(dst + i * 8, &v, 8);
      }
      return Status::OK();
    case Conversion::kInt96ToMicros: {
      bool overflow = false;
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos, v;
        int32_t julian_day;
        std::memcpy(&nanos, src + i * 12, 8);
        std::memcpy(&julian_day, src + i * 12 + 8, 4);
        overflow |= __builtin_mul_overflow(julian_day - kJulianEpochDay, kMicrosPerDay, &v);
        overflow |= __builtin_add_overflow(v, FloorDiv(nanos, 1000), &v);
        std::memcpy(dst + i * 8, &v, 8);
      }
      if (overflow) return Status::Invalid("INT96 timestamp out of range");
      return Status::OK();
    }
    case Conversion::kFixedDecimal:
      for (int64_t i = 0; i < n; ++i) {
        int128_t v;
        if (!BigEndianToInt128(src + i * type_length, type_length, &v)) {
          return Status::Invalid("decimal value out of range");
        }
        TANDEM_RETURN_NOT_OK(StoreDecimal(v, out_width, dst + i * out_width));
      }
      return Status::OK();
    case Conversion::kHalfToFloat:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + i * 2, 2);
        const float f = HalfToFloat(h);
        std::memcpy(dst + i * 4, &f, 4);
      }
      return Status::OK();
    default:
      return Status::Internal("ConvertFixed called for a non-fixed conversion");
  }
}

Status ConvertByteArrayDecimals(const ByteArrays& values, int64_t n, int out_width, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i) {
    int128_t v;
    const int64_t begin = values.offsets[i];
    if (!BigEndianToInt128(values.base + begin, values.offsets[i + 1] - begin, &v)) {
      return Status::Invalid("decimal value out of range");
    }
    TANDEM_RETURN_NOT_OK(StoreDecimal(v, out_width, dst + i * out_width));
  }
  return Status::OK();
}

void ScatterFixed(const uint8_t* dense, const uint8_t* valid, int64_t n, int width, uint8_t* dst) {
  switch (width) {
    case 1:
      return ScatterWidth<1>(dense, valid, n, dst);
    case 2:
      return ScatterWidth<2>(dense, valid, n, dst);
    case 4:
      return ScatterWidth<4>(dense, valid, n, dst);
    case 8:
      return ScatterWidth<8>(dense, valid, n, dst);
    case 16:
      return ScatterWidth<16>(dense, valid, n, dst);
    default:
      break;
  }
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) {
      std::memcpy(dst + i * width, dense + j * width, static_cast<size_t>(width));
      ++j;
    } else {
      std::memset(dst + i * width, 0, static_cast<size_t>(width));
    }
  }
}

Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int width, int64_t n,
                             uint8_t* out) {
  if (width <= 0 || size % width != 0) {
    return Status::Invalid("BYTE_STREAM_SPLIT data of " + std::to_string(size) +
                           " bytes is not a multiple of the value width " + std::to_string(width));
  }
  const int64_t stride = size / width;
  if (n > stride) {
    return Status::Invalid("BYTE_STREAM_SPLIT data holds " + std::to_string(stride) +
                           " values, page needs " + std::to_string(n));
  }
  switch (width) {
    case 2:
      UnsplitWidth<2>(data, stride, n, out);
      break;
    case 4:
      UnsplitWidth<4>(data, stride, n, out);
      break;
    case 8:
      UnsplitWidth<8>(data, stride, n, out);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        for (int k = 0; k < width; ++k) out[i * width + k] = data[k * stride + i];
      }
  }
  return Status::OK();
}

}  // namespace tandem::parquet::decode
