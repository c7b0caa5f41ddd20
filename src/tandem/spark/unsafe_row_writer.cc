// Columns -> packed UnsafeRows (see unsafe_row_writer.h).
#include "tandem/spark/unsafe_row_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

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

enum class Kind { kBool, kByte, kShort, kInt, kLong, kFloat, kDouble, kBytes, kWideDecimal };

Result<Kind> KindOf(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return Kind::kBool;
    case TypeId::kInt8:
      return Kind::kByte;
    case TypeId::kInt16:
      return Kind::kShort;
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Kind::kInt;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return Kind::kLong;
    case TypeId::kFloat32:
      return Kind::kFloat;
    case TypeId::kFloat64:
      return Kind::kDouble;
    case TypeId::kString:
    case TypeId::kBinary:
      return Kind::kBytes;
    case TypeId::kDecimal:
      return t.is_wide_decimal() ? Kind::kWideDecimal : Kind::kLong;
    default:
      return Status::Unsupported("Spark rows with a " + t.ToString() + " column");
  }
}

}  // namespace

Result<UnsafeRowBlock> EncodeBatchAsUnsafeRows(const Batch& batch) {
  const int nf = batch.num_columns();
  const int64_t n = batch.num_rows;
  const int64_t bitset = ((nf + 63) / 64) * 8;
  const int64_t fixed = bitset + 8 * int64_t{nf};
  std::vector<Kind> kinds;
  for (int f = 0; f < nf; ++f) {
    TANDEM_ASSIGN_OR_RAISE(Kind k, KindOf(batch.column(f)->type()));
    kinds.push_back(k);
  }
  // Pass 1: every row's size, and where it starts.
  std::vector<int64_t> start(static_cast<size_t>(n) + 1, 0);
  std::vector<int64_t> size(static_cast<size_t>(n), fixed);
  for (int f = 0; f < nf; ++f) {
    const Column& c = *batch.column(f);
    if (kinds[f] == Kind::kWideDecimal) {
      for (int64_t r = 0; r < n; ++r) size[r] += 16;  // kept even for NULL, as Spark does
    } else if (kinds[f] == Kind::kBytes) {
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
    const Kind kind = kinds[f];
    const bool nullable = c.null_count() > 0;
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = base + start[r] + kHeader;
      uint8_t* slot = row + bitset + 8 * f;
      if (nullable && c.IsNull(r)) {
        row[f / 8] = static_cast<uint8_t>(row[f / 8] | (1u << (f % 8)));
        if (kind == Kind::kWideDecimal) {
          const uint64_t word = static_cast<uint64_t>(cursor[r]) << 32;
          std::memcpy(slot, &word, 8);
          cursor[r] += 16;
        }
        continue;
      }
      switch (kind) {
        case Kind::kBool:
          slot[0] = c.GetBool(r) ? 1 : 0;
          break;
        case Kind::kByte:
          std::memcpy(slot, c.values()->data() + r, 1);
          break;
        case Kind::kShort:
          std::memcpy(slot, c.values()->data() + 2 * r, 2);
          break;
        case Kind::kInt:
          std::memcpy(slot, c.values()->data() + 4 * r, 4);
          break;
        case Kind::kLong:
          std::memcpy(slot, c.values()->data() + 8 * r, 8);
          break;
        case Kind::kFloat: {
          float v = c.Value<float>(r);
          if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
          std::memcpy(slot, &v, 4);
          break;
        }
        case Kind::kDouble: {
          double v = c.Value<double>(r);
          if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
          std::memcpy(slot, &v, 8);
          break;
        }
        case Kind::kBytes: {
          const std::string_view s = c.GetString(r);
          const uint64_t word = (static_cast<uint64_t>(cursor[r]) << 32) | s.size();
          std::memcpy(slot, &word, 8);
          if (!s.empty()) std::memcpy(row + cursor[r], s.data(), s.size());
          cursor[r] += Round8(static_cast<int64_t>(s.size()));
          break;
        }
        case Kind::kWideDecimal: {
          uint8_t bytes[16];
          const int skip = MinimalBytes(c.Value<int128_t>(r), bytes);
          const int len = 16 - skip;
          const uint64_t word = (static_cast<uint64_t>(cursor[r]) << 32) | len;
          std::memcpy(slot, &word, 8);
          std::memcpy(row + cursor[r], bytes + skip, static_cast<size_t>(len));
          cursor[r] += 16;
          break;
        }
      }
    }
  }
  return block;
}

}  // namespace tandem::spark
