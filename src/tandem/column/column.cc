// Column consistency checks.
#include "tandem/column/column.h"

namespace tandem {

Status Column::Validate() const {
  if (length_ < 0) return Status::Invalid("negative column length");
  if (validity_) {
    if (validity_->size() < bit_util::BytesForBits(length_)) {
      return Status::Invalid("validity bitmap shorter than the column");
    }
    const int64_t valid = bit_util::CountSetBits(validity_->data(), 0, length_);
    if (length_ - valid != null_count_) return Status::Invalid("null count does not match bitmap");
  } else if (null_count_ != 0) {
    return Status::Invalid("nulls counted but no validity bitmap");
  }
  if (type_.id == TypeId::kBool) {
    if (!values_ || values_->size() < bit_util::BytesForBits(length_)) {
      return Status::Invalid("boolean values buffer too short");
    }
    return Status::OK();
  }
  if (type_.is_string_like()) {
    const int64_t width = large_offsets_ ? 8 : 4;
    if (!values_ || values_->size() < (length_ + 1) * width) {
      return Status::Invalid("offsets buffer too short");
    }
    int64_t prev = StringOffset(0);
    if (prev != 0) return Status::Invalid("first string offset is not 0");
    for (int64_t i = 1; i <= length_; ++i) {
      const int64_t cur = StringOffset(i);
      if (cur < prev) return Status::Invalid("string offsets decrease at row " + std::to_string(i));
      prev = cur;
    }
    const int64_t data_size = data_ ? data_->size() : 0;
    if (prev > data_size) return Status::Invalid("string offsets point past the data buffer");
    return Status::OK();
  }
  if (!values_ && length_ > 0) return Status::Invalid("missing values buffer");
  if (values_ && values_->size() < length_ * type_.byte_width()) {
    return Status::Invalid("values buffer too short");
  }
  return Status::OK();
}

}  // namespace tandem
