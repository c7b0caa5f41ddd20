// Parses Parquet's FileMetaData footer and PageHeaders from the Thrift compact protocol into the
// plain structs of metadata.h. Unknown fields are skipped; wrong wire types, truncation and
// out-of-range enum values are Invalid statuses.
#include <limits>
#include <utility>

#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/thrift_compact_reader.h"

namespace tandem::parquet {
namespace {

using Reader = ThriftCompactReader;

// Calls on_field(id, type, &handled) for each field of a struct; unhandled fields are skipped.
template <typename Fn>
Status ReadStruct(Reader& r, Fn&& on_field) {
  TANDEM_RETURN_NOT_OK(r.BeginStruct());
  while (true) {
    int16_t id;
    ThriftType type;
    TANDEM_RETURN_NOT_OK(r.ReadFieldHeader(&id, &type));
    if (type == ThriftType::kStop) break;
    bool handled = false;
    TANDEM_RETURN_NOT_OK(on_field(id, type, &handled));
    if (!handled) TANDEM_RETURN_NOT_OK(r.Skip(type));
  }
  r.EndStruct();
  return Status::OK();
}

// A field whose wire type differs from the one parquet.thrift declares is skipped, as generated
// Thrift code does (some writers reused field ids for other types).
#define TANDEM_SKIP_IF(cond) \
  if (cond) return r.Skip(type)

template <typename T>
Status ReadInt(Reader& r, ThriftType type, const char* what, T* out) {
  TANDEM_SKIP_IF(type != ThriftType::kI16 && type != ThriftType::kI32 && type != ThriftType::kI64 &&
                 type != ThriftType::kByte);
  int64_t v = 0;
  TANDEM_RETURN_NOT_OK(r.ReadInteger(type, &v));
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    return Status::Invalid(std::string("Thrift field ") + what +
                           " out of range: " + std::to_string(v));
  }
  *out = static_cast<T>(v);
  return Status::OK();
}

template <typename T>
Status ReadOptInt(Reader& r, ThriftType type, const char* what, std::optional<T>* out) {
  T v{};
  TANDEM_RETURN_NOT_OK(ReadInt(r, type, what, &v));
  *out = v;
  return Status::OK();
}

template <typename E>
Status ReadEnum(Reader& r, ThriftType type, const char* what, E* out) {
  int32_t v = 0;
  TANDEM_RETURN_NOT_OK(ReadInt(r, type, what, &v));
  *out = static_cast<E>(v);
  return Status::OK();
}

Status ReadString(Reader& r, ThriftType type, const char* what, std::string* out) {
  TANDEM_SKIP_IF(type != ThriftType::kBinary);
  return r.ReadBinary(out);
}

Status ReadBoolField(Reader& r, ThriftType type, const char* what, bool* out) {
  TANDEM_SKIP_IF(type != ThriftType::kBoolTrue && type != ThriftType::kBoolFalse);
  *out = Reader::BoolFromFieldType(type);
  return Status::OK();
}

// Calls read_element() once per element of a list field whose elements have `want` type.
template <typename Fn>
Status ReadList(Reader& r, ThriftType type, ThriftType want, const char* what, Fn&& read_element) {
  TANDEM_SKIP_IF(type != ThriftType::kList && type != ThriftType::kSet);
  ThriftType elem;
  int64_t n;
  TANDEM_RETURN_NOT_OK(r.ReadListHeader(&elem, &n));
  const bool int_like =
      want == ThriftType::kI32 &&
      (elem == ThriftType::kI16 || elem == ThriftType::kI64 || elem == ThriftType::kByte);
  if (elem != want && !int_like && n > 0) {
    return Status::Invalid(std::string("Thrift list ") + what + " has elements of the wrong type");
  }
  for (int64_t i = 0; i < n; ++i) TANDEM_RETURN_NOT_OK(read_element(elem));
  return Status::OK();
}

Status ParseStatistics(Reader& r, Statistics* s) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadString(r, t, "Statistics.max", &s->max.emplace());
      case 2:
        return ReadString(r, t, "Statistics.min", &s->min.emplace());
      case 3:
        return ReadOptInt(r, t, "Statistics.null_count", &s->null_count);
      case 4:
        return ReadOptInt(r, t, "Statistics.distinct_count", &s->distinct_count);
      case 5:
        return ReadString(r, t, "Statistics.max_value", &s->max_value.emplace());
      case 6:
        return ReadString(r, t, "Statistics.min_value", &s->min_value.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ParseKeyValue(Reader& r, KeyValue* kv) {
  bool has_key = false;
  TANDEM_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        has_key = true;
        return ReadString(r, t, "KeyValue.key", &kv->key);
      case 2:
        return ReadString(r, t, "KeyValue.value", &kv->value.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  if (!has_key) return Status::Invalid("KeyValue without a key");
  return Status::OK();
}

Status ParseKeyValues(Reader& r, ThriftType t, const char* what, std::vector<KeyValue>* out) {
  return ReadList(r, t, ThriftType::kStruct, what,
                  [&](ThriftType) { return ParseKeyValue(r, &out->emplace_back()); });
}

Status ParseTimeUnit(Reader& r, LogicalType::TimeUnit* unit) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    if (t != ThriftType::kStruct) return Status::OK();  // skipped
    if (id == 1) *unit = LogicalType::TimeUnit::kMillis;
    if (id == 2) *unit = LogicalType::TimeUnit::kMicros;
    if (id == 3) *unit = LogicalType::TimeUnit::kNanos;
    return Status::OK();
  });
}

Status ParseLogicalType(Reader& r, LogicalType* lt) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    if (t != ThriftType::kStruct) return Status::OK();  // not a union member: skip it
    *handled = true;
    using K = LogicalType::Kind;
    switch (id) {
      case 1:
        lt->kind = K::kString;
        break;
      case 2:
        lt->kind = K::kMap;
        break;
      case 3:
        lt->kind = K::kList;
        break;
      case 4:
        lt->kind = K::kEnum;
        break;
      case 5:
        lt->kind = K::kDecimal;
        return ReadStruct(r, [&](int16_t fid, ThriftType ft, bool* h) -> Status {
          *h = true;
          if (fid == 1) return ReadInt(r, ft, "DecimalType.scale", &lt->decimal_scale);
          if (fid == 2) return ReadInt(r, ft, "DecimalType.precision", &lt->decimal_precision);
          *h = false;
          return Status::OK();
        });
      case 6:
        lt->kind = K::kDate;
        break;
      case 7:
      case 8:
        lt->kind = id == 7 ? K::kTime : K::kTimestamp;
        return ReadStruct(r, [&](int16_t fid, ThriftType ft, bool* h) -> Status {
          *h = true;
          if (fid == 1) return ReadBoolField(r, ft, "isAdjustedToUTC", &lt->adjusted_to_utc);
          if (fid == 2 && ft == ThriftType::kStruct) return ParseTimeUnit(r, &lt->unit);
          *h = false;
          return Status::OK();
        });
      case 10:
        lt->kind = K::kInteger;
        return ReadStruct(r, [&](int16_t fid, ThriftType ft, bool* h) -> Status {
          *h = true;
          if (fid == 1) return ReadInt(r, ft, "IntType.bitWidth", &lt->bit_width);
          if (fid == 2) return ReadBoolField(r, ft, "IntType.isSigned", &lt->is_signed);
          *h = false;
          return Status::OK();
        });
      case 11:
        lt->kind = K::kUnknown;
        break;
      case 12:
        lt->kind = K::kJson;
        break;
      case 13:
        lt->kind = K::kBson;
        break;
      case 14:
        lt->kind = K::kUuid;
        break;
      case 15:
        lt->kind = K::kFloat16;
        break;
      default:
        lt->kind = K::kOther;
        break;
    }
    return r.Skip(t);
  });
}

Status ParseSchemaElement(Reader& r, SchemaElement* e) {
  bool has_name = false;
  TANDEM_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1: {
        int32_t v = 0;
        TANDEM_RETURN_NOT_OK(ReadInt(r, t, "SchemaElement.type", &v));
        if (v < 0 || v > 7) return Status::Invalid("unknown physical type " + std::to_string(v));
        e->type = static_cast<PhysicalType>(v);
        return Status::OK();
      }
      case 2:
        return ReadOptInt(r, t, "SchemaElement.type_length", &e->type_length);
      case 3: {
        int32_t v = 0;
        TANDEM_RETURN_NOT_OK(ReadInt(r, t, "SchemaElement.repetition_type", &v));
        if (v < 0 || v > 2) return Status::Invalid("unknown repetition type " + std::to_string(v));
        e->repetition = static_cast<Repetition>(v);
        return Status::OK();
      }
      case 4:
        has_name = true;
        return ReadString(r, t, "SchemaElement.name", &e->name);
      case 5:
        return ReadOptInt(r, t, "SchemaElement.num_children", &e->num_children);
      case 6: {
        int32_t v = 0;
        TANDEM_RETURN_NOT_OK(ReadInt(r, t, "SchemaElement.converted_type", &v));
        e->converted_type = static_cast<ConvertedType>(v);
        return Status::OK();
      }
      case 7:
        return ReadOptInt(r, t, "SchemaElement.scale", &e->scale);
      case 8:
        return ReadOptInt(r, t, "SchemaElement.precision", &e->precision);
      case 9:
        return ReadOptInt(r, t, "SchemaElement.field_id", &e->field_id);
      case 10:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseLogicalType(r, &e->logical_type.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  if (!has_name) return Status::Invalid("schema element without a name");
  return Status::OK();
}

Status ParseColumnMetaData(Reader& r, ColumnMetaData* m) {
  TANDEM_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1: {
        int32_t v = 0;
        TANDEM_RETURN_NOT_OK(ReadInt(r, t, "ColumnMetaData.type", &v));
        if (v < 0 || v > 7) return Status::Invalid("unknown physical type " + std::to_string(v));
        m->type = static_cast<PhysicalType>(v);
        return Status::OK();
      }
      case 2:
        return ReadList(r, t, ThriftType::kI32, "ColumnMetaData.encodings", [&](ThriftType et) {
          return ReadEnum(r, et, "ColumnMetaData.encodings", &m->encodings.emplace_back());
        });
      case 3:
        return ReadList(
            r, t, ThriftType::kBinary, "ColumnMetaData.path_in_schema",
            [&](ThriftType) { return r.ReadBinary(&m->path_in_schema.emplace_back()); });
      case 4:
        return ReadEnum(r, t, "ColumnMetaData.codec", &m->codec);
      case 5:
        return ReadInt(r, t, "ColumnMetaData.num_values", &m->num_values);
      case 6:
        return ReadInt(r, t, "total_uncompressed_size", &m->total_uncompressed_size);
      case 7:
        return ReadInt(r, t, "total_compressed_size", &m->total_compressed_size);
      case 8:
        return ParseKeyValues(r, t, "ColumnMetaData.key_value_metadata", &m->key_value_metadata);
      case 9:
        return ReadInt(r, t, "data_page_offset", &m->data_page_offset);
      case 10:
        return ReadOptInt(r, t, "index_page_offset", &m->index_page_offset);
      case 11:
        return ReadOptInt(r, t, "dictionary_page_offset", &m->dictionary_page_offset);
      case 12:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseStatistics(r, &m->statistics.emplace());
      case 13:
        return ReadList(r, t, ThriftType::kStruct, "encoding_stats", [&](ThriftType) {
          PageEncodingStats& s = m->encoding_stats.emplace_back();
          return ReadStruct(r, [&](int16_t fid, ThriftType ft, bool* h) -> Status {
            *h = true;
            if (fid == 1) return ReadEnum(r, ft, "PageEncodingStats.page_type", &s.page_type);
            if (fid == 2) return ReadEnum(r, ft, "PageEncodingStats.encoding", &s.encoding);
            if (fid == 3) return ReadInt(r, ft, "PageEncodingStats.count", &s.count);
            *h = false;
            return Status::OK();
          });
        });
      case 14:
        return ReadOptInt(r, t, "bloom_filter_offset", &m->bloom_filter_offset);
      case 15:
        return ReadOptInt(r, t, "bloom_filter_length", &m->bloom_filter_length);
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  return Status::OK();
}

Status ParseColumnChunk(Reader& r, ColumnChunk* c) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadString(r, t, "ColumnChunk.file_path", &c->file_path.emplace());
      case 2:
        return ReadInt(r, t, "ColumnChunk.file_offset", &c->file_offset);
      case 3:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseColumnMetaData(r, &c->meta_data.emplace());
      case 8:
      case 9:
        c->has_crypto_metadata = true;
        *handled = false;
        return Status::OK();
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ParseRowGroup(Reader& r, RowGroup* g) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadList(r, t, ThriftType::kStruct, "RowGroup.columns", [&](ThriftType) {
          return ParseColumnChunk(r, &g->columns.emplace_back());
        });
      case 2:
        return ReadInt(r, t, "RowGroup.total_byte_size", &g->total_byte_size);
      case 3:
        return ReadInt(r, t, "RowGroup.num_rows", &g->num_rows);
      case 5:
        return ReadOptInt(r, t, "RowGroup.file_offset", &g->file_offset);
      case 6:
        return ReadOptInt(r, t, "RowGroup.total_compressed_size", &g->total_compressed_size);
      case 7:
        return ReadOptInt(r, t, "RowGroup.ordinal", &g->ordinal);
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ParseDataPageHeader(Reader& r, DataPageHeader* h) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadInt(r, t, "DataPageHeader.num_values", &h->num_values);
      case 2:
        return ReadEnum(r, t, "DataPageHeader.encoding", &h->encoding);
      case 3:
        return ReadEnum(r, t, "definition_level_encoding", &h->definition_level_encoding);
      case 4:
        return ReadEnum(r, t, "repetition_level_encoding", &h->repetition_level_encoding);
      case 5:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseStatistics(r, &h->statistics.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ParseDataPageHeaderV2(Reader& r, DataPageHeaderV2* h) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadInt(r, t, "DataPageHeaderV2.num_values", &h->num_values);
      case 2:
        return ReadInt(r, t, "DataPageHeaderV2.num_nulls", &h->num_nulls);
      case 3:
        return ReadInt(r, t, "DataPageHeaderV2.num_rows", &h->num_rows);
      case 4:
        return ReadEnum(r, t, "DataPageHeaderV2.encoding", &h->encoding);
      case 5:
        return ReadInt(r, t, "definition_levels_byte_length", &h->definition_levels_byte_length);
      case 6:
        return ReadInt(r, t, "repetition_levels_byte_length", &h->repetition_levels_byte_length);
      case 7:
        return ReadBoolField(r, t, "DataPageHeaderV2.is_compressed", &h->is_compressed);
      case 8:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseStatistics(r, &h->statistics.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ParseDictionaryPageHeader(Reader& r, DictionaryPageHeader* h) {
  return ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadInt(r, t, "DictionaryPageHeader.num_values", &h->num_values);
      case 2:
        return ReadEnum(r, t, "DictionaryPageHeader.encoding", &h->encoding);
      case 3: {
        bool v = false;
        TANDEM_RETURN_NOT_OK(ReadBoolField(r, t, "DictionaryPageHeader.is_sorted", &v));
        h->is_sorted = v;
        return Status::OK();
      }
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

}  // namespace

Result<FileMetaData> ParseFileMetaData(const uint8_t* data, int64_t size) {
  FileMetaData meta;
  Reader r(data, size);
  bool has_schema = false, has_rows = false, has_groups = false;
  Status st = ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadInt(r, t, "FileMetaData.version", &meta.version);
      case 2:
        has_schema = true;
        return ReadList(r, t, ThriftType::kStruct, "FileMetaData.schema", [&](ThriftType) {
          return ParseSchemaElement(r, &meta.schema.emplace_back());
        });
      case 3:
        has_rows = true;
        return ReadInt(r, t, "FileMetaData.num_rows", &meta.num_rows);
      case 4:
        has_groups = true;
        return ReadList(r, t, ThriftType::kStruct, "FileMetaData.row_groups", [&](ThriftType) {
          return ParseRowGroup(r, &meta.row_groups.emplace_back());
        });
      case 5:
        return ParseKeyValues(r, t, "FileMetaData.key_value_metadata", &meta.key_value_metadata);
      case 6:
        return ReadString(r, t, "FileMetaData.created_by", &meta.created_by.emplace());
      case 8:
        meta.has_encryption_algorithm = true;
        *handled = false;
        return Status::OK();
      default:
        *handled = false;
        return Status::OK();
    }
  });
  if (!st.ok()) return Status::Invalid("corrupt Parquet footer: " + st.message());
  if (!has_schema || !has_rows || !has_groups) {
    return Status::Invalid("corrupt Parquet footer: missing schema, num_rows or row_groups");
  }
  if (meta.schema.empty()) return Status::Invalid("corrupt Parquet footer: empty schema");
  return meta;
}

Result<PageHeader> ParsePageHeader(const uint8_t* data, int64_t size, int64_t* consumed) {
  PageHeader h;
  Reader r(data, size);
  bool has_type = false, has_usize = false, has_csize = false;
  Status st = ReadStruct(r, [&](int16_t id, ThriftType t, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        has_type = true;
        return ReadEnum(r, t, "PageHeader.type", &h.type);
      case 2:
        has_usize = true;
        return ReadInt(r, t, "PageHeader.uncompressed_page_size", &h.uncompressed_page_size);
      case 3:
        has_csize = true;
        return ReadInt(r, t, "PageHeader.compressed_page_size", &h.compressed_page_size);
      case 4: {
        int32_t crc = 0;
        TANDEM_RETURN_NOT_OK(ReadInt(r, t, "PageHeader.crc", &crc));
        h.crc = crc;
        return Status::OK();
      }
      case 5:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseDataPageHeader(r, &h.data_page_header.emplace());
      case 7:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseDictionaryPageHeader(r, &h.dictionary_page_header.emplace());
      case 8:
        if (t != ThriftType::kStruct) return r.Skip(t);
        return ParseDataPageHeaderV2(r, &h.data_page_header_v2.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
  if (!st.ok()) return Status::Invalid("corrupt page header: " + st.message());
  if (!has_type || !has_usize || !has_csize) {
    return Status::Invalid("corrupt page header: missing type or page sizes");
  }
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) {
    return Status::Invalid("corrupt page header: negative page size");
  }
  if (consumed != nullptr) *consumed = r.consumed();
  return h;
}

}  // namespace tandem::parquet
