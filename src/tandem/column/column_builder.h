// ColumnBuilder: appends values of one DataType and produces an immutable Column.
// Grows its buffers geometrically; the validity bitmap is created only at the first null.
// String columns start with int32 offsets and switch to int64 once their bytes pass 2 GiB.
#pragma once

#include <cstring>
#include <string_view>

#include "tandem/column/column.h"

namespace tandem {

class ColumnBuilder {
 public:
  explicit ColumnBuilder(DataType type, int64_t expected_length = 0);

  const DataType& type() const { return type_; }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  void Reserve(int64_t additional_rows);
  void ReserveBytes(int64_t additional_string_bytes);

  void AppendNull();
  void AppendNulls(int64_t n);

  // Fixed-width values; T must be the storage type (int32_t for date32, int64_t for timestamps
  // and decimals up to 18 digits, int128_t above).
  template <typename T>
  void Append(T value) {
    EnsureRows(1);
    std::memcpy(values_->mutable_data() + length_ * sizeof(T), &value, sizeof(T));
    MarkValid();
  }
  void AppendBool(bool value);
  void AppendString(std::string_view value);

  // Appends row `row` of `source`, which must have the same type.
  void AppendFrom(const Column& source, int64_t row);

  // Bulk path for decoders: makes room for n fixed-width values, all valid, and returns where
  // they go. The caller fills them; nulls can be marked afterwards with SetNull.
  uint8_t* AppendUninitialized(int64_t n);
  // Marks an already appended row as null (its value stays but is not looked at).
  void SetNull(int64_t row);

  ColumnPtr Finish();

 private:
  void EnsureRows(int64_t n);
  void MarkValid() {
    if (validity_) bit_util::SetBit(validity_->mutable_data(), length_);
    ++length_;
  }
  void MaterializeValidity();
  void WriteOffset(int64_t row, int64_t offset);
  void PromoteOffsets();

  DataType type_;
  int width_;  // bytes per value; 0 for bool and strings
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  int64_t capacity_ = 0;  // rows
  int64_t data_bytes_ = 0;
  bool large_offsets_ = false;
  std::shared_ptr<Buffer> validity_;
  std::shared_ptr<Buffer> values_;
  std::shared_ptr<Buffer> data_;
};

}  // namespace tandem
