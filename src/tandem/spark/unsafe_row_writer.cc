// Columns -> packed UnsafeRows (see unsafe_row_writer.h).
#include "tandem/spark/unsafe_row_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tandem/types/type_dispatch.h"

namespace tandem::spark {
namespace {

constexpr int64_t kHeader = 8;  // [int32 size][int32 0] before every row

int64_t Round8(int64_t n) { return (n + 7) & ~int64_t{7}; }

// Bytes of Java's BigInteger.toByteArray for v (big-endian two's complement, minimal).
int MinimalBytes(int128_t v, uint8_t out[16]) {
  uint128_t u = static_cast<uint128_t>(v);
  for (int i = 15; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(u & 0xff);
    u >>= 8;
  }
  int start = 0;
  while (start < 15 && ((out[start] == 0x00 && !(out[start + 1] & 0x80)) ||
                        (out[start] == 0xff && (out[start + 1] & 0x80)))) {
    ++start;
  }
  return start;
}

}  // namespace

Result<UnsafeRowBlock> EncodeBatchAsUnsafeRows(const Batch& batch) {
  const int nf = batch.num_columns();
  const int64_t n = batch.num_rows;
  const int64_t bitset = ((nf + 63) / 64) * 8;
  const int64_t fixed = bitset + 8 * int64_t{nf};
  for (int f = 0; f < nf; ++f) {
    const DataType& t = batch.column(f)->type();
    if (t.is_unsigned()) {  // Spark has no unsigned types
      return Status::Unsupported("Spark rows with a " + t.ToString() + " column");
    }
  }
  // Pass 1: every row's size, and where it starts.
  std::vector<int64_t> start(static_cast<size_t>(n) + 1, 0);
  std::vector<int64_t> size(static_cast<size_t>(n), fixed);
  for (int f = 0; f < nf; ++f) {
    const Column& c = *batch.column(f);
    if (c.type().is_wide_decimal()) {
      for (int64_t r = 0; r < n; ++r) size[r] += 16;  // kept even for NULL, as Spark does
    } else if (c.type().is_string_like()) {
      for (int64_t r = 0; r < n; ++r) {
        if (!c.IsNull(r)) size[r] += Round8(static_cast<int64_t>(c.GetString(r).size()));
      }
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    if (size[r] > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("a row of " + std::to_string(size[r]) +
                             " bytes is too large for Spark (2 GiB)");
    }
    start[r + 1] = start[r] + kHeader + size[r];
  }
  UnsafeRowBlock block;
  block.rows = n;
  block.size = start[n];
  TANDEM_ASSIGN_OR_RAISE(block.bytes, Buffer::TryAllocate(std::max<int64_t>(start[n], 1)));
  uint8_t* base = block.bytes->mutable_data();
  for (int64_t r = 0; r < n; ++r) {
    const int32_t s = static_cast<int32_t>(size[r]);
    std::memcpy(base + start[r], &s, 4);
  }
  // Pass 2: column by column; `cursor` is each row's next free byte of its variable part.
  std::vector<int64_t> cursor(static_cast<size_t>(n), fixed);
  for (int f = 0; f < nf; ++f) {
    const Column& c = *batch.column(f);
    const bool wide_decimal = c.type().is_wide_decimal();
    const bool nullable = c.null_count() > 0;
    // Calls write(r, row, slot) for each non-NULL row r; marks the NULL ones.
    auto each_row = [&](auto&& write) {
      for (int64_t r = 0; r < n; ++r) {
        uint8_t* row = base + start[r] + kHeader;
        uint8_t* slot = row + bitset + 8 * f;
        if (nullable && c.IsNull(r)) {
          row[f / 8] = static_cast<uint8_t>(row[f / 8] | (1u << (f % 8)));
          if (wide_decimal) {
            const uint64_t word = static_cast<uint64_t>(cursor[r]) << 32;
            std::memcpy(slot, &word, 8);
            cursor[r] += 16;
          }
          continue;
        }
        write(r, row, slot);
      }
    };
    auto write_bools = [&](BoolTag) {
      each_row([&](int64_t r, uint8_t*, uint8_t* slot) { slot[0] = c.GetBool(r) ? 1 : 0; });
    };
    auto write_strings = [&](StringTag) {
      each_row([&](int64_t r, uint8_t* row, uint8_t* slot) {
        const std::string_view s = c.GetString(r);
        const uint64_t word = (static_cast<uint64_t>(cursor[r]) << 32) | s.size();
        std::memcpy(slot, &word, 8);
        if (!s.empty()) std::memcpy(row + cursor[r], s.data(), s.size());
        cursor[r] += Round8(static_cast<int64_t>(s.size()));
      });
    };
    auto write_fixed = [&]<typename T>(Tag<T>) {
      const T* values = c.values_as<T>();
      each_row([&](int64_t r, uint8_t* row, uint8_t* slot) {
        if constexpr (std::is_same_v<T, int128_t>) {  // wide decimal: BigInteger bytes
          uint8_t bytes[16];
          const int skip = MinimalBytes(values[r], bytes);
          const int len = 16 - skip;
          const uint64_t word = (static_cast<uint64_t>(cursor[r]) << 32) | len;
          std::memcpy(slot, &word, 8);
          std::memcpy(row + cursor[r], bytes + skip, static_cast<size_t>(len));
          cursor[r] += 16;
        } else {
          T v = values[r];
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
          }
          std::memcpy(slot, &v, sizeof(T));
        }
      });
    };
    VisitStorage(c.type(), Overloaded{write_bools, write_strings, write_fixed});
  }
  return block;
}

}  // namespace tandem::spark
