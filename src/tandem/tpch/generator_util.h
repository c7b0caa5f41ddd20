// Small helpers shared by the TPC-H table generators: fixed-width column buffers filled in place,
// zero-padded decimal formatting, phone numbers and random alphanumeric strings.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string_view>

#include "tandem/column/batch.h"
#include "tandem/column/column_builder.h"
#include "tandem/tpch/random.h"

namespace tandem::tpch {

// A fixed-width, non-null column of `length` values written through data().
template <typename T>
class FixedColumn {
 public:
  FixedColumn(DataType type, int64_t length)
      : type_(type), length_(length), buffer_(Buffer::Allocate(length * int64_t{sizeof(T)})) {}
  T* data() { return buffer_->mutable_data_as<T>(); }
  ColumnPtr Finish() { return std::make_shared<Column>(type_, length_, 0, nullptr, buffer_); }

 private:
  DataType type_;
  int64_t length_;
  std::shared_ptr<Buffer> buffer_;
};

inline ColumnBuilder StringColumn(int64_t rows, int64_t average_bytes) {
  ColumnBuilder builder(DataType::String(), rows);
  builder.ReserveBytes(rows * average_bytes);
  return builder;
}

// Writes `value` in decimal, left-padded with zeros to at least `width` digits; returns the end.
inline char* WritePadded(char* out, int64_t value, int width) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = n; i < width; ++i) *out++ = '0';
  while (n > 0) *out++ = digits[--n];
  return out;
}

// "Prefix#000000042": the spec's names (Supplier#, Customer#, Clerk#) with 9-digit numbers.
inline std::string_view FormatNumbered(char* buf, std::string_view prefix, int64_t number) {
  std::memcpy(buf, prefix.data(), prefix.size());
  char* end = WritePadded(buf + prefix.size(), number, 9);
  return std::string_view(buf, static_cast<size_t>(end - buf));
}

// Concatenates `parts` into buf (which must be large enough).
inline std::string_view Join(char* buf, std::initializer_list<std::string_view> parts) {
  char* p = buf;
  for (std::string_view s : parts) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  return std::string_view(buf, static_cast<size_t>(p - buf));
}

// Phone number of clause 4.2.2.9: "CC-LLL-LLL-LLLL" with CC = nationkey + 10.
inline std::string_view FormatPhone(char* buf, uint64_t stream, uint64_t row, int64_t nationkey) {
  char* p = WritePadded(buf, nationkey + 10, 2);
  *p++ = '-';
  p = WritePadded(p, RandomRange(stream, 3 * row, 100, 999), 3);
  *p++ = '-';
  p = WritePadded(p, RandomRange(stream, 3 * row + 1, 100, 999), 3);
  *p++ = '-';
  p = WritePadded(p, RandomRange(stream, 3 * row + 2, 1000, 9999), 4);
  return std::string_view(buf, static_cast<size_t>(p - buf));
}

// "Random v-string [min, max]" of clause 4.2.2.7: length uniform in [min, max] (max <= 60), each
// character uniform over 64 symbols.
inline std::string_view FormatVString(char* buf, uint64_t stream, uint64_t row, int min_len,
                                      int max_len) {
  static constexpr char kSymbols[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
  static_assert(sizeof(kSymbols) == 65);
  const int64_t length = RandomRange(stream, 8 * row, min_len, max_len);
  uint64_t bits = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (i % 10 == 0) bits = RandomBits(stream, 8 * row + 1 + static_cast<uint64_t>(i / 10));
    buf[i] = kSymbols[bits & 63];
    bits >>= 6;
  }
  return std::string_view(buf, static_cast<size_t>(length));
}

inline BatchPtr MakeBatch(Schema schema, std::vector<ColumnPtr> columns, int64_t rows) {
  auto batch = std::make_shared<Batch>();
  batch->schema = std::move(schema);
  batch->columns = std::move(columns);
  batch->num_rows = rows;
  return batch;
}

}  // namespace tandem::tpch
