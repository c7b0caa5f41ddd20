// GroupTable implementation: column-wise hashing, linear probing with 32-bit tags, column-wise
// key comparison of the candidates, and key storage per column.
#include "tandem/exec/cpu/group_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tandem/types/type_dispatch.h"

namespace tandem::cpu::agg {
namespace {

constexpr int64_t kChunkRows = 2048;
constexpr uint64_t kSeed = 0x2545F4914F6CDD1DULL;
constexpr uint64_t kNullHash = 0x7A3C5E1F9B2D4C6BULL;
constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ULL;
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ULL;
  x ^= x >> 32;
  return x;
}

inline uint64_t Load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t Load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// Strings are hashed without per-byte loops or variable-length memcpy: short ones with
// overlapping fixed-size loads, long ones 8 bytes at a time plus an overlapping final word.
inline uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = kSeed ^ (n * kMul);
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      h = (h ^ Load64(p + i)) * kMul;
      h = (h << 31) | (h >> 33);
    }
    if (i < n) h = (h ^ Load64(p + n - 8)) * kMul;
  } else if (n >= 4) {
    h = (h ^ ((Load32(p) << 32) | Load32(p + n - 4))) * kMul;
  } else if (n > 0) {
    const uint64_t w = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
                       (uint64_t{static_cast<uint8_t>(p[n >> 1])} << 8) |
                       static_cast<uint8_t>(p[n - 1]);
    h = (h ^ w) * kMul;
  }
  return Mix(h);
}

inline bool BytesEqual(const char* a, const char* b, int64_t n) {
  if (n <= 8) {
    for (int64_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return std::memcmp(a, b, static_cast<size_t>(n)) == 0;
}

// The bits a fixed-width value hashes and compares by (floats normalized: -0.0 -> 0.0, NaN ->
// one NaN).
template <typename T>
inline uint64_t FixedBits(const uint8_t* values, int64_t i) {
  T v;
  std::memcpy(&v, values + i * sizeof(T), sizeof(T));
  if constexpr (std::is_same_v<T, double>) {
    if (v == 0) v = 0;
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else if constexpr (std::is_same_v<T, float>) {
    if (v == 0) v = 0;
    if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else if constexpr (sizeof(T) == 16) {
    uint64_t lo, hi;
    std::memcpy(&lo, &v, 8);
    std::memcpy(&hi, reinterpret_cast<const uint8_t*>(&v) + 8, 8);
    return lo ^ Mix(hi + kMul);
  } else {
    return static_cast<uint64_t>(v);
  }
}

template <typename T>
void HashFixedColumn(const KeyColumnView& c, int64_t n, uint64_t* h) {
  if (c.nulls) {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = c.nulls[i] ? kNullHash : FixedBits<T>(c.values, i);
      h[i] = Mix(h[i] + v * kMul);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) h[i] = Mix(h[i] + FixedBits<T>(c.values, i) * kMul);
  }
}

template <typename T>
inline bool FixedEqual(const uint8_t* a, int64_t i, const uint8_t* b, int64_t j) {
  T x, y;
  std::memcpy(&x, a + i * sizeof(T), sizeof(T));
  std::memcpy(&y, b + j * sizeof(T), sizeof(T));
  if constexpr (std::is_floating_point_v<T>) {
    return x == y || (std::isnan(x) && std::isnan(y));
  } else {
    return x == y;
  }
}

// Dispatches on the storage of a fixed-width key type.
template <typename Fn>
void DispatchFixed(const KeyColumnView& c, Fn&& fn) {
  if (c.type.id == TypeId::kFloat64) return fn(double{});
  if (c.type.id == TypeId::kFloat32) return fn(float{});
  switch (c.width) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:
      return fn(uint128_t{});
  }
}

}  // namespace

KeyView KeyView::FromColumns(const std::vector<const Column*>& columns) {
  KeyView view;
  view.scratch.reserve(columns.size() * 2);
  for (const Column* col : columns) {
    KeyColumnView c;
    c.type = col->type();
    const int64_t n = col->length();
    if (col->type().id == TypeId::kBool) {
      auto& bytes = view.scratch.emplace_back(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) bytes[i] = col->GetBool(i) ? 1 : 0;
      c.width = 1;
      c.values = bytes.data();
    } else if (col->type().is_string_like()) {
      if (col->large_offsets()) {
        c.offsets64 = col->values_as<int64_t>();
      } else {
        c.offsets32 = col->values_as<int32_t>();
      }
      c.chars = col->data() ? reinterpret_cast<const char*>(col->data()->data()) : "";
      c.chars_size = col->data() ? col->data()->size() : 0;
    } else {
      c.width = col->type().byte_width();
      c.values = col->values()->data();
    }
    if (col->null_count() > 0) {
      auto& nulls = view.scratch.emplace_back(static_cast<size_t>(n));
      const uint8_t* bits = col->validity_bits();
      for (int64_t i = 0; i < n; ++i) nulls[i] = bit_util::GetBit(bits, i) ? 0 : 1;
      c.nulls = nulls.data();
    }
    view.columns.push_back(c);
  }
  return view;
}

void HashKeys(const KeyView& keys, int64_t n, uint64_t* hashes) {
  for (int64_t i = 0; i < n; ++i) hashes[i] = kSeed;
  for (const KeyColumnView& c : keys.columns) {
    if (c.width == 0) {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v;
        if (c.nulls && c.nulls[i]) {
          v = kNullHash;
        } else {
          const std::string_view s = c.StringAt(i);
          v = HashBytes(s.data(), s.size());
        }
        hashes[i] = Mix(hashes[i] + v * kMul);
      }
    } else {
      DispatchFixed(c, [&](auto tag) { HashFixedColumn<decltype(tag)>(c, n, hashes); });
    }
  }
}

GroupTable::GroupTable(std::vector<DataType> key_types) : types_(std::move(key_types)) {
  for (const DataType& t : types_) {
    KeyStore s;
    s.type = t;
    s.width = t.id == TypeId::kBool ? 1 : t.is_string_like() ? 0 : t.byte_width();
    if (s.width == 0) s.offsets.push_back(0);
    stores_.push_back(std::move(s));
  }
}

void GroupTable::Reserve(int64_t groups) {
  uint64_t cap = slots_.size();
  if (static_cast<int64_t>(cap) >= 2 * groups && cap > 0) return;
  if (cap == 0) cap = 256;
  while (static_cast<int64_t>(cap) < 2 * groups) cap *= 2;
  slots_.assign(cap, Slot{});
  mask_ = cap - 1;
  UpdateCharge();
  for (int64_t g = 0; g < num_groups_; ++g) {
    uint64_t pos = hashes_[g] & mask_;
    while (slots_[pos].group_plus_one != 0) pos = (pos + 1) & mask_;
    slots_[pos] = Slot{static_cast<uint32_t>(hashes_[g] >> 32), static_cast<uint32_t>(g + 1)};
  }
}

void GroupTable::UpdateCharge() {
  int64_t bytes = HeapBytes(slots_) + HeapBytes(hashes_) + HeapBytes(part_hashes_) +
                  HeapBytes(direct_) +
                  direct_chunks_made_ * (int64_t{sizeof(uint32_t)} << kDirectChunkBits);
  for (const KeyStore& st : stores_) {
    bytes +=
        HeapBytes(st.values) + HeapBytes(st.offsets) + HeapBytes(st.chars) + HeapBytes(st.nulls);
  }
  charge_.Set(bytes);
}

uint32_t GroupTable::AddGroup(const KeyView& keys, int64_t row, uint64_t hash, uint64_t part_hash) {
  for (size_t c = 0; c < stores_.size(); ++c) {
    KeyStore& s = stores_[c];
    const KeyColumnView& in = keys.columns[c];
    const bool is_null = in.nulls && in.nulls[row];
    s.nulls.push_back(is_null ? 1 : 0);
    s.any_null |= is_null;
    if (s.width == 0) {
      if (!is_null) {
        const std::string_view v = in.StringAt(row);
        s.chars.append(v.data(), v.size());
      }
      s.offsets.push_back(static_cast<int64_t>(s.chars.size()));
    } else {
      const size_t old = s.values.size();
      s.values.resize(old + s.width);
      if (!is_null) std::memcpy(s.values.data() + old, in.values + row * s.width, s.width);
    }
  }
  if (!hashes_lazy_) {
    hashes_.push_back(hash);
    part_hashes_.push_back(part_hash);
  }
  return static_cast<uint32_t>(num_groups_++);
}

const uint64_t* GroupTable::EnsureHashes(const KeyView& keys, const uint32_t* rows, int64_t n) {
  int64_t length = n;
  if (rows) {
    length = 0;
    for (int64_t k = 0; k < n; ++k) length = std::max<int64_t>(length, int64_t{rows[k]} + 1);
  }
  own_hashes_.resize(static_cast<size_t>(length));
  HashKeys(keys, length, own_hashes_.data());
  return own_hashes_.data();
}

void GroupTable::FindOrInsert(const KeyView& keys, const uint64_t* hashes,
                              const uint64_t* part_hashes, const uint32_t* rows, int64_t n,
                              uint32_t* out) {
  if (types_.empty()) {
    if (n > 0 && num_groups_ == 0) {
      const int64_t r = rows ? rows[0] : 0;
      const uint64_t h = hashes ? hashes[r] : 0;
      AddGroup(keys, r, h, part_hashes ? part_hashes[r] : h);
    }
    std::memset(out, 0, static_cast<size_t>(n) * sizeof(uint32_t));
    return;
  }
  if (direct_mode_ && FindOrInsertDirect(keys, hashes, part_hashes, rows, n, out)) return;
  if (memo_enabled_ && TryMemo(keys, hashes, part_hashes, rows, n, out)) return;
  if (!hashes) hashes = EnsureHashes(keys, rows, n);
  if (!part_hashes) part_hashes = hashes;
  std::vector<uint32_t> chunk_rows;
  for (int64_t begin = 0; begin < n; begin += kChunkRows) {
    const int64_t len = std::min(kChunkRows, n - begin);
    const uint32_t* r = rows ? rows + begin : nullptr;
    if (!r) {
      chunk_rows.resize(static_cast<size_t>(len));
      for (int64_t k = 0; k < len; ++k) chunk_rows[k] = static_cast<uint32_t>(begin + k);
      r = chunk_rows.data();
    }
    FindOrInsertChunk(keys, hashes, part_hashes, r, len, out + begin);
  }
}

bool GroupTable::DirectIndexable(const DataType& type) {
  // Integers whose values all fit an int64 offset from the minimum, and dates (days).
  return (type.is_integer() && type.id != TypeId::kUInt64) || type.id == TypeId::kDate32;
}

void GroupTable::UseDirectIndex(int64_t lo, int64_t span) {
  if (types_.size() != 1 || !DirectIndexable(types_[0]) || num_groups_ > 0 || span <= 0) return;
  direct_.clear();
  direct_.resize(static_cast<size_t>(((span - 1) >> kDirectChunkBits) + 1));
  direct_mode_ = true;
  hashes_lazy_ = true;
  direct_lo_ = lo;
  direct_span_ = span;
  memo_enabled_ = false;
}

void GroupTable::LeaveDirectMode() {
  EnsureStoredHashes();
  direct_mode_ = false;
  std::vector<std::unique_ptr<uint32_t[]>>().swap(direct_);
  direct_chunks_made_ = 0;
  direct_span_ = 0;
  slots_.clear();
  Reserve(std::max<int64_t>(num_groups_, 1));  // rebuilds the slots from the stored hashes
}

namespace {

// Signed value of a direct-indexable key (T: its storage type).
template <typename T>
inline int64_t DirectValue(const uint8_t* values, int64_t r) {
  T v;
  std::memcpy(&v, values + r * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<int64_t>(v);
}

// Returns fn(T{}) with T the storage type of a DirectIndexable key type, `other` for any other
// type.
template <typename R, typename Fn>
R VisitDirect(const DataType& type, R other, Fn&& fn) {
  if (!GroupTable::DirectIndexable(type)) return other;
  auto integer = [&]<typename T>(Tag<T>) -> R {
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
      return fn(T{});
    } else {
      return other;
    }
  };
  return VisitStorage(type, Overloaded{integer, [&](auto) { return other; }});
}

}  // namespace

// The hash HashKeys gives a direct-indexable key of value v (T: its storage type).
template <typename T>
inline uint64_t DirectKeyHash(int64_t v) {
  using U = std::make_unsigned_t<T>;
  return Mix(kSeed + static_cast<uint64_t>(static_cast<U>(static_cast<T>(v))) * kMul);
}

void GroupTable::EnsureStoredHashes() {
  if (!hashes_lazy_) return;
  hashes_lazy_ = false;
  const KeyStore& k = stores_[0];
  hashes_.resize(num_groups_);
  VisitDirect(k.type, 0, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t g = 0; g < num_groups_; ++g) {
      hashes_[g] = DirectKeyHash<T>(DirectValue<T>(k.values.data(), g));
    }
    return 0;
  });
  part_hashes_.resize(num_groups_);
  if (num_groups_ > 0) {
    std::memcpy(part_hashes_.data(), hashes_.data(), static_cast<size_t>(num_groups_) * 8);
  }
  UpdateCharge();
}

int64_t GroupTable::StoredKeyAsInt64(int64_t g) const {
  const KeyStore& k = stores_[0];
  return VisitDirect(k.type, int64_t{0},
                     [&](auto tag) { return DirectValue<decltype(tag)>(k.values.data(), g); });
}

bool GroupTable::FindOrInsertDirect(const KeyView& keys, const uint64_t* hashes,
                                    const uint64_t* part_hashes, const uint32_t* rows, int64_t n,
                                    uint32_t* out) {
  const KeyColumnView& c = keys.columns[0];
  if (c.nulls || c.width == 0) {
    LeaveDirectMode();
    return false;
  }
  // Hashes a caller hands in are kept from then on (they need not be the key's own).
  if (hashes_lazy_ && (hashes || part_hashes)) EnsureStoredHashes();
  auto run = [&](auto tag) -> bool {
    using T = decltype(tag);
    const uint64_t span = static_cast<uint64_t>(direct_span_);
    // Check the range first so that nothing is inserted when a row does not fit; count the
    // index chunks the batch would make (a new chunk counted once per run of rows in it).
    int64_t new_chunks = 0;
    uint64_t last_chunk = UINT64_MAX;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t r = rows ? rows[k] : k;
      // Unsigned difference: no signed overflow for keys far outside the range.
      const uint64_t offset =
          static_cast<uint64_t>(DirectValue<T>(c.values, r)) - static_cast<uint64_t>(direct_lo_);
      if (offset >= span) return false;
      const uint64_t chunk = offset >> kDirectChunkBits;
      if (chunk != last_chunk && !direct_[chunk]) ++new_chunks;
      last_chunk = chunk;
    }
    // Keys spread thinly over a wide range (in no order) would make chunks of mostly empty
    // slots: hash them instead.
    const int64_t slots = (direct_chunks_made_ + new_chunks) << kDirectChunkBits;
    if (slots > kDirectWarmupSlots && slots > kDirectSlotsPerGroup * (num_groups_ + n)) {
      return false;
    }
    for (int64_t k = 0; k < n; ++k) {
      const int64_t r = rows ? rows[k] : k;
      const int64_t v = DirectValue<T>(c.values, r);
      uint32_t& slot = *DirectSlot(static_cast<uint64_t>(v) - static_cast<uint64_t>(direct_lo_));
      if (slot == 0) {
        // The hash HashKeys gives this key, so merges into hashed tables agree (not kept in
        // lazy mode).
        const uint64_t h = hashes ? hashes[r] : hashes_lazy_ ? 0 : DirectKeyHash<T>(v);
        slot = AddGroup(keys, r, h, part_hashes ? part_hashes[r] : h) + 1;
      }
      out[k] = slot - 1;
    }
    return true;
  };
  const bool ok = VisitDirect(c.type, false, run);
  if (!ok) LeaveDirectMode();
  return ok;
}

bool GroupTable::TryMemo(const KeyView& keys, const uint64_t* hashes, const uint64_t* part_hashes,
                         const uint32_t* rows, int64_t n, uint32_t* out) {
  constexpr int64_t kMaxMemo = 1024;
  if (n < 256) return false;
  auto row_at = [&](int64_t k) -> int64_t { return rows ? rows[k] : k; };
  // Layout: bytes per column for this batch (strings: max length + 1 length byte; a null flag
  // byte for columns with nulls); floats are not packed (NaN and -0.0 need normalizing).
  std::vector<uint8_t> layout;
  int total = 0;
  for (const KeyColumnView& c : keys.columns) {
    int bytes;
    if (c.type.is_floating()) return false;
    if (c.width == 0) {
      int64_t max_len = 0;
      for (int64_t k = 0; k < n && max_len < 8; ++k) {
        const int64_t r = row_at(k);
        const int64_t len =
            c.offsets64 ? c.offsets64[r + 1] - c.offsets64[r] : c.offsets32[r + 1] - c.offsets32[r];
        max_len = std::max(max_len, len);
      }
      bytes = static_cast<int>(max_len) + 1;
    } else {
      bytes = c.width;
    }
    if (c.nulls) bytes += 1;
    total += bytes;
    if (total > 8) return false;
    layout.push_back(static_cast<uint8_t>(bytes));
  }
  if (layout != memo_layout_) {
    memo_layout_ = layout;
    memo_codes_.assign(2 * kMaxMemo, 0);
    memo_groups_.assign(2 * kMaxMemo, 0);
    memo_size_ = 0;
  }
  packed_.assign(static_cast<size_t>(n), 0);
  int shift = 0;
  for (size_t ci = 0; ci < keys.columns.size(); ++ci) {
    const KeyColumnView& c = keys.columns[ci];
    uint64_t* code = packed_.data();
    if (c.width == 0) {
      // Length in the low byte, then the bytes (at most 7: the layout checked): one 8-byte load
      // and a mask where 8 bytes are readable, else byte by byte.
      auto pack = [&](const auto* off) {
        for (int64_t k = 0; k < n; ++k) {
          const int64_t r = row_at(k);
          if (c.nulls && c.nulls[r]) continue;
          const int64_t b = off[r];
          const int64_t len = off[r + 1] - b;
          uint64_t bytes = 0;
          if (b + 8 <= c.chars_size) {
            std::memcpy(&bytes, c.chars + b, 8);
            bytes &= (uint64_t{1} << (8 * len)) - 1;
          } else {
            for (int64_t i = 0; i < len; ++i) {
              bytes |= uint64_t{static_cast<uint8_t>(c.chars[b + i])} << (8 * i);
            }
          }
          code[k] |= (static_cast<uint64_t>(len) | (bytes << 8)) << shift;
        }
      };
      if (c.offsets64) {
        pack(c.offsets64);
      } else {
        pack(c.offsets32);
      }
    } else {
      DispatchFixed(c, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (sizeof(T) <= 8 && !std::is_floating_point_v<T>) {
          for (int64_t k = 0; k < n; ++k) {
            const int64_t r = row_at(k);
            if (c.nulls && c.nulls[r]) continue;
            T v;
            std::memcpy(&v, c.values + r * sizeof(T), sizeof(T));
            code[k] |= static_cast<uint64_t>(v) << shift;
          }
        }
      });
    }
    if (c.nulls) {
      const int flag_shift = shift + 8 * (layout[ci] - 1);
      for (int64_t k = 0; k < n; ++k) {
        if (c.nulls[row_at(k)]) code[k] |= uint64_t{1} << flag_shift;
      }
    }
    shift += 8 * layout[ci];
  }
  // Probe the memo; rows it does not know go through the table, then join the memo.
  const uint64_t mask = memo_codes_.size() - 1;
  miss_rows_.clear();
  std::vector<uint32_t> miss_k;
  for (int64_t k = 0; k < n; ++k) {
    const uint64_t code = packed_[k];
    uint64_t pos = Mix(code) & mask;
    for (;;) {
      const uint32_t g = memo_groups_[pos];
      if (g == 0) {
        miss_rows_.push_back(static_cast<uint32_t>(row_at(k)));
        miss_k.push_back(static_cast<uint32_t>(k));
        break;
      }
      if (memo_codes_[pos] == code) {
        out[k] = g - 1;
        break;
      }
      pos = (pos + 1) & mask;
    }
  }
  if (miss_rows_.empty()) return true;
  if (!hashes) hashes = EnsureHashes(keys, rows, n);
  if (!part_hashes) part_hashes = hashes;
  miss_out_.resize(miss_rows_.size());
  const int64_t misses = static_cast<int64_t>(miss_rows_.size());
  for (int64_t begin = 0; begin < misses; begin += kChunkRows) {
    const int64_t len = std::min(kChunkRows, misses - begin);
    FindOrInsertChunk(keys, hashes, part_hashes, miss_rows_.data() + begin, len,
                      miss_out_.data() + begin);
  }
  for (int64_t i = 0; i < misses; ++i) {
    const uint32_t k = miss_k[i];
    out[k] = miss_out_[i];
    if (memo_size_ >= kMaxMemo) continue;
    const uint64_t code = packed_[k];
    uint64_t pos = Mix(code) & mask;
    while (memo_groups_[pos] != 0 && memo_codes_[pos] != code) pos = (pos + 1) & mask;
    if (memo_groups_[pos] == 0) {
      memo_codes_[pos] = code;
      memo_groups_[pos] = miss_out_[i] + 1;
      ++memo_size_;
    }
  }
  // A full memo means many groups: from now on it would only cost time.
  if (memo_size_ >= kMaxMemo) memo_enabled_ = false;
  return true;
}

void GroupTable::FindOrInsertChunk(const KeyView& keys, const uint64_t* hashes,
                                   const uint64_t* part_hashes, const uint32_t* rows, int64_t n,
                                   uint32_t* out) {
  Reserve(num_groups_ + n);
  slot_pos_.resize(n);
  candidate_.resize(n);
  mismatch_.resize(n);
  pending_.resize(n);
  // The slots of a chunk's rows are fetched ahead of the probes below: past a few hundred
  // thousand groups each probe misses the caches, and issuing the loads together overlaps them.
  for (int64_t k = 0; k < n; ++k) {
    slot_pos_[k] = hashes[rows[k]] & mask_;
    pending_[k] = static_cast<uint32_t>(k);
    __builtin_prefetch(&slots_[slot_pos_[k]]);
  }
  size_t num_pending = static_cast<size_t>(n);
  while (num_pending > 0) {
    compare_.clear();
    for (size_t p = 0; p < num_pending; ++p) {
      const uint32_t k = pending_[p];
      const uint32_t r = rows[k];
      const uint64_t h = hashes[r];
      const uint32_t tag = static_cast<uint32_t>(h >> 32);
      uint64_t pos = slot_pos_[k];
      for (;;) {
        const Slot s = slots_[pos];
        if (s.group_plus_one == 0) {
          const uint32_t g = AddGroup(keys, r, h, part_hashes[r]);
          slots_[pos] = Slot{tag, g + 1};
          out[k] = g;
          break;
        }
        if (s.tag == tag) {
          candidate_[k] = s.group_plus_one - 1;
          slot_pos_[k] = pos;
          compare_.push_back(k);
          // The candidate's stored key, read by the comparison after this loop.
          for (const KeyStore& store : stores_) {
            if (store.width > 0) {
              __builtin_prefetch(store.values.data() +
                                 static_cast<int64_t>(candidate_[k]) * store.width);
            } else {
              __builtin_prefetch(store.offsets.data() + candidate_[k]);
            }
          }
          break;
        }
        pos = (pos + 1) & mask_;
      }
    }
    for (uint32_t k : compare_) mismatch_[k] = 0;
    for (size_t c = 0; c < stores_.size(); ++c) {
      const KeyStore& s = stores_[c];
      const KeyColumnView& in = keys.columns[c];
      if (in.nulls || s.any_null) {
        for (uint32_t k : compare_) {
          const bool a = in.nulls && in.nulls[rows[k]];
          const bool b = s.any_null && s.nulls[candidate_[k]];
          // Both null: equal here; the value comparison below then looks at zeros/garbage, so
          // record the null verdict now and skip rows already decided.
          if (a != b) mismatch_[k] = 1;
          if (a && b) mismatch_[k] |= 2;  // marks "equal by null" for this column
        }
      }
      if (s.width == 0) {
        for (uint32_t k : compare_) {
          if (mismatch_[k] & 3) continue;
          const std::string_view x = in.StringAt(rows[k]);
          const int64_t g = candidate_[k];
          const int64_t b = s.offsets[g];
          const int64_t len = s.offsets[g + 1] - b;
          if (static_cast<int64_t>(x.size()) != len ||
              !BytesEqual(x.data(), s.chars.data() + b, len)) {
            mismatch_[k] = 1;
          }
        }
      } else {
        DispatchFixed(in, [&](auto tag) {
          using T = decltype(tag);
          for (uint32_t k : compare_) {
            if (mismatch_[k] & 3) continue;
            if (!FixedEqual<T>(in.values, rows[k], s.values.data(), candidate_[k])) {
              mismatch_[k] = 1;
            }
          }
        });
      }
      for (uint32_t k : compare_) mismatch_[k] &= 1;  // clear the per-column null mark
    }
    num_pending = 0;
    for (uint32_t k : compare_) {
      if (mismatch_[k]) {
        slot_pos_[k] = (slot_pos_[k] + 1) & mask_;
        pending_[num_pending++] = k;
      } else {
        out[k] = candidate_[k];
      }
    }
  }
}

KeyView GroupTable::StoredKeys() const {
  KeyView view;
  for (const KeyStore& s : stores_) {
    KeyColumnView c;
    c.type = s.type;
    c.width = s.width;
    c.values = s.values.data();
    c.nulls = s.any_null ? s.nulls.data() : nullptr;
    c.offsets64 = s.offsets.data();
    c.chars = s.chars.data();
    c.chars_size = static_cast<int64_t>(s.chars.size());
    view.columns.push_back(c);
  }
  return view;
}

ColumnPtr GroupTable::ExportKey(int c) const {
  return const_cast<GroupTable*>(this)->KeyColumn(c, /*take=*/false);
}

ColumnPtr GroupTable::TakeKey(int c) { return KeyColumn(c, /*take=*/true); }

ColumnPtr GroupTable::KeyColumn(int c, bool take) {
  KeyStore& s = stores_[c];
  const int64_t n = num_groups_;
  std::shared_ptr<Buffer> validity;
  int64_t null_count = 0;
  if (s.any_null) {
    validity = Buffer::Allocate(bit_util::BytesForBits(n));
    uint8_t* bits = validity->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (s.nulls[i]) {
        ++null_count;
      } else {
        bit_util::SetBit(bits, i);
      }
    }
  }
  // A taken array leaves the table's charge first, so that the buffer's own count does not
  // briefly double it.
  auto buffer_of = [&](auto& array, int64_t bytes) {
    if (!take) return Buffer::CopyOf(array.data(), bytes);
    charge_.Set(std::max<int64_t>(0, charge_.bytes() - array.heap_bytes()));
    return array.TakeBuffer();
  };
  if (s.type.id == TypeId::kBool) {
    auto values = Buffer::Allocate(bit_util::BytesForBits(n));
    for (int64_t i = 0; i < n; ++i) {
      if (s.values[i]) bit_util::SetBit(values->mutable_data(), i);
    }
    return std::make_shared<Column>(s.type, n, null_count, validity, values);
  }
  if (s.width == 0) {
    const int64_t bytes = s.chars.size();
    const bool large = bytes > INT32_MAX;
    std::shared_ptr<Buffer> offsets;
    if (large) {
      offsets = buffer_of(s.offsets, (n + 1) * 8);
    } else {
      offsets = Buffer::AllocateUninitialized((n + 1) * 4);
      int32_t* o = offsets->mutable_data_as<int32_t>();
      for (int64_t i = 0; i <= n; ++i) o[i] = static_cast<int32_t>(s.offsets[i]);
    }
    auto data = buffer_of(s.chars, bytes);
    return std::make_shared<Column>(s.type, n, null_count, validity, offsets, data, large);
  }
  auto values = buffer_of(s.values, n * s.width);
  return std::make_shared<Column>(s.type, n, null_count, validity, values);
}

}  // namespace tandem::cpu::agg
