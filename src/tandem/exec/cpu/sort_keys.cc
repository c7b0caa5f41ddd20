// Normalized sort key encoding and the typed tie comparator (see sort_keys.h).
#include "tandem/exec/cpu/sort_keys.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "tandem/exec/cpu/row_gather.h"

namespace tandem::cpu {
namespace {

constexpr int kMaxBytes = SortKeyEncoder::kMaxWords * 8;
constexpr int kMaxStringPrefix = 16;

template <typename U>
inline void StoreBigEndian(U u, int width, uint8_t* dst) {
  for (int j = 0; j < width; ++j) dst[j] = static_cast<uint8_t>(u >> (8 * (width - 1 - j)));
}

inline uint64_t OrderedDoubleBits(double d) {
  if (d == 0) d = 0;  // -0.0 == 0.0
  uint64_t u;
  if (std::isnan(d)) {
    u = 0x7FF8000000000000ULL;  // one NaN, above +inf after the mapping below
  } else {
    std::memcpy(&u, &d, 8);
  }
  return (u >> 63) ? ~u : (u | (1ULL << 63));
}

inline uint32_t OrderedFloatBits(float f) {
  if (f == 0) f = 0;
  uint32_t u;
  if (std::isnan(f)) {
    u = 0x7FC00000U;
  } else {
    std::memcpy(&u, &f, 4);
  }
  return (u >> 31) ? ~u : (u | (1U << 31));
}

// Writes the order-preserving bytes of rows [begin, begin + n) at dst + i * stride.
template <typename T, typename Map>
void EncodeFixed(const Column& col, int64_t begin, int64_t n, int width, uint8_t* dst,
                 int64_t stride, Map map) {
  const T* v = col.values_as<T>() + begin;
  for (int64_t i = 0; i < n; ++i) StoreBigEndian(map(v[i]), width, dst + i * stride);
}

void EncodeValues(const Column& col, int64_t begin, int64_t n, int width, uint8_t* dst,
                  int64_t stride) {
  switch (col.type().id) {
    case TypeId::kBool:
      for (int64_t i = 0; i < n; ++i) dst[i * stride] = col.GetBool(begin + i);
      return;
    case TypeId::kInt8:
      EncodeFixed<int8_t>(col, begin, n, 1, dst, stride,
                          [](int8_t x) { return static_cast<uint8_t>(x) ^ 0x80u; });
      return;
    case TypeId::kInt16:
      EncodeFixed<int16_t>(col, begin, n, 2, dst, stride,
                           [](int16_t x) { return static_cast<uint16_t>(x) ^ 0x8000u; });
      return;
    case TypeId::kInt32:
    case TypeId::kDate32:
      EncodeFixed<int32_t>(col, begin, n, 4, dst, stride,
                           [](int32_t x) { return static_cast<uint32_t>(x) ^ 0x80000000u; });
      return;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      EncodeFixed<int64_t>(col, begin, n, 8, dst, stride, [](int64_t x) {
        return static_cast<uint64_t>(x) ^ 0x8000000000000000ULL;
      });
      return;
    case TypeId::kUInt8:
      EncodeFixed<uint8_t>(col, begin, n, 1, dst, stride, [](uint8_t x) { return x; });
      return;
    case TypeId::kUInt16:
      EncodeFixed<uint16_t>(col, begin, n, 2, dst, stride, [](uint16_t x) { return x; });
      return;
    case TypeId::kUInt32:
      EncodeFixed<uint32_t>(col, begin, n, 4, dst, stride, [](uint32_t x) { return x; });
      return;
    case TypeId::kUInt64:
      EncodeFixed<uint64_t>(col, begin, n, 8, dst, stride, [](uint64_t x) { return x; });
      return;
    case TypeId::kFloat32:
      EncodeFixed<float>(col, begin, n, 4, dst, stride, OrderedFloatBits);
      return;
    case TypeId::kFloat64:
      EncodeFixed<double>(col, begin, n, 8, dst, stride, OrderedDoubleBits);
      return;
    case TypeId::kDecimal:
      if (col.type().is_wide_decimal()) {
        EncodeFixed<int128_t>(col, begin, n, 16, dst, stride, [](int128_t x) {
          return static_cast<uint128_t>(x) ^ (static_cast<uint128_t>(1) << 127);
        });
      } else {
        EncodeFixed<int64_t>(col, begin, n, 8, dst, stride, [](int64_t x) {
          return static_cast<uint64_t>(x) ^ 0x8000000000000000ULL;
        });
      }
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      for (int64_t i = 0; i < n; ++i) {
        const std::string_view s = col.GetString(begin + i);
        // A NULL (or empty) string may have no bytes at all: memcpy from null is undefined.
        if (!s.empty()) std::memcpy(dst + i * stride, s.data(), std::min<size_t>(s.size(), width));
      }
      return;
  }
}

template <typename T>
inline int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareValues(const Column& ca, int64_t ra, const Column& cb, int64_t rb) {
  switch (ca.type().id) {
    case TypeId::kBool:
      return Cmp<int>(ca.GetBool(ra), cb.GetBool(rb));
    case TypeId::kInt8:
      return Cmp(ca.Value<int8_t>(ra), cb.Value<int8_t>(rb));
    case TypeId::kInt16:
      return Cmp(ca.Value<int16_t>(ra), cb.Value<int16_t>(rb));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Cmp(ca.Value<int32_t>(ra), cb.Value<int32_t>(rb));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return Cmp(ca.Value<int64_t>(ra), cb.Value<int64_t>(rb));
    case TypeId::kUInt8:
      return Cmp(ca.Value<uint8_t>(ra), cb.Value<uint8_t>(rb));
    case TypeId::kUInt16:
      return Cmp(ca.Value<uint16_t>(ra), cb.Value<uint16_t>(rb));
    case TypeId::kUInt32:
      return Cmp(ca.Value<uint32_t>(ra), cb.Value<uint32_t>(rb));
    case TypeId::kUInt64:
      return Cmp(ca.Value<uint64_t>(ra), cb.Value<uint64_t>(rb));
    case TypeId::kFloat32:
      return Cmp(OrderedFloatBits(ca.Value<float>(ra)), OrderedFloatBits(cb.Value<float>(rb)));
    case TypeId::kFloat64:
      return Cmp(OrderedDoubleBits(ca.Value<double>(ra)), OrderedDoubleBits(cb.Value<double>(rb)));
    case TypeId::kDecimal:
      if (ca.type().is_wide_decimal()) return Cmp(ca.Value<int128_t>(ra), cb.Value<int128_t>(rb));
      return Cmp(ca.Value<int64_t>(ra), cb.Value<int64_t>(rb));
    case TypeId::kString:
    case TypeId::kBinary: {
      const int c = ca.GetString(ra).compare(cb.GetString(rb));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
  }
  return 0;
}

}  // namespace

SortKeyEncoder::SortKeyEncoder(std::vector<std::vector<ColumnPtr>> columns,
                               std::vector<SortOrder> orders)
    : columns_(std::move(columns)), orders_(std::move(orders)) {
  const int n = num_keys();
  types_.resize(n);
  std::vector<bool> has_null(n, false);
  for (const auto& batch : columns_) {
    for (int k = 0; k < n; ++k) {
      types_[k] = batch[k]->type();
      has_null[k] = has_null[k] || batch[k]->null_count() > 0;
    }
  }
  int bytes = 0;
  tail_from_ = n;
  for (int k = 0; k < n; ++k) {
    KeyPlan p;
    p.null_byte = has_null[k];
    p.offset = bytes;
    const int room = kMaxBytes - bytes - (p.null_byte ? 1 : 0);
    if (types_[k].is_string_like()) {
      if (room < 1) {
        tail_from_ = k;
        break;
      }
      p.value_bytes = std::min(room, kMaxStringPrefix);
      plans_.push_back(p);
      bytes += (p.null_byte ? 1 : 0) + p.value_bytes;
      tail_from_ = k;  // a prefix never decides ties
      break;
    }
    const int width = types_[k].id == TypeId::kBool ? 1 : types_[k].byte_width();
    if (width > room) {
      tail_from_ = k;
      break;
    }
    p.value_bytes = width;
    plans_.push_back(p);
    bytes += (p.null_byte ? 1 : 0) + width;
  }
  encoded_keys_ = static_cast<int>(plans_.size());
  words_ = std::max(1, (bytes + 7) / 8);
}

void SortKeyEncoder::Encode(int batch, int64_t begin, int64_t end, uint64_t* out) const {
  const int64_t n = end - begin;
  const int64_t stride = words_ * 8;
  uint8_t* dst = reinterpret_cast<uint8_t*>(out);
  std::memset(dst, 0, static_cast<size_t>(n * stride));
  for (int k = 0; k < encoded_keys_; ++k) {
    const KeyPlan& p = plans_[k];
    const Column& col = *columns_[batch][k];
    const SortOrder& o = orders_[k];
    uint8_t* at = dst + p.offset + (p.null_byte ? 1 : 0);
    EncodeValues(col, begin, n, p.value_bytes, at, stride);
    if (!o.ascending) {
      for (int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < p.value_bytes; ++j) at[i * stride + j] ^= 0xFF;
      }
    }
    if (p.null_byte) {
      const uint8_t null_mark = o.nulls_first ? 0 : 1;
      uint8_t* nb = dst + p.offset;
      for (int64_t i = 0; i < n; ++i) {
        if (col.IsNull(begin + i)) {
          nb[i * stride] = null_mark;
          std::memset(nb + i * stride + 1, 0, static_cast<size_t>(p.value_bytes));
        } else {
          nb[i * stride] = 1 - null_mark;
        }
      }
    }
  }
  // Bytes are in big-endian order: turn each word into a native integer.
  for (int64_t i = 0; i < n * words_; ++i) {
    uint64_t w;
    std::memcpy(&w, dst + i * 8, 8);
    out[i] = __builtin_bswap64(w);
  }
}

int SortKeyEncoder::CompareKeys(int64_t a, int64_t b, int from, int to) const {
  const auto& cols_a = columns_[RefBatch(a)];
  const auto& cols_b = columns_[RefBatch(b)];
  const int64_t ra = RefRow(a);
  const int64_t rb = RefRow(b);
  for (int k = from; k < to; ++k) {
    const Column& ca = *cols_a[k];
    const Column& cb = *cols_b[k];
    const bool na = ca.IsNull(ra);
    const bool nb = cb.IsNull(rb);
    if (na || nb) {
      if (na && nb) continue;
      return (na == orders_[k].nulls_first) ? -1 : 1;
    }
    int c = CompareValues(ca, ra, cb, rb);
    if (c != 0) return orders_[k].ascending ? c : -c;
  }
  return 0;
}

}  // namespace tandem::cpu
