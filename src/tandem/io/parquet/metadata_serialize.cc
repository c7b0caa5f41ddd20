// Serialises FileMetaData and PageHeader (metadata.h) with the Thrift compact protocol, using the
// field ids of parquet.thrift. Logical types are written both as the LogicalType union and, where
// one exists, as the legacy ConvertedType, so old and new readers agree on the column types.
#include <string>

#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/thrift_compact_writer.h"

namespace tandem::parquet {
namespace {

void WriteEmptyStructField(ThriftCompactWriter& w, int16_t id) {
  w.FieldStructBegin(id);
  w.EndStruct();
}

void WriteTimeUnit(ThriftCompactWriter& w, int16_t id, LogicalType::TimeUnit unit) {
  w.FieldStructBegin(id);  // TimeUnit union
  switch (unit) {
    case LogicalType::TimeUnit::kMillis:
      WriteEmptyStructField(w, 1);
      break;
    case LogicalType::TimeUnit::kMicros:
      WriteEmptyStructField(w, 2);
      break;
    case LogicalType::TimeUnit::kNanos:
      WriteEmptyStructField(w, 3);
      break;
  }
  w.EndStruct();
}

// Writes the LogicalType union as field `id`; kinds without a union member are left out.
void WriteLogicalType(ThriftCompactWriter& w, int16_t id, const LogicalType& t) {
  using Kind = LogicalType::Kind;
  int16_t member = 0;
  switch (t.kind) {
    case Kind::kString:
      member = 1;
      break;
    case Kind::kMap:
      member = 2;
      break;
    case Kind::kList:
      member = 3;
      break;
    case Kind::kEnum:
      member = 4;
      break;
    case Kind::kDecimal:
      member = 5;
      break;
    case Kind::kDate:
      member = 6;
      break;
    case Kind::kTime:
      member = 7;
      break;
    case Kind::kTimestamp:
      member = 8;
      break;
    case Kind::kInteger:
      member = 10;
      break;
    case Kind::kUnknown:
      member = 11;
      break;
    case Kind::kJson:
      member = 12;
      break;
    case Kind::kBson:
      member = 13;
      break;
    case Kind::kUuid:
      member = 14;
      break;
    case Kind::kFloat16:
      member = 15;
      break;
    case Kind::kNone:
    case Kind::kOther:
      return;
  }
  w.FieldStructBegin(id);
  w.FieldStructBegin(member);
  switch (t.kind) {
    case Kind::kDecimal:
      w.FieldI32(1, t.decimal_scale);
      w.FieldI32(2, t.decimal_precision);
      break;
    case Kind::kTime:
    case Kind::kTimestamp:
      w.FieldBool(1, t.adjusted_to_utc);
      WriteTimeUnit(w, 2, t.unit);
      break;
    case Kind::kInteger:
      w.FieldByte(1, t.bit_width);
      w.FieldBool(2, t.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();  // member struct
  w.EndStruct();  // union
}

void WriteSchemaElement(ThriftCompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.FieldI32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.FieldI32(2, *e.type_length);
  if (e.repetition) w.FieldI32(3, static_cast<int32_t>(*e.repetition));
  w.FieldBinary(4, e.name);
  if (e.num_children) w.FieldI32(5, *e.num_children);
  if (e.converted_type) w.FieldI32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.FieldI32(7, *e.scale);
  if (e.precision) w.FieldI32(8, *e.precision);
  if (e.field_id) w.FieldI32(9, *e.field_id);
  if (e.logical_type) WriteLogicalType(w, 10, *e.logical_type);
  w.EndStruct();
}

void WriteStatistics(ThriftCompactWriter& w, int16_t id, const Statistics& s) {
  w.FieldStructBegin(id);
  if (s.max) w.FieldBinary(1, *s.max);
  if (s.min) w.FieldBinary(2, *s.min);
  if (s.null_count) w.FieldI64(3, *s.null_count);
  if (s.distinct_count) w.FieldI64(4, *s.distinct_count);
  if (s.max_value) w.FieldBinary(5, *s.max_value);
  if (s.min_value) w.FieldBinary(6, *s.min_value);
  w.EndStruct();
}

void WriteKeyValues(ThriftCompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  w.FieldListBegin(id, ThriftType::kStruct, static_cast<int64_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    w.BeginStruct();
    w.FieldBinary(1, kv.key);
    if (kv.value) w.FieldBinary(2, *kv.value);
    w.EndStruct();
  }
}

void WriteColumnMetaData(ThriftCompactWriter& w, int16_t id, const ColumnMetaData& m) {
  w.FieldStructBegin(id);
  w.FieldI32(1, static_cast<int32_t>(m.type));
  w.FieldListBegin(2, ThriftType::kI32, static_cast<int64_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.ElementI32(static_cast<int32_t>(e));
  w.FieldListBegin(3, ThriftType::kBinary, static_cast<int64_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) w.ElementBinary(p);
  w.FieldI32(4, static_cast<int32_t>(m.codec));
  w.FieldI64(5, m.num_values);
  w.FieldI64(6, m.total_uncompressed_size);
  w.FieldI64(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteKeyValues(w, 8, m.key_value_metadata);
  w.FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) w.FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatistics(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) {
    w.FieldListBegin(13, ThriftType::kStruct, static_cast<int64_t>(m.encoding_stats.size()));
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.BeginStruct();
      w.FieldI32(1, static_cast<int32_t>(s.page_type));
      w.FieldI32(2, static_cast<int32_t>(s.encoding));
      w.FieldI32(3, s.count);
      w.EndStruct();
    }
  }
  if (m.bloom_filter_offset) w.FieldI64(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.FieldI32(15, *m.bloom_filter_length);
  w.EndStruct();
}

void WriteRowGroup(ThriftCompactWriter& w, const RowGroup& rg) {
  w.BeginStruct();
  w.FieldListBegin(1, ThriftType::kStruct, static_cast<int64_t>(rg.columns.size()));
  for (const ColumnChunk& c : rg.columns) {
    w.BeginStruct();
    if (c.file_path) w.FieldBinary(1, *c.file_path);
    w.FieldI64(2, c.file_offset);
    if (c.meta_data) WriteColumnMetaData(w, 3, *c.meta_data);
    w.EndStruct();
  }
  w.FieldI64(2, rg.total_byte_size);
  w.FieldI64(3, rg.num_rows);
  if (rg.file_offset) w.FieldI64(5, *rg.file_offset);
  if (rg.total_compressed_size) w.FieldI64(6, *rg.total_compressed_size);
  if (rg.ordinal) w.FieldI16(7, *rg.ordinal);
  w.EndStruct();
}

}  // namespace

void SerializeFileMetaData(const FileMetaData& meta, std::string* out) {
  ThriftCompactWriter w(out);
  w.BeginStruct();
  w.FieldI32(1, meta.version);
  w.FieldListBegin(2, ThriftType::kStruct, static_cast<int64_t>(meta.schema.size()));
  for (const SchemaElement& e : meta.schema) WriteSchemaElement(w, e);
  w.FieldI64(3, meta.num_rows);
  w.FieldListBegin(4, ThriftType::kStruct, static_cast<int64_t>(meta.row_groups.size()));
  for (const RowGroup& rg : meta.row_groups) WriteRowGroup(w, rg);
  if (!meta.key_value_metadata.empty()) WriteKeyValues(w, 5, meta.key_value_metadata);
  if (meta.created_by) w.FieldBinary(6, *meta.created_by);
  // [7] column_orders: every leaf uses the type-defined sort order, which tells readers that
  // min_value/max_value follow each logical type's order (unsigned bytes for strings, ...).
  int64_t leaves = 0;
  for (const SchemaElement& e : meta.schema) leaves += e.type.has_value() ? 1 : 0;
  w.FieldListBegin(7, ThriftType::kStruct, leaves);
  for (int64_t i = 0; i < leaves; ++i) {
    w.BeginStruct();              // ColumnOrder union
    WriteEmptyStructField(w, 1);  // TYPE_ORDER: TypeDefinedOrder
    w.EndStruct();
  }
  w.EndStruct();
}

void SerializePageHeader(const PageHeader& h, std::string* out) {
  ThriftCompactWriter w(out);
  w.BeginStruct();
  w.FieldI32(1, static_cast<int32_t>(h.type));
  w.FieldI32(2, h.uncompressed_page_size);
  w.FieldI32(3, h.compressed_page_size);
  if (h.crc) w.FieldI32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldStructBegin(5);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    w.FieldI32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.FieldI32(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) WriteStatistics(w, 5, *d.statistics);
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldStructBegin(7);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.FieldBool(3, *d.is_sorted);
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.FieldStructBegin(8);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, d.num_nulls);
    w.FieldI32(3, d.num_rows);
    w.FieldI32(4, static_cast<int32_t>(d.encoding));
    w.FieldI32(5, d.definition_levels_byte_length);
    w.FieldI32(6, d.repetition_levels_byte_length);
    w.FieldBool(7, d.is_compressed);
    if (d.statistics) WriteStatistics(w, 8, *d.statistics);
    w.EndStruct();
  }
  w.EndStruct();
}

}  // namespace tandem::parquet
