// Names of Parquet encodings, codecs and physical types, as parquet.thrift spells them, for
// error messages and `tandem meta`.
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

}  // namespace tandem::parquet
