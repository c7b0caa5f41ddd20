// ColumnBuilder implementation.
#include "tandem/column/column_builder.h"

#include <limits>

namespace tandem {

ColumnBuilder::ColumnBuilder(DataType type, int64_t expected_length)
    : type_(type), width_(type.byte_width()) {
  values_ = Buffer::Allocate(0);
  if (type_.is_string_like()) {
    data_ = Buffer::Allocate(0);
    values_->Resize(4);  // offsets[0] = 0
  }
  if (expected_length > 0) Reserve(expected_length);
}

void ColumnBuilder::Reserve(int64_t additional_rows) {
  const int64_t need = length_ + additional_rows;
  if (need <= capacity_) return;
  int64_t cap = capacity_ + capacity_ / 2;
  if (cap < need) cap = need;
  if (cap < 64) cap = 64;
  if (type_.id == TypeId::kBool) {
    values_->Reserve(bit_util::BytesForBits(cap));
  } else if (type_.is_string_like()) {
    values_->Reserve((cap + 1) * (large_offsets_ ? 8 : 4));
  } else {
    values_->Reserve(cap * width_);
  }
  if (validity_) validity_->Reserve(bit_util::BytesForBits(cap));
  capacity_ = cap;
}

void ColumnBuilder::ReserveBytes(int64_t additional_string_bytes) {
  data_->Reserve(data_bytes_ + additional_string_bytes);
}

void ColumnBuilder::EnsureRows(int64_t n) {
  if (length_ + n > capacity_) Reserve(n);
  const int64_t rows = length_ + n;
  if (type_.id == TypeId::kBool) {
    values_->Resize(bit_util::BytesForBits(rows));
  } else if (type_.is_string_like()) {
    values_->Resize((rows + 1) * (large_offsets_ ? 8 : 4));
  } else {
    values_->Resize(rows * width_);
  }
  if (validity_) validity_->Resize(bit_util::BytesForBits(rows));
}

void ColumnBuilder::MaterializeValidity() {
  validity_ = Buffer::Allocate(0);
  validity_->Reserve(bit_util::BytesForBits(capacity_ > length_ ? capacity_ : length_));
  validity_->Resize(bit_util::BytesForBits(length_));
  bit_util::SetBitsTo(validity_->mutable_data(), 0, length_, true);
}

void ColumnBuilder::WriteOffset(int64_t row, int64_t offset) {
  if (large_offsets_) {
    values_->mutable_data_as<int64_t>()[row] = offset;
  } else {
    values_->mutable_data_as<int32_t>()[row] = static_cast<int32_t>(offset);
  }
}

void ColumnBuilder::PromoteOffsets() {
  auto wide = Buffer::Allocate(0);
  wide->Reserve((capacity_ + 1) * 8);
  wide->Resize((length_ + 1) * 8);
  const int32_t* narrow = values_->data_as<int32_t>();
  int64_t* out = wide->mutable_data_as<int64_t>();
  for (int64_t i = 0; i <= length_; ++i) out[i] = narrow[i];
  values_ = std::move(wide);
  large_offsets_ = true;
}

void ColumnBuilder::AppendNull() { AppendNulls(1); }

void ColumnBuilder::AppendNulls(int64_t n) {
  if (n <= 0) return;
  if (!validity_) MaterializeValidity();
  EnsureRows(n);
  if (type_.is_string_like()) {
    for (int64_t i = 1; i <= n; ++i) WriteOffset(length_ + i, data_bytes_);
  }
  bit_util::SetBitsTo(validity_->mutable_data(), length_, n, false);
  length_ += n;
  null_count_ += n;
}

void ColumnBuilder::AppendBool(bool value) {
  EnsureRows(1);
  bit_util::SetBitTo(values_->mutable_data(), length_, value);
  MarkValid();
}

void ColumnBuilder::AppendString(std::string_view value) {
  const int64_t end = data_bytes_ + static_cast<int64_t>(value.size());
  if (!large_offsets_ && end > std::numeric_limits<int32_t>::max()) PromoteOffsets();
  EnsureRows(1);
  data_->Resize(end);
  if (!value.empty()) std::memcpy(data_->mutable_data() + data_bytes_, value.data(), value.size());
  data_bytes_ = end;
  WriteOffset(length_ + 1, end);
  MarkValid();
}

void ColumnBuilder::AppendFrom(const Column& source, int64_t row) {
  if (source.IsNull(row)) {
    AppendNull();
    return;
  }
  if (type_.id == TypeId::kBool) {
    AppendBool(source.GetBool(row));
  } else if (type_.is_string_like()) {
    AppendString(source.GetString(row));
  } else {
    EnsureRows(1);
    std::memcpy(values_->mutable_data() + length_ * width_, source.values()->data() + row * width_,
                static_cast<size_t>(width_));
    MarkValid();
  }
}

uint8_t* ColumnBuilder::AppendUninitialized(int64_t n) {
  const int64_t start = length_;
  EnsureRows(n);
  if (validity_) bit_util::SetBitsTo(validity_->mutable_data(), length_, n, true);
  length_ += n;
  return values_->mutable_data() + start * width_;
}

void ColumnBuilder::SetNull(int64_t row) {
  if (!validity_) MaterializeValidity();
  if (bit_util::GetBit(validity_->data(), row)) {
    bit_util::ClearBit(validity_->mutable_data(), row);
    ++null_count_;
  }
}

ColumnPtr ColumnBuilder::Finish() {
  auto column =
      std::make_shared<Column>(type_, length_, null_count_, null_count_ > 0 ? validity_ : nullptr,
                               values_, data_, large_offsets_);
  *this = ColumnBuilder(type_);
  return column;
}

}  // namespace tandem
