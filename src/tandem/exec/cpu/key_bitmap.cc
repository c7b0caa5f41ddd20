// The key bitmap of a hash join's build side (see key_bitmap.h).
#include "tandem/exec/cpu/key_bitmap.h"

#include <algorithm>
#include <type_traits>

#include "tandem/plan/key_bitmap_span.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {

std::unique_ptr<KeyBitmap> KeyBitmap::Build(const DataType& type,
                                            const std::vector<std::vector<ColumnPtr>>& build_keys,
                                            size_t key, uint64_t max_span, double probe_rows) {
  if (!type.is_integer() && type.id != TypeId::kDate32) return nullptr;
  if (type.id == TypeId::kUInt64) return nullptr;  // values past INT64_MAX
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  uint64_t valid = 0;
  auto each_value = [&](auto&& fn) {
    for (const auto& cols : build_keys) {
      if (cols.size() <= key) continue;
      const Column& c = *cols[key];
      VisitStorage(c.type(), Overloaded{[](BoolTag) {}, [](StringTag) {},
                                        [&](auto tag) {
                                          using T = typename decltype(tag)::type;
                                          if constexpr (std::is_integral_v<T> &&
                                                        sizeof(T) <= sizeof(int64_t)) {
                                            const T* v = c.values_as<T>();
                                            for (int64_t i = 0; i < c.length(); ++i) {
                                              if (c.IsValid(i)) fn(static_cast<int64_t>(v[i]));
                                            }
                                          }
                                        }});
    }
  };
  each_value([&](int64_t v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++valid;
  });
  if (lo > hi) return nullptr;  // no non-NULL build key: the hash table alone answers quickly
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  const uint64_t allowed = std::min(max_span, static_cast<uint64_t>(plan::MaxKeyBitmapSpan(
                                                  static_cast<double>(valid), probe_rows)));
  if (span == 0 || span > allowed) return nullptr;
  std::unique_ptr<KeyBitmap> b(new KeyBitmap());
  b->lo_ = lo;
  b->span_ = span;
  try {
    b->charge_.Set(static_cast<int64_t>((span + 63) / 64 * sizeof(uint64_t)));
  } catch (const MemoryLimitExceeded&) {
    return nullptr;  // the budget has no room: the hash table alone
  }
  b->bits_.assign((span + 63) / 64, 0);
  each_value([&](int64_t v) {
    const uint64_t d = static_cast<uint64_t>(v) - static_cast<uint64_t>(lo);
    b->bits_[d >> 6] |= uint64_t{1} << (d & 63);
  });
  uint64_t set = 0;
  for (uint64_t w : b->bits_) set += static_cast<uint64_t>(__builtin_popcountll(w));
  b->fill_ = static_cast<double>(set) / static_cast<double>(span);
  return b;
}

std::unique_ptr<KeyBitmap> KeyBitmap::BuildSparsest(
    const std::vector<DataType>& types, const std::vector<std::vector<ColumnPtr>>& build_keys,
    size_t* key, double probe_rows) {
  constexpr uint64_t kOtherKeySpan = uint64_t{1} << 29;  // 64 MiB of bits
  std::unique_ptr<KeyBitmap> best;
  for (size_t k = 0; k < types.size(); ++k) {
    auto b = Build(types[k], build_keys, k, best ? kOtherKeySpan : UINT64_MAX, probe_rows);
    if (b && (!best || b->fill() < best->fill())) {
      best = std::move(b);
      *key = k;
    }
  }
  return best;
}

std::vector<int32_t> KeyBitmap::RowsThatMayMatch(const Column& key,
                                                 const std::vector<int32_t>* selection) const {
  // Every candidate row is written and the count moves on only for those that pass: no branch
  // per row.
  std::vector<int32_t> rows(selection ? selection->size() : static_cast<size_t>(key.length()));
  size_t kept = 0;
  VisitStorage(key.type(),
               Overloaded{[](BoolTag) {}, [](StringTag) {},
                          [&](auto tag) {
                            using T = typename decltype(tag)::type;
                            if constexpr (std::is_integral_v<T> && sizeof(T) <= sizeof(int64_t)) {
                              const T* v = key.values_as<T>();
                              int32_t* out = rows.data();
                              auto visit = [&](int64_t i, bool valid) {
                                out[kept] = static_cast<int32_t>(i);
                                kept += valid & Has(static_cast<int64_t>(v[i]));
                              };
                              const bool nulls = key.null_count() > 0;
                              if (selection) {
                                for (int32_t i : *selection) visit(i, !nulls || key.IsValid(i));
                              } else if (nulls) {
                                for (int64_t i = 0; i < key.length(); ++i) visit(i, key.IsValid(i));
                              } else {
                                for (int64_t i = 0; i < key.length(); ++i) visit(i, true);
                              }
                            }
                          }});
  rows.resize(kept);
  return rows;
}

bool KeyBitmap::StillPays() const {
  const int64_t tried = batches_.load(std::memory_order_relaxed);
  return tried < 16 || unselective_.load(std::memory_order_relaxed) * 10 < tried * 9;
}

void KeyBitmap::Record(int64_t kept, int64_t candidates) const {
  batches_.fetch_add(1, std::memory_order_relaxed);
  if (2 * kept > candidates) unselective_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tandem::cpu
