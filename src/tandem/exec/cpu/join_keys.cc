// Column-wise key encoding and hashing (see join_keys.h).
#include "tandem/exec/cpu/join_keys.h"

#include <cmath>
#include <limits>

#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {
namespace {

int EncodedWidth(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return 1;
    case TypeId::kString:
    case TypeId::kBinary:
      return 0;
    default:
      return t.byte_width();
  }
}

template <typename T>
inline T Canonical(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (v == 0) return T(0);
    if (std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
  }
  return v;
}

// Writes the value bytes of rows [begin, end) of a fixed-width column at dst + pos[i] (or at
// dst + i * stride + offset when pos is null).
template <typename T>
void WriteFixed(const Column& col, int64_t begin, int64_t n, uint8_t* dst, int64_t stride,
                int64_t offset, const int64_t* pos) {
  const T* v = col.values_as<T>() + begin;
  for (int64_t i = 0; i < n; ++i) {
    const T x = Canonical(v[i]);
    uint8_t* at = pos ? dst + pos[i] : dst + i * stride + offset;
    std::memcpy(at, &x, sizeof(T));
  }
}

// WriteFixed for any column but strings (written by the caller); booleans as one byte 0/1.
void WriteColumnValues(const Column& col, int64_t begin, int64_t n, uint8_t* dst, int64_t stride,
                       int64_t offset, const int64_t* pos) {
  auto write_bools = [&](BoolTag) {
    const uint8_t* bits = col.values()->data();
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* at = pos ? dst + pos[i] : dst + i * stride + offset;
      *at = bit_util::GetBit(bits, begin + i);
    }
  };
  auto write_fixed = [&]<typename T>(Tag<T>) {
    WriteFixed<T>(col, begin, n, dst, stride, offset, pos);
  };
  VisitStorage(col.type(), Overloaded{write_bools, write_fixed, [](StringTag) {}});
}

}  // namespace

uint64_t HashKeyBytes(const uint8_t* p, int64_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(n) * 0x100000001B3ULL;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ MixHash64(w)) * 0x9FB21C651E98DF25ULL;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, static_cast<size_t>(n));
    h = (h ^ MixHash64(w ^ (static_cast<uint64_t>(n) << 56))) * 0x9FB21C651E98DF25ULL;
  }
  return MixHash64(h);
}

KeyLayout::KeyLayout(std::vector<DataType> types, bool nulls_equal)
    : types_(std::move(types)), nulls_equal_(nulls_equal) {
  int bytes = 0;
  for (const auto& t : types_) {
    widths_.push_back(EncodedWidth(t));
    if (widths_.back() == 0) fixed_ = false;
    bytes += widths_.back() + (nulls_equal_ ? 1 : 0);
  }
  stride_ = std::max(8, (bytes + 7) / 8 * 8);
}

EncodedKeys::EncodedKeys(const KeyLayout& layout, const std::vector<ColumnPtr>& columns,
                         int64_t begin, int64_t end)
    : num_rows_(end - begin), fixed_(layout.fixed_), stride_(layout.stride_) {
  const int64_t n = num_rows_;
  const bool nulls_equal = layout.nulls_equal_;
  const size_t ncols = columns.size();

  // Join mode: rows with any NULL key.
  if (!nulls_equal) {
    for (const auto& c : columns) {
      if (c->null_count() == 0) continue;
      if (null_rows_.empty()) null_rows_.assign(static_cast<size_t>(n), 0);
      for (int64_t i = 0; i < n; ++i) null_rows_[i] |= c->IsNull(begin + i);
    }
    for (uint8_t f : null_rows_) any_null_ |= f != 0;
  }

  if (fixed_) {
    words_.assign(static_cast<size_t>(n * stride_ / 8), 0);
    uint8_t* dst = reinterpret_cast<uint8_t*>(words_.data());
    int64_t offset = 0;
    for (size_t k = 0; k < ncols; ++k) {
      const Column& col = *columns[k];
      if (nulls_equal) {
        for (int64_t i = 0; i < n; ++i) dst[i * stride_ + offset] = col.IsNull(begin + i);
        ++offset;
      }
      WriteColumnValues(col, begin, n, dst, stride_, offset, nullptr);
      if (col.null_count() > 0) {  // NULL slots hold arbitrary values: zero them
        for (int64_t i = 0; i < n; ++i) {
          if (col.IsNull(begin + i)) {
            std::memset(dst + i * stride_ + offset, 0, static_cast<size_t>(layout.widths_[k]));
          }
        }
      }
      offset += layout.widths_[k];
    }
    hashes_.resize(static_cast<size_t>(n));
    if (stride_ == 8) {
      for (int64_t i = 0; i < n; ++i) hashes_[i] = MixHash64(words_[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) hashes_[i] = HashKeyBytes(row_data(i), stride_);
    }
    return;
  }

  // Variable layout: sizes, offsets, then column by column through a cursor per row.
  offsets_.assign(static_cast<size_t>(n + 1), 0);
  int64_t fixed_part = 0;
  for (size_t k = 0; k < ncols; ++k) {
    fixed_part += (nulls_equal ? 1 : 0) + (layout.widths_[k] > 0 ? layout.widths_[k] : 4);
  }
  for (size_t k = 0; k < ncols; ++k) {
    const Column& col = *columns[k];
    if (layout.widths_[k] != 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      offsets_[i + 1] += col.StringOffset(begin + i + 1) - col.StringOffset(begin + i);
    }
  }
  for (int64_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i] + fixed_part;
  bytes_.assign(static_cast<size_t>(offsets_[n]), 0);
  std::vector<int64_t> cursor(offsets_.begin(), offsets_.end() - 1);
  uint8_t* dst = bytes_.data();
  for (size_t k = 0; k < ncols; ++k) {
    const Column& col = *columns[k];
    const bool has_nulls = col.null_count() > 0;
    if (nulls_equal) {
      for (int64_t i = 0; i < n; ++i) dst[cursor[i]++] = col.IsNull(begin + i);
    }
    const int w = layout.widths_[k];
    if (w > 0) {
      WriteColumnValues(col, begin, n, dst, 0, 0, cursor.data());
      if (has_nulls) {
        for (int64_t i = 0; i < n; ++i) {
          if (col.IsNull(begin + i)) std::memset(dst + cursor[i], 0, static_cast<size_t>(w));
        }
      }
      for (int64_t i = 0; i < n; ++i) cursor[i] += w;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        std::string_view s = col.GetString(begin + i);
        if (has_nulls && col.IsNull(begin + i)) s = {};
        const uint32_t len = static_cast<uint32_t>(s.size());
        std::memcpy(dst + cursor[i], &len, 4);
        if (len > 0) std::memcpy(dst + cursor[i] + 4, s.data(), len);
        cursor[i] += 4 + static_cast<int64_t>(len);
      }
    }
  }
  hashes_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) hashes_[i] = HashKeyBytes(row_data(i), row_size(i));
}

Result<std::vector<DataType>> JoinKeyTypes(const PlanNode& node, const char* what) {
  if (node.left_keys.size() != node.right_keys.size()) {
    return Status::Internal(std::string(what) + " has " + std::to_string(node.left_keys.size()) +
                            " left keys but " + std::to_string(node.right_keys.size()) +
                            " right keys");
  }
  std::vector<DataType> types;
  for (size_t k = 0; k < node.left_keys.size(); ++k) {
    const DataType& l = node.left_keys[k]->type;
    const DataType& r = node.right_keys[k]->type;
    if (l != r) {
      return Status::Internal(std::string(what) + " key " + std::to_string(k) +
                              " types differ: " + l.ToString() + " vs " + r.ToString());
    }
    types.push_back(l);
  }
  return types;
}

Status CheckJoinKeyColumns(const std::vector<std::vector<ColumnPtr>>& cols,
                           const std::vector<DataType>& types, const char* what) {
  for (const auto& batch_cols : cols) {
    for (size_t k = 0; k < types.size(); ++k) {
      if (batch_cols[k]->type() != types[k]) {
        return Status::Internal(std::string(what) + " key " + std::to_string(k) + " evaluated to " +
                                batch_cols[k]->type().ToString() + ", expected " +
                                types[k].ToString());
      }
    }
  }
  return Status::OK();
}

}  // namespace tandem::cpu
