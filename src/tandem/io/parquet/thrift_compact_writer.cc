// Thrift compact protocol encoding: zigzag varints, delta field headers, list headers.
#include "tandem/io/parquet/thrift_compact_writer.h"

namespace tandem::parquet {

void ThriftCompactWriter::WriteVarint(uint64_t value) {
  while (value >= 0x80) {
    out_->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out_->push_back(static_cast<char>(value));
}

void ThriftCompactWriter::FieldHeader(int16_t id, ThriftType type) {
  const int delta = id - last_field_id_;
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_->push_back(static_cast<char>(type));
    WriteVarint(ZigZag(id));
  }
  last_field_id_ = id;
}

void ThriftCompactWriter::BeginStruct() {
  saved_field_ids_.push_back(last_field_id_);
  last_field_id_ = 0;
}

void ThriftCompactWriter::EndStruct() {
  out_->push_back(0);  // field stop
  if (!saved_field_ids_.empty()) {
    last_field_id_ = saved_field_ids_.back();
    saved_field_ids_.pop_back();
  }
}

void ThriftCompactWriter::FieldStructBegin(int16_t id) {
  FieldHeader(id, ThriftType::kStruct);
  BeginStruct();
}

void ThriftCompactWriter::FieldBool(int16_t id, bool value) {
  FieldHeader(id, value ? ThriftType::kBoolTrue : ThriftType::kBoolFalse);
}

void ThriftCompactWriter::FieldByte(int16_t id, int8_t value) {
  FieldHeader(id, ThriftType::kByte);
  out_->push_back(static_cast<char>(value));
}

void ThriftCompactWriter::FieldI16(int16_t id, int16_t value) {
  FieldHeader(id, ThriftType::kI16);
  WriteVarint(ZigZag(value));
}

void ThriftCompactWriter::FieldI32(int16_t id, int32_t value) {
  FieldHeader(id, ThriftType::kI32);
  WriteVarint(ZigZag(value));
}

void ThriftCompactWriter::FieldI64(int16_t id, int64_t value) {
  FieldHeader(id, ThriftType::kI64);
  WriteVarint(ZigZag(value));
}

void ThriftCompactWriter::FieldBinary(int16_t id, std::string_view value) {
  FieldHeader(id, ThriftType::kBinary);
  ElementBinary(value);
}

void ThriftCompactWriter::ElementBinary(std::string_view value) {
  WriteVarint(value.size());
  out_->append(value.data(), value.size());
}

void ThriftCompactWriter::FieldListBegin(int16_t id, ThriftType element_type, int64_t size) {
  FieldHeader(id, ThriftType::kList);
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | static_cast<int>(element_type)));
  } else {
    out_->push_back(static_cast<char>(0xF0 | static_cast<int>(element_type)));
    WriteVarint(static_cast<uint64_t>(size));
  }
}

}  // namespace tandem::parquet
