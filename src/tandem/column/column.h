// Column: one immutable array of values of one DataType in Arrow memory layout, on the host.
//   validity: LSB-first bitmap, 1 = valid; absent (null) when the column has no nulls.
//   values:   fixed-width values (booleans bit-packed), or for strings/binary the offsets
//             (length + 1 entries, int32 unless the bytes pass 2 GiB, then int64).
//   data:     the string/binary bytes.
// Columns always start at element 0 (no slice offset): simpler kernels on CPU and GPU alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "tandem/common/bit_util.h"
#include "tandem/memory/buffer.h"
#include "tandem/types/data_type.h"

namespace tandem {

class Column {
 public:
  Column(DataType type, int64_t length, int64_t null_count, std::shared_ptr<Buffer> validity,
         std::shared_ptr<Buffer> values, std::shared_ptr<Buffer> data = nullptr,
         bool large_offsets = false)
      : type_(type),
        length_(length),
        null_count_(null_count),
        validity_(std::move(validity)),
        values_(std::move(values)),
        data_(std::move(data)),
        large_offsets_(large_offsets) {}

  const DataType& type() const { return type_; }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  bool has_validity() const { return validity_ != nullptr; }
  const std::shared_ptr<Buffer>& validity() const { return validity_; }
  const std::shared_ptr<Buffer>& values() const { return values_; }
  const std::shared_ptr<Buffer>& data() const { return data_; }
  // String/binary columns: whether offsets are int64 (bytes past 2 GiB) rather than int32.
  bool large_offsets() const { return large_offsets_; }

  const uint8_t* validity_bits() const { return validity_ ? validity_->data() : nullptr; }
  bool IsValid(int64_t i) const { return !validity_ || bit_util::GetBit(validity_->data(), i); }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  template <typename T>
  const T* values_as() const {
    return values_->data_as<T>();
  }
  template <typename T>
  T Value(int64_t i) const {
    return values_->data_as<T>()[i];
  }
  bool GetBool(int64_t i) const { return bit_util::GetBit(values_->data(), i); }

  int64_t StringOffset(int64_t i) const {
    return large_offsets_ ? values_->data_as<int64_t>()[i] : values_->data_as<int32_t>()[i];
  }
  std::string_view GetString(int64_t i) const {
    const int64_t begin = StringOffset(i);
    const int64_t end = StringOffset(i + 1);
    const char* base = data_ ? reinterpret_cast<const char*>(data_->data()) : "";
    return std::string_view(base + begin, static_cast<size_t>(end - begin));
  }
  int64_t string_bytes() const { return length_ == 0 ? 0 : StringOffset(length_); }

  // Checks buffer sizes, offsets and null count against the type and length (for imported or
  // decoded data); OK or an Invalid status saying what is inconsistent.
  Status Validate() const;

 private:
  DataType type_;
  int64_t length_;
  int64_t null_count_;
  std::shared_ptr<Buffer> validity_;
  std::shared_ptr<Buffer> values_;
  std::shared_ptr<Buffer> data_;
  bool large_offsets_;
};

using ColumnPtr = std::shared_ptr<Column>;

}  // namespace tandem
