// Arrow C Data Interface export: Tandem buffers handed out zero copy, owned by private data.
#include "tandem/capi/arrow_export.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

namespace tandem::capi {
namespace {

// A valid, non-null address for buffers of zero bytes (and the single 0 offset of an empty
// string column without an offsets buffer).
alignas(64) const uint8_t kZeros[64] = {};

// ---- schema ---------------------------------------------------------------------------------

struct ExportedSchema {
  std::string format;
  std::string name;
  std::unique_ptr<ArrowSchema[]> child_storage;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* priv = static_cast<ExportedSchema*>(schema->private_data);
  for (ArrowSchema* child : priv->children) {
    if (child->release != nullptr) child->release(child);
  }
  delete priv;
  schema->release = nullptr;
}

void FillSchema(ArrowSchema* out, std::unique_ptr<ExportedSchema> priv, int64_t flags) {
  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = nullptr;
  out->flags = flags;
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->children = priv->children.empty() ? nullptr : priv->children.data();
  out->dictionary = nullptr;
  out->release = &ReleaseSchema;
  out->private_data = priv.release();
}

// ---- arrays ---------------------------------------------------------------------------------

struct ExportedArray {
  std::vector<std::shared_ptr<Buffer>> keep_alive;
  std::vector<const void*> buffers;
  std::unique_ptr<ArrowArray[]> child_storage;
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* priv = static_cast<ExportedArray*>(array->private_data);
  for (ArrowArray* child : priv->children) {
    if (child->release != nullptr) child->release(child);
  }
  delete priv;
  array->release = nullptr;
}

void FillArray(ArrowArray* out, std::unique_ptr<ExportedArray> priv, int64_t length,
               int64_t null_count) {
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->buffers = priv->buffers.data();
  out->children = priv->children.empty() ? nullptr : priv->children.data();
  out->dictionary = nullptr;
  out->release = &ReleaseArray;
  out->private_data = priv.release();
}

const void* AddressOf(const std::shared_ptr<Buffer>& buffer) {
  return buffer && buffer->data() != nullptr ? buffer->data() : kZeros;
}

// int32 offsets widened to int64, for a column exported as large strings.
std::shared_ptr<Buffer> WidenOffsets(const Column& column) {
  auto wide = Buffer::Allocate((column.length() + 1) * 8);
  int64_t* dst = wide->mutable_data_as<int64_t>();
  if (!column.values()) return wide;  // empty column without offsets: all zero
  const int32_t* src = column.values_as<int32_t>();
  for (int64_t i = 0; i <= column.length(); ++i) dst[i] = src[i];
  return wide;
}

void ExportColumn(const Column& column, bool large, ArrowArray* out) {
  auto priv = std::make_unique<ExportedArray>();
  // Validity: present only when there are nulls to describe.
  if (column.null_count() > 0) {
    priv->keep_alive.push_back(column.validity());
    priv->buffers.push_back(column.validity()->data());
  } else {
    priv->buffers.push_back(nullptr);
  }
  std::shared_ptr<Buffer> values = column.values();
  if (column.type().is_string_like() && large && !column.large_offsets()) {
    values = WidenOffsets(column);
  }
  if (values) priv->keep_alive.push_back(values);
  priv->buffers.push_back(AddressOf(values));
  if (column.type().is_string_like()) {
    if (column.data()) priv->keep_alive.push_back(column.data());
    priv->buffers.push_back(AddressOf(column.data()));
  }
  FillArray(out, std::move(priv), column.length(), column.null_count());
}

Status CheckLargeFlags(const Batch& batch, const LargeOffsetFlags& large) {
  if (!large.empty() && static_cast<int>(large.size()) != batch.num_columns()) {
    return Status::Internal("large-offset flags do not match the batch's columns");
  }
  for (int i = 0; i < batch.num_columns(); ++i) {
    const Column& column = *batch.column(i);
    if (column.null_count() > 0 && !column.validity()) {
      return Status::Internal("column " + batch.schema.field(i).name +
                              " counts nulls but has no validity bitmap");
    }
  }
  for (int i = 0; i < static_cast<int>(large.size()); ++i) {
    if (batch.column(i)->large_offsets() && !large[i]) {
      return Status::Internal("column " + batch.schema.field(i).name +
                              " has int64 offsets but is exported with int32 offsets");
    }
  }
  return Status::OK();
}

// ---- stream ---------------------------------------------------------------------------------

struct ExportedStream {
  Table table;
  LargeOffsetFlags large;
  size_t next_batch = 0;
  std::string last_error;
};

int ErrnoFor(const Status& status) {
  return status.code() == StatusCode::kOutOfMemory ? ENOMEM : EINVAL;
}

// Records the error for get_last_error and returns its errno code.
int Fail(ExportedStream* priv, const Status& status) {
  try {
    priv->last_error = status.ToString();
  } catch (const std::bad_alloc&) {
    priv->last_error.clear();
  }
  return ErrnoFor(status);
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* priv = static_cast<ExportedStream*>(stream->private_data);
  Status st = ExportSchema(priv->table.schema, out, priv->large);
  return st.ok() ? 0 : Fail(priv, st);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* priv = static_cast<ExportedStream*>(stream->private_data);
  if (priv->next_batch >= priv->table.batches.size()) {
    std::memset(out, 0, sizeof(*out));  // release == NULL marks the end of the stream
    return 0;
  }
  Status st = ExportBatch(*priv->table.batches[priv->next_batch], out, priv->large);
  if (!st.ok()) return Fail(priv, st);
  ++priv->next_batch;
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* priv = static_cast<ExportedStream*>(stream->private_data);
  return priv->last_error.empty() ? nullptr : priv->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<ExportedStream*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

std::string ArrowFormat(const DataType& type, bool large_offsets) {
  switch (type.id) {
    case TypeId::kBool:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kInt16:
      return "s";
    case TypeId::kInt32:
      return "i";
    case TypeId::kInt64:
      return "l";
    case TypeId::kUInt8:
      return "C";
    case TypeId::kUInt16:
      return "S";
    case TypeId::kUInt32:
      return "I";
    case TypeId::kUInt64:
      return "L";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kDecimal: {
      std::string f = "d:" + std::to_string(type.precision) + "," + std::to_string(type.scale);
      return type.is_wide_decimal() ? f : f + ",64";
    }
    case TypeId::kDate32:
      return "tdD";
    case TypeId::kTimestamp:
      return type.utc ? "tsu:UTC" : "tsu:";
    case TypeId::kString:
      return large_offsets ? "U" : "u";
    case TypeId::kBinary:
      return large_offsets ? "Z" : "z";
  }
  return "";
}

LargeOffsetFlags LargeOffsetColumns(const Batch& batch) {
  LargeOffsetFlags large(batch.num_columns(), false);
  for (int i = 0; i < batch.num_columns(); ++i) large[i] = batch.column(i)->large_offsets();
  return large;
}

LargeOffsetFlags LargeOffsetColumns(const Table& table) {
  LargeOffsetFlags large(table.schema.num_fields(), false);
  for (const auto& batch : table.batches) {
    for (int i = 0; i < batch->num_columns() && i < table.schema.num_fields(); ++i) {
      if (batch->column(i)->large_offsets()) large[i] = true;
    }
  }
  return large;
}

Status ExportSchema(const Schema& schema, ArrowSchema* out, const LargeOffsetFlags& large) {
  if (!large.empty() && static_cast<int>(large.size()) != schema.num_fields()) {
    return Status::Internal("large-offset flags do not match the schema's fields");
  }
  try {
    auto priv = std::make_unique<ExportedSchema>();
    priv->format = "+s";
    const int n = schema.num_fields();
    priv->child_storage = std::make_unique<ArrowSchema[]>(n);
    for (int i = 0; i < n; ++i) {
      const Field& field = schema.field(i);
      auto child = std::make_unique<ExportedSchema>();
      child->format = ArrowFormat(field.type, !large.empty() && large[i]);
      child->name = field.name;
      ArrowSchema* slot = &priv->child_storage[i];
      priv->children.push_back(slot);
      FillSchema(slot, std::move(child), field.nullable ? ARROW_FLAG_NULLABLE : 0);
    }
    FillSchema(out, std::move(priv), 0);
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("out of memory exporting an Arrow schema");
  }
}

Status ExportBatch(const Batch& batch, ArrowArray* out, const LargeOffsetFlags& large) {
  TANDEM_RETURN_NOT_OK(CheckLargeFlags(batch, large));
  ArrowArray result{};
  try {
    auto priv = std::make_unique<ExportedArray>();
    priv->buffers.push_back(nullptr);  // a struct array's (absent) validity bitmap
    const int n = batch.num_columns();
    priv->child_storage = std::make_unique<ArrowArray[]>(n);
    for (int i = 0; i < n; ++i) priv->child_storage[i].release = nullptr;
    for (int i = 0; i < n; ++i) priv->children.push_back(&priv->child_storage[i]);
    // From here on a partially filled parent releases whatever children were filled.
    FillArray(&result, std::move(priv), batch.num_rows, 0);
    auto* filled = static_cast<ExportedArray*>(result.private_data);
    for (int i = 0; i < n; ++i) {
      const bool wide = large.empty() ? batch.column(i)->large_offsets() : bool(large[i]);
      ExportColumn(*batch.column(i), wide, filled->children[i]);
    }
  } catch (const std::bad_alloc&) {
    if (result.release != nullptr) result.release(&result);
    return Status::OutOfMemory("out of memory exporting an Arrow array");
  }
  *out = result;
  return Status::OK();
}

Status ExportTable(Table table, ArrowArrayStream* out) {
  try {
    auto priv = std::make_unique<ExportedStream>();
    priv->large = LargeOffsetColumns(table);
    priv->table = std::move(table);
    out->get_schema = &StreamGetSchema;
    out->get_next = &StreamGetNext;
    out->get_last_error = &StreamGetLastError;
    out->release = &StreamRelease;
    out->private_data = priv.release();
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("out of memory exporting an Arrow stream");
  }
}

}  // namespace tandem::capi
