// Normalized sort key encoding and the typed tie comparator (see sort_keys.h).
#include "tandem/exec/cpu/sort_keys.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/types/type_dispatch.h"

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

// Unsigned image of a fixed-width value in the same order: sign bit flipped for signed integers,
// the IEEE mapping above for floats, unsigned integers as they are.
template <typename T>
inline auto OrderedBits(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return OrderedFloatBits(x);
  } else if constexpr (std::is_same_v<T, double>) {
    return OrderedDoubleBits(x);
  } else if constexpr (std::is_same_v<T, int128_t>) {
    return static_cast<uint128_t>(x) ^ (static_cast<uint128_t>(1) << 127);
  } else if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<U>(static_cast<U>(x) ^ (U{1} << (8 * sizeof(T) - 1)));
  } else {
    return x;
  }
}

// Writes the order-preserving bytes of rows [begin, begin + n) at dst + i * stride.
template <typename T>
void EncodeFixed(const Column& col, int64_t begin, int64_t n, uint8_t* dst, int64_t stride) {
  const T* v = col.values_as<T>() + begin;
  for (int64_t i = 0; i < n; ++i) StoreBigEndian(OrderedBits(v[i]), sizeof(T), dst + i * stride);
}

void EncodeBools(const Column& col, int64_t begin, int64_t n, uint8_t* dst, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) dst[i * stride] = col.GetBool(begin + i);
}

// Strings and binary: the first `width` bytes (the rest stays zero).
void EncodePrefixes(const Column& col, int64_t begin, int64_t n, int width, uint8_t* dst,
                    int64_t stride) {
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = col.GetString(begin + i);
    // A NULL (or empty) string may have no bytes at all: memcpy from null is undefined.
    if (!s.empty()) std::memcpy(dst + i * stride, s.data(), std::min<size_t>(s.size(), width));
  }
}

// Strings no longer than width - 1 bytes, exactly: their bytes, zeros, then their length in the
// last byte (so "ab" < "ab\0" < "abc", as the byte-wise string order has it).
void EncodeExactStrings(const Column& col, int64_t begin, int64_t n, int width, uint8_t* dst,
                        int64_t stride) {
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = col.GetString(begin + i);
    if (!s.empty()) std::memcpy(dst + i * stride, s.data(), s.size());
    dst[i * stride + width - 1] = static_cast<uint8_t>(s.size());
  }
}

void EncodeValues(const Column& col, int64_t begin, int64_t n, int width, uint8_t* dst,
                  int64_t stride) {
  auto encode = Overloaded{[&](BoolTag) { EncodeBools(col, begin, n, dst, stride); },
                           [&](StringTag) { EncodePrefixes(col, begin, n, width, dst, stride); },
                           [&]<typename T>(Tag<T>) { EncodeFixed<T>(col, begin, n, dst, stride); }};
  VisitStorage(col.type(), encode);
}

template <typename T>
inline int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareValues(const Column& ca, int64_t ra, const Column& cb, int64_t rb) {
  auto compare =
      Overloaded{[&](BoolTag) { return Cmp<int>(ca.GetBool(ra), cb.GetBool(rb)); },
                 [&](StringTag) {
                   const int c = ca.GetString(ra).compare(cb.GetString(rb));
                   return c < 0 ? -1 : (c > 0 ? 1 : 0);
                 },
                 [&]<typename T>(Tag<T>) {
                   return Cmp(OrderedBits(ca.Value<T>(ra)), OrderedBits(cb.Value<T>(rb)));
                 }};
  return VisitStorage(ca.type(), compare);
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
      // Short strings (codes, flags, names of a few bytes) are encoded whole with their length,
      // so they decide ties and the keys after them are encoded too.
      const int64_t longest = LongestString(k, room - 1);
      if (longest >= 0) {
        p.exact_string = true;
        p.value_bytes = static_cast<int>(longest) + 1;
        plans_.push_back(p);
        bytes += (p.null_byte ? 1 : 0) + p.value_bytes;
        continue;
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

int64_t SortKeyEncoder::LongestString(int key, int64_t at_most) const {
  int64_t longest = 0;
  for (const auto& batch : columns_) {
    const Column& col = *batch[key];
    for (int64_t i = 0; i < col.length(); ++i) {
      if (col.IsNull(i)) continue;
      longest = std::max<int64_t>(longest, static_cast<int64_t>(col.GetString(i).size()));
      if (longest > at_most) return -1;
    }
  }
  return longest;
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
    if (p.exact_string) {
      EncodeExactStrings(col, begin, n, p.value_bytes, at, stride);
    } else {
      EncodeValues(col, begin, n, p.value_bytes, at, stride);
    }
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

void SplitSortKeys(const std::vector<SortKey>& keys, std::vector<ExprPtr>* exprs,
                   std::vector<SortOrder>* orders) {
  for (const SortKey& k : keys) {
    exprs->push_back(k.expr);
    orders->push_back({k.ascending, k.nulls_first});
  }
}

int CompareSortRows(const std::vector<ColumnPtr>& a, int64_t ra, const std::vector<ColumnPtr>& b,
                    int64_t rb, const std::vector<SortOrder>& orders, int from, int to) {
  for (int k = from; k < to; ++k) {
    const Column& ca = *a[k];
    const Column& cb = *b[k];
    const bool na = ca.IsNull(ra);
    const bool nb = cb.IsNull(rb);
    if (na || nb) {
      if (na && nb) continue;
      return (na == orders[k].nulls_first) ? -1 : 1;
    }
    int c = CompareValues(ca, ra, cb, rb);
    if (c != 0) return orders[k].ascending ? c : -c;
  }
  return 0;
}

void SortKeyEncoder::MarkKeyChanges(const std::vector<int64_t>& refs, int from, int to,
                                    std::vector<uint8_t>* changed) const {
  const int64_t n = static_cast<int64_t>(refs.size());
  // Ranges of rows on the pool's threads (each row's mark is its own): the rows are in sorted
  // order, so every comparison reads two rows anywhere in the batches.
  constexpr int64_t kRowsPerTask = int64_t{1} << 16;
  const int64_t tasks = (n + kRowsPerTask - 1) / kRowsPerTask;
  for (int k = from; k < to; ++k) {
    auto mark = [&](auto equal) {
      (void)ThreadPool::Default().ParallelFor(tasks, [&](int64_t t) -> Status {
        const int64_t end = std::min(n, (t + 1) * kRowsPerTask);
        for (int64_t i = std::max<int64_t>(1, t * kRowsPerTask); i < end; ++i) {
          if ((*changed)[i]) continue;
          const Column& ca = *columns_[RefBatch(refs[i - 1])][k];
          const Column& cb = *columns_[RefBatch(refs[i])][k];
          const int64_t ra = RefRow(refs[i - 1]), rb = RefRow(refs[i]);
          const bool na = ca.IsNull(ra), nb = cb.IsNull(rb);
          if (na != nb || (!na && !equal(ca, ra, cb, rb))) (*changed)[i] = 1;
        }
        return Status::OK();
      });
    };
    VisitStorage(types_[k],
                 Overloaded{[&](BoolTag) {
                              mark([](const Column& a, int64_t ra, const Column& b, int64_t rb) {
                                return a.GetBool(ra) == b.GetBool(rb);
                              });
                            },
                            [&](StringTag) {
                              mark([](const Column& a, int64_t ra, const Column& b, int64_t rb) {
                                return a.GetString(ra) == b.GetString(rb);
                              });
                            },
                            [&]<typename T>(Tag<T>) {
                              mark([](const Column& a, int64_t ra, const Column& b, int64_t rb) {
                                return OrderedBits(a.Value<T>(ra)) == OrderedBits(b.Value<T>(rb));
                              });
                            }});
  }
}

int SortKeyEncoder::ExactPrefixBytes(int keys) const {
  if (keys < 0 || keys > tail_from_ || keys > encoded_keys_) return -1;
  if (keys < encoded_keys_) return plans_[keys].offset;
  if (keys == 0) return 0;
  const KeyPlan& last = plans_[keys - 1];
  return last.offset + (last.null_byte ? 1 : 0) + last.value_bytes;
}

int SortKeyEncoder::CompareKeys(int64_t a, int64_t b, int from, int to) const {
  return CompareSortRows(columns_[RefBatch(a)], RefRow(a), columns_[RefBatch(b)], RefRow(b),
                         orders_, from, to);
}

}  // namespace tandem::cpu
