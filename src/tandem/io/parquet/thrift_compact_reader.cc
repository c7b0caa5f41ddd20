// Thrift compact protocol decoding: varints, zigzag integers, field headers with id deltas,
// list headers, and recursive skipping of unknown fields, all bounds-checked.
#include "tandem/io/parquet/thrift_compact_reader.h"

#include <cstring>

namespace tandem::parquet {
namespace {

int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

bool IsKnownType(uint8_t t) { return t <= static_cast<uint8_t>(ThriftType::kStruct); }

}  // namespace

Status ThriftCompactReader::Truncated() const {
  return Status::Invalid("truncated Thrift data at byte " + std::to_string(consumed()));
}

Status ThriftCompactReader::ReadVarint(uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= end_) return Truncated();
    const uint8_t byte = *pos_++;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return Status::OK();
    }
  }
  return Status::Invalid("Thrift varint longer than 10 bytes at byte " +
                         std::to_string(consumed()));
}

Status ThriftCompactReader::ReadI16(int16_t* value) {
  int64_t v;
  TANDEM_RETURN_NOT_OK(ReadI64(&v));
  if (v < INT16_MIN || v > INT16_MAX) return Status::Invalid("Thrift i16 out of range");
  *value = static_cast<int16_t>(v);
  return Status::OK();
}

Status ThriftCompactReader::ReadI32(int32_t* value) {
  int64_t v;
  TANDEM_RETURN_NOT_OK(ReadI64(&v));
  if (v < INT32_MIN || v > INT32_MAX) return Status::Invalid("Thrift i32 out of range");
  *value = static_cast<int32_t>(v);
  return Status::OK();
}

Status ThriftCompactReader::ReadI64(int64_t* value) {
  uint64_t v;
  TANDEM_RETURN_NOT_OK(ReadVarint(&v));
  *value = ZigZagDecode(v);
  return Status::OK();
}

Status ThriftCompactReader::ReadByte(int8_t* value) {
  if (pos_ >= end_) return Truncated();
  *value = static_cast<int8_t>(*pos_++);
  return Status::OK();
}

Status ThriftCompactReader::ReadBool(bool* value) {
  int8_t b;
  TANDEM_RETURN_NOT_OK(ReadByte(&b));
  *value = (b == 1);
  return Status::OK();
}

Status ThriftCompactReader::ReadDouble(double* value) {
  if (remaining() < 8) return Truncated();
  std::memcpy(value, pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status ThriftCompactReader::ReadBinary(std::string* value) {
  uint64_t len;
  TANDEM_RETURN_NOT_OK(ReadVarint(&len));
  if (len > static_cast<uint64_t>(remaining())) {
    return Status::Invalid("Thrift string length " + std::to_string(len) + " exceeds the " +
                           std::to_string(remaining()) + " bytes left");
  }
  value->assign(reinterpret_cast<const char*>(pos_), static_cast<size_t>(len));
  pos_ += len;
  return Status::OK();
}

Status ThriftCompactReader::BeginStruct() {
  if (depth_ >= kMaxDepth) return Status::Invalid("Thrift structs nested too deeply");
  saved_ids_[depth_++] = last_field_id_;
  last_field_id_ = 0;
  return Status::OK();
}

void ThriftCompactReader::EndStruct() {
  if (depth_ > 0) last_field_id_ = saved_ids_[--depth_];
}

Status ThriftCompactReader::ReadFieldHeader(int16_t* field_id, ThriftType* type) {
  if (pos_ >= end_) return Truncated();
  const uint8_t byte = *pos_++;
  const uint8_t t = byte & 0x0f;
  if (t == 0) {
    *type = ThriftType::kStop;
    *field_id = 0;
    return Status::OK();
  }
  if (!IsKnownType(t)) return Status::Invalid("unknown Thrift type " + std::to_string(t));
  const uint8_t delta = byte >> 4;
  if (delta != 0) {
    const int32_t id = last_field_id_ + delta;
    if (id > INT16_MAX) return Status::Invalid("Thrift field id out of range");
    last_field_id_ = static_cast<int16_t>(id);
  } else {
    TANDEM_RETURN_NOT_OK(ReadI16(&last_field_id_));
  }
  *field_id = last_field_id_;
  *type = static_cast<ThriftType>(t);
  return Status::OK();
}

Status ThriftCompactReader::ReadListHeader(ThriftType* element_type, int64_t* size) {
  if (pos_ >= end_) return Truncated();
  const uint8_t byte = *pos_++;
  const uint8_t t = byte & 0x0f;
  if (!IsKnownType(t) || t == 0) return Status::Invalid("unknown Thrift list element type");
  int64_t n = byte >> 4;
  if (n == 15) {
    uint64_t v;
    TANDEM_RETURN_NOT_OK(ReadVarint(&v));
    if (v > static_cast<uint64_t>(kMaxListSize)) return Status::Invalid("Thrift list too long");
    n = static_cast<int64_t>(v);
  }
  // Every element takes at least one byte except booleans... which also take one in lists.
  if (n > remaining())
    return Status::Invalid("Thrift list of " + std::to_string(n) +
                           " elements exceeds the data left");
  *element_type = static_cast<ThriftType>(t);
  *size = n;
  return Status::OK();
}

Status ThriftCompactReader::ReadInteger(ThriftType type, int64_t* value) {
  switch (type) {
    case ThriftType::kByte: {
      int8_t b;
      TANDEM_RETURN_NOT_OK(ReadByte(&b));
      *value = b;
      return Status::OK();
    }
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
      return ReadI64(value);
    default:
      return Status::Invalid("Thrift field has type " + std::to_string(static_cast<int>(type)) +
                             " where an integer was expected");
  }
}

Status ThriftCompactReader::Skip(ThriftType type) { return SkipDepth(type, depth_); }

Status ThriftCompactReader::SkipDepth(ThriftType type, int depth) {
  if (depth >= kMaxDepth) return Status::Invalid("Thrift structs nested too deeply");
  switch (type) {
    case ThriftType::kBoolTrue:
    case ThriftType::kBoolFalse:
      return Status::OK();  // value lives in the field header
    case ThriftType::kByte: {
      int8_t b;
      return ReadByte(&b);
    }
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case ThriftType::kDouble:
      if (remaining() < 8) return Truncated();
      pos_ += 8;
      return Status::OK();
    case ThriftType::kBinary: {
      uint64_t len;
      TANDEM_RETURN_NOT_OK(ReadVarint(&len));
      if (len > static_cast<uint64_t>(remaining())) return Truncated();
      pos_ += len;
      return Status::OK();
    }
    case ThriftType::kList:
    case ThriftType::kSet: {
      ThriftType elem;
      int64_t n;
      TANDEM_RETURN_NOT_OK(ReadListHeader(&elem, &n));
      for (int64_t i = 0; i < n; ++i) {
        if (elem == ThriftType::kBoolTrue || elem == ThriftType::kBoolFalse) {
          int8_t b;
          TANDEM_RETURN_NOT_OK(ReadByte(&b));
        } else {
          TANDEM_RETURN_NOT_OK(SkipDepth(elem, depth + 1));
        }
      }
      return Status::OK();
    }
    case ThriftType::kMap: {
      uint64_t n;
      TANDEM_RETURN_NOT_OK(ReadVarint(&n));
      if (n == 0) return Status::OK();
      if (n > static_cast<uint64_t>(remaining())) return Truncated();
      if (pos_ >= end_) return Truncated();
      const uint8_t types = *pos_++;
      const uint8_t kt = types >> 4, vt = types & 0x0f;
      if (!IsKnownType(kt) || !IsKnownType(vt) || kt == 0 || vt == 0) {
        return Status::Invalid("unknown Thrift map element type");
      }
      for (uint64_t i = 0; i < n; ++i) {
        for (uint8_t t : {kt, vt}) {
          if (t == 1 || t == 2) {
            int8_t b;
            TANDEM_RETURN_NOT_OK(ReadByte(&b));
          } else {
            TANDEM_RETURN_NOT_OK(SkipDepth(static_cast<ThriftType>(t), depth + 1));
          }
        }
      }
      return Status::OK();
    }
    case ThriftType::kStruct: {
      // Field ids inside are tracked locally: skipping needs only the types.
      int16_t saved = last_field_id_;
      last_field_id_ = 0;
      while (true) {
        int16_t id;
        ThriftType t;
        TANDEM_RETURN_NOT_OK(ReadFieldHeader(&id, &t));
        if (t == ThriftType::kStop) break;
        TANDEM_RETURN_NOT_OK(SkipDepth(t, depth + 1));
      }
      last_field_id_ = saved;
      return Status::OK();
    }
    case ThriftType::kStop:
      return Status::Invalid("unexpected Thrift stop");
  }
  return Status::Invalid("unknown Thrift type");
}

}  // namespace tandem::parquet
