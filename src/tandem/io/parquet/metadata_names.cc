// Names of Parquet encodings, codecs, physical, converted and logical types and repetitions, as
// parquet.thrift spells them, for error messages and `tandem meta`.
#include <string>

#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::PLAIN:
      return "PLAIN";
    case Encoding::PLAIN_DICTIONARY:
      return "PLAIN_DICTIONARY";
    case Encoding::RLE:
      return "RLE";
    case Encoding::BIT_PACKED:
      return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED:
      return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY:
      return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY:
      return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN_ENCODING";
}

const char* CodecName(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case CompressionCodec::SNAPPY:
      return "SNAPPY";
    case CompressionCodec::GZIP:
      return "GZIP";
    case CompressionCodec::LZO:
      return "LZO";
    case CompressionCodec::BROTLI:
      return "BROTLI";
    case CompressionCodec::LZ4:
      return "LZ4";
    case CompressionCodec::ZSTD:
      return "ZSTD";
    case CompressionCodec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

const char* PhysicalTypeName(PhysicalType t) {
  switch (t) {
    case PhysicalType::BOOLEAN:
      return "BOOLEAN";
    case PhysicalType::INT32:
      return "INT32";
    case PhysicalType::INT64:
      return "INT64";
    case PhysicalType::INT96:
      return "INT96";
    case PhysicalType::FLOAT:
      return "FLOAT";
    case PhysicalType::DOUBLE:
      return "DOUBLE";
    case PhysicalType::BYTE_ARRAY:
      return "BYTE_ARRAY";
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN_TYPE";
}

const char* RepetitionName(Repetition r) {
  switch (r) {
    case Repetition::REQUIRED:
      return "REQUIRED";
    case Repetition::OPTIONAL:
      return "OPTIONAL";
    case Repetition::REPEATED:
      return "REPEATED";
  }
  return "?";
}

std::string ConvertedTypeName(ConvertedType t) {
  static const char* kNames[] = {"UTF8",
                                 "MAP",
                                 "MAP_KEY_VALUE",
                                 "LIST",
                                 "ENUM",
                                 "DECIMAL",
                                 "DATE",
                                 "TIME_MILLIS",
                                 "TIME_MICROS",
                                 "TIMESTAMP_MILLIS",
                                 "TIMESTAMP_MICROS",
                                 "UINT_8",
                                 "UINT_16",
                                 "UINT_32",
                                 "UINT_64",
                                 "INT_8",
                                 "INT_16",
                                 "INT_32",
                                 "INT_64",
                                 "JSON",
                                 "BSON",
                                 "INTERVAL"};
  const int i = static_cast<int>(t);
  if (i >= 0 && i < static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[i];
  return "CONVERTED(" + std::to_string(i) + ")";
}

std::string LogicalTypeName(const LogicalType& t) {
  using K = LogicalType::Kind;
  auto unit = [&] {
    switch (t.unit) {
      case LogicalType::TimeUnit::kMillis:
        return "MILLIS";
      case LogicalType::TimeUnit::kMicros:
        return "MICROS";
      case LogicalType::TimeUnit::kNanos:
        return "NANOS";
    }
    return "?";
  };
  switch (t.kind) {
    case K::kNone:
      return "";
    case K::kString:
      return "STRING";
    case K::kMap:
      return "MAP";
    case K::kList:
      return "LIST";
    case K::kEnum:
      return "ENUM";
    case K::kDecimal:
      return "DECIMAL(" + std::to_string(t.decimal_precision) + "," +
             std::to_string(t.decimal_scale) + ")";
    case K::kDate:
      return "DATE";
    case K::kTime:
      return std::string("TIME(") + unit() + (t.adjusted_to_utc ? ", UTC)" : ", local)");
    case K::kTimestamp:
      return std::string("TIMESTAMP(") + unit() + (t.adjusted_to_utc ? ", UTC)" : ", local)");
    case K::kInteger:
      return "INT(" + std::to_string(t.bit_width) + (t.is_signed ? ", signed)" : ", unsigned)");
    case K::kUnknown:
      return "UNKNOWN";
    case K::kJson:
      return "JSON";
    case K::kBson:
      return "BSON";
    case K::kUuid:
      return "UUID";
    case K::kFloat16:
      return "FLOAT16";
    case K::kOther:
      return "OTHER";
  }
  return "?";
}

}  // namespace tandem::parquet
