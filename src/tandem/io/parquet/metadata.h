// Parquet file metadata as plain structs, mirroring parquet.thrift (the Apache Parquet format
// specification). Only the fields Tandem reads or writes are kept; unknown fields are skipped by
// the Thrift compact-protocol decoder. Serialised by metadata_serialize.cc (writer) and parsed by
// metadata_parse.cc (reader).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::parquet {

// Enums keep the numeric values of parquet.thrift.
enum class PhysicalType : int32_t {
  BOOLEAN = 0,
  INT32 = 1,
  INT64 = 2,
  INT96 = 3,
  FLOAT = 4,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
  FIXED_LEN_BYTE_ARRAY = 7,
};

enum class ConvertedType : int32_t {
  UTF8 = 0,
  MAP = 1,
  MAP_KEY_VALUE = 2,
  LIST = 3,
  ENUM = 4,
  DECIMAL = 5,
  DATE = 6,
  TIME_MILLIS = 7,
  TIME_MICROS = 8,
  TIMESTAMP_MILLIS = 9,
  TIMESTAMP_MICROS = 10,
  UINT_8 = 11,
  UINT_16 = 12,
  UINT_32 = 13,
  UINT_64 = 14,
  INT_8 = 15,
  INT_16 = 16,
  INT_32 = 17,
  INT_64 = 18,
  JSON = 19,
  BSON = 20,
  INTERVAL = 21,
};

enum class Repetition : int32_t { REQUIRED = 0, OPTIONAL = 1, REPEATED = 2 };

enum class Encoding : int32_t {
  PLAIN = 0,
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  BIT_PACKED = 4,
  DELTA_BINARY_PACKED = 5,
  DELTA_LENGTH_BYTE_ARRAY = 6,
  DELTA_BYTE_ARRAY = 7,
  RLE_DICTIONARY = 8,
  BYTE_STREAM_SPLIT = 9,
};

enum class CompressionCodec : int32_t {
  UNCOMPRESSED = 0,
  SNAPPY = 1,
  GZIP = 2,
  LZO = 3,
  BROTLI = 4,
  LZ4 = 5,  // deprecated Hadoop-framed LZ4
  ZSTD = 6,
  LZ4_RAW = 7,
};

enum class PageType : int32_t {
  DATA_PAGE = 0,
  INDEX_PAGE = 1,
  DICTIONARY_PAGE = 2,
  DATA_PAGE_V2 = 3,
};

// LogicalType union (field id in parquet.thrift in brackets).
struct LogicalType {
  enum class Kind {
    kNone,
    kString,     // [1]
    kMap,        // [2]
    kList,       // [3]
    kEnum,       // [4]
    kDecimal,    // [5] scale [1], precision [2]
    kDate,       // [6]
    kTime,       // [7]
    kTimestamp,  // [8] isAdjustedToUTC [1], unit [2]
    kInteger,    // [10] bitWidth [1], isSigned [2]
    kUnknown,    // [11] (always null)
    kJson,       // [12]
    kBson,       // [13]
    kUuid,       // [14]
    kFloat16,    // [15]
    kOther,      // any other member: kept so the reader can name it in an error
  };
  enum class TimeUnit { kMillis, kMicros, kNanos };  // TimeUnit union members 1, 2, 3

  Kind kind = Kind::kNone;
  int32_t decimal_scale = 0;
  int32_t decimal_precision = 0;
  bool adjusted_to_utc = false;
  TimeUnit unit = TimeUnit::kMicros;
  int8_t bit_width = 0;
  bool is_signed = true;
};

struct SchemaElement {
  std::optional<PhysicalType> type;             // [1] absent for groups
  std::optional<int32_t> type_length;           // [2] FIXED_LEN_BYTE_ARRAY width
  std::optional<Repetition> repetition;         // [3]
  std::string name;                             // [4]
  std::optional<int32_t> num_children;          // [5]
  std::optional<ConvertedType> converted_type;  // [6]
  std::optional<int32_t> scale;                 // [7]
  std::optional<int32_t> precision;             // [8]
  std::optional<int32_t> field_id;              // [9]
  std::optional<LogicalType> logical_type;      // [10]
};

struct Statistics {
  std::optional<std::string> max;         // [1] deprecated, signed order
  std::optional<std::string> min;         // [2] deprecated
  std::optional<int64_t> null_count;      // [3]
  std::optional<int64_t> distinct_count;  // [4]
  std::optional<std::string> max_value;   // [5]
  std::optional<std::string> min_value;   // [6]
};

struct KeyValue {
  std::string key;                   // [1]
  std::optional<std::string> value;  // [2]
};

struct DataPageHeader {
  int32_t num_values = 0;                              // [1]
  Encoding encoding = Encoding::PLAIN;                 // [2]
  Encoding definition_level_encoding = Encoding::RLE;  // [3]
  Encoding repetition_level_encoding = Encoding::RLE;  // [4]
  std::optional<Statistics> statistics;                // [5]
};

struct DictionaryPageHeader {
  int32_t num_values = 0;               // [1]
  Encoding encoding = Encoding::PLAIN;  // [2]
  std::optional<bool> is_sorted;        // [3]
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // [1]
  int32_t num_nulls = 0;                      // [2]
  int32_t num_rows = 0;                       // [3]
  Encoding encoding = Encoding::PLAIN;        // [4]
  int32_t definition_levels_byte_length = 0;  // [5]
  int32_t repetition_levels_byte_length = 0;  // [6]
  bool is_compressed = true;                  // [7] default true
  std::optional<Statistics> statistics;       // [8]
};

struct PageHeader {
  PageType type = PageType::DATA_PAGE;             // [1]
  int32_t uncompressed_page_size = 0;              // [2]
  int32_t compressed_page_size = 0;                // [3]
  std::optional<int32_t> crc;                      // [4] CRC-32 of the page bytes after the header
  std::optional<DataPageHeader> data_page_header;  // [5]
  // [6] index_page_header: skipped
  std::optional<DictionaryPageHeader> dictionary_page_header;  // [7]
  std::optional<DataPageHeaderV2> data_page_header_v2;         // [8]
};

struct PageEncodingStats {
  PageType page_type = PageType::DATA_PAGE;  // [1]
  Encoding encoding = Encoding::PLAIN;       // [2]
  int32_t count = 0;                         // [3]
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::INT32;                  // [1]
  std::vector<Encoding> encodings;                          // [2]
  std::vector<std::string> path_in_schema;                  // [3]
  CompressionCodec codec = CompressionCodec::UNCOMPRESSED;  // [4]
  int64_t num_values = 0;                                   // [5]
  int64_t total_uncompressed_size = 0;                      // [6]
  int64_t total_compressed_size = 0;                        // [7]
  std::vector<KeyValue> key_value_metadata;                 // [8]
  int64_t data_page_offset = 0;                             // [9]
  std::optional<int64_t> index_page_offset;                 // [10]
  std::optional<int64_t> dictionary_page_offset;            // [11]
  std::optional<Statistics> statistics;                     // [12]
  std::vector<PageEncodingStats> encoding_stats;            // [13]
  std::optional<int64_t> bloom_filter_offset;               // [14]
  std::optional<int32_t> bloom_filter_length;               // [15]
};

// Where a column chunk's bytes start: at its first page, the dictionary page when there is one.
// Some writers store dictionary_page_offset 0 (meaning "none") or a data_page_offset of 0.
inline int64_t ChunkStart(const ColumnMetaData& md) {
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset >= 4 &&
      (*md.dictionary_page_offset < start || start < 4)) {
    start = *md.dictionary_page_offset;
  }
  return start;
}

struct ColumnChunk {
  std::optional<std::string> file_path;     // [1]
  int64_t file_offset = 0;                  // [2]
  std::optional<ColumnMetaData> meta_data;  // [3]
  // [4..7] offset/column index locations, [8] crypto metadata: presence recorded only
  bool has_crypto_metadata = false;  // [8] or [9] encrypted_column_metadata
};

struct RowGroup {
  std::vector<ColumnChunk> columns;              // [1]
  int64_t total_byte_size = 0;                   // [2]
  int64_t num_rows = 0;                          // [3]
  std::optional<int64_t> file_offset;            // [5]
  std::optional<int64_t> total_compressed_size;  // [6]
  std::optional<int16_t> ordinal;                // [7]
};

struct FileMetaData {
  int32_t version = 1;                       // [1]
  std::vector<SchemaElement> schema;         // [2] depth-first, schema[0] is the root
  int64_t num_rows = 0;                      // [3]
  std::vector<RowGroup> row_groups;          // [4]
  std::vector<KeyValue> key_value_metadata;  // [5]
  std::optional<std::string> created_by;     // [6]
  bool has_encryption_algorithm = false;     // [8]
};

// Parsing (Thrift compact protocol). `size` bytes at `data`; on success `*consumed` (if given)
// receives the number of bytes the struct took. Errors are Invalid statuses naming the problem.
Result<FileMetaData> ParseFileMetaData(const uint8_t* data, int64_t size);
Result<PageHeader> ParsePageHeader(const uint8_t* data, int64_t size, int64_t* consumed);

// Serialising (Thrift compact protocol), appended to `out`.
void SerializeFileMetaData(const FileMetaData& meta, std::string* out);
void SerializePageHeader(const PageHeader& header, std::string* out);

const char* EncodingName(Encoding e);
const char* CodecName(CompressionCodec c);
const char* PhysicalTypeName(PhysicalType t);
const char* RepetitionName(Repetition r);
std::string ConvertedTypeName(ConvertedType t);
// "DECIMAL(9,2)", "TIMESTAMP(MICROS, UTC)", "INT(16, unsigned)"; empty for none.
std::string LogicalTypeName(const LogicalType& t);

}  // namespace tandem::parquet
