// UnsafeRow blocks -> batches, and back for tests (see unsafe_rows.h).
#include "tandem/spark/unsafe_rows.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::spark {
namespace {

int64_t BitsetBytes(int fields) { return ((fields + 63) / 64) * 8; }

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Big-endian two's complement bytes (Java's BigInteger.toByteArray) to int128.
bool BigEndianToInt128(const uint8_t* p, int64_t n, int128_t* out) {
  if (n < 1 || n > 16) return false;
  uint128_t v = (p[0] & 0x80) ? ~uint128_t{0} : 0;  // sign extension
  for (int64_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  *out = static_cast<int128_t>(v);
  return true;
}

void Int128ToBigEndian(int128_t v, std::string* out) {
  uint8_t bytes[16];
  uint128_t u = static_cast<uint128_t>(v);
  for (int i = 15; i >= 0; --i) {
    bytes[i] = static_cast<uint8_t>(u & 0xff);
    u >>= 8;
  }
  // Minimal length, as BigInteger writes it: drop leading bytes that only repeat the sign.
  int start = 0;
  while (start < 15 && ((bytes[start] == 0x00 && !(bytes[start + 1] & 0x80)) ||
                        (bytes[start] == 0xff && (bytes[start + 1] & 0x80)))) {
    ++start;
  }
  out->append(reinterpret_cast<const char*>(bytes + start), 16 - start);
}

bool VariableLength(const DataType& t) {
  return t.is_string_like() || (t.is_decimal() && t.is_wide_decimal());
}

Status Malformed(int64_t row, const std::string& what) {
  return Status::Invalid("Spark row " + std::to_string(row) + " of a block is malformed: " + what);
}

}  // namespace

Result<BatchPtr> DecodeUnsafeRows(const Schema& schema, const uint8_t* data, int64_t bytes,
                                  int64_t rows) {
  const int nf = schema.num_fields();
  const int64_t fixed = BitsetBytes(nf) + 8 * int64_t{nf};
  std::vector<ColumnBuilder> builders;
  builders.reserve(nf);
  for (const Field& f : schema.fields) builders.emplace_back(f.type, rows);
  int64_t at = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (at + kRowHeaderBytes > bytes) return Malformed(r, "the block ends before its header");
    const int32_t size = Load<int32_t>(data + at);
    at += kRowHeaderBytes;
    if (size < fixed || size % 8 != 0 || at + size > bytes) {
      return Malformed(r,
                       "size " + std::to_string(size) + " for " + std::to_string(nf) + " fields");
    }
    const uint8_t* row = data + at;
    for (int f = 0; f < nf; ++f) {
      ColumnBuilder& b = builders[f];
      const bool null = (Load<uint64_t>(row + 8 * (f / 64)) >> (f % 64)) & 1;
      if (null) {
        b.AppendNull();
        continue;
      }
      const uint8_t* slot = row + BitsetBytes(nf) + 8 * f;
      const DataType& t = schema.field(f).type;
      if (VariableLength(t)) {
        const uint64_t word = Load<uint64_t>(slot);
        const int64_t offset = static_cast<int64_t>(word >> 32);
        const int64_t length = static_cast<int64_t>(word & 0xffffffffu);
        if (offset < fixed || offset + length > size) {
          return Malformed(r, "field " + schema.field(f).name + " points past the row");
        }
        if (t.is_decimal()) {
          int128_t v;
          if (!BigEndianToInt128(row + offset, length, &v)) {
            return Malformed(
                r, "decimal " + schema.field(f).name + " has " + std::to_string(length) + " bytes");
          }
          b.Append<int128_t>(v);
        } else {
          b.AppendString(std::string_view(reinterpret_cast<const char*>(row + offset),
                                          static_cast<size_t>(length)));
        }
        continue;
      }
      // Spark has no unsigned types; every other fixed-width type is stored in its width.
      if (t.is_unsigned()) {
        return Status::Unsupported("Spark rows with a " + t.ToString() + " column");
      }
      VisitStorage(t, Overloaded{[&](BoolTag) { b.AppendBool(slot[0] != 0); },
                                 [&]<typename T>(Tag<T>) { b.Append<T>(Load<T>(slot)); },
                                 [](StringTag) {}});  // variable length, above
    }
    at += size;
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  batch->num_rows = rows;
  for (ColumnBuilder& b : builders) batch->columns.push_back(b.Finish());
  return batch;
}

std::string EncodeUnsafeRows(const Schema& schema, const std::vector<std::vector<Value>>& rows) {
  const int nf = schema.num_fields();
  const int64_t bitset = BitsetBytes(nf);
  std::string out;
  for (const std::vector<Value>& values : rows) {
    std::string row(static_cast<size_t>(bitset + 8 * nf), '\0');
    for (int f = 0; f < nf; ++f) {
      const Value& v = values[f];
      const DataType& t = schema.field(f).type;
      char* slot = row.data() + bitset + 8 * f;
      if (v.is_null) {
        row[f / 8] = static_cast<char>(row[f / 8] | (1 << (f % 8)));
        continue;
      }
      if (VariableLength(t)) {
        std::string payload;
        if (t.is_decimal()) {
          Int128ToBigEndian(v.DecimalUnscaled(), &payload);
        } else {
          payload = v.str;
        }
        const uint64_t word = (static_cast<uint64_t>(row.size()) << 32) | payload.size();
        std::memcpy(slot, &word, 8);
        row += payload;
        row.resize((row.size() + 7) / 8 * 8, '\0');
        continue;
      }
      auto store = [&]<typename T>(Tag<T>) {
        T x;
        if constexpr (std::is_floating_point_v<T>) {
          x = static_cast<T>(v.f64);
        } else {
          x = static_cast<T>(v.i64);
        }
        std::memcpy(slot, &x, sizeof(T));
      };
      VisitStorage(t, Overloaded{[&](BoolTag) { slot[0] = static_cast<char>(v.i64); }, store,
                                 [](StringTag) {}});  // variable length, above
    }
    const int32_t size = static_cast<int32_t>(row.size());
    const int32_t pad = 0;
    out.append(reinterpret_cast<const char*>(&size), 4);
    out.append(reinterpret_cast<const char*>(&pad), 4);
    out += row;
  }
  return out;
}

}  // namespace tandem::spark
