// Arrow C array and stream import: wraps matching buffers zero copy, copies where Tandem's layout
// differs (see arrow_import.h), and validates every column before handing the batch out.
#include "tandem/capi/arrow_import.h"

#include <cstring>
#include <limits>
#include <new>

namespace tandem::capi {
namespace {

// The imported top-level ArrowArray, moved to the heap; released when the last wrapped buffer
// (or the import itself, on error) lets go of it.
struct ArrayOwner {
  ArrowArray array{};
  ~ArrayOwner() {
    if (array.release != nullptr) array.release(&array);
  }
};
using OwnerPtr = std::shared_ptr<ArrayOwner>;

// Positions beyond this could overflow byte arithmetic (offset * 16).
constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 32;

std::shared_ptr<Buffer> WrapShared(const void* data, int64_t size, const OwnerPtr& owner) {
  return Buffer::Wrap(data, size, [keep = owner]() mutable { keep.reset(); });
}

bool IsAligned(const void* p, int width) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(width) == 0;
}

// Bits [offset, offset + length): shared when they start on a byte, copied otherwise.
std::shared_ptr<Buffer> ImportBits(const void* bits, int64_t offset, int64_t length,
                                   const OwnerPtr& owner) {
  const auto* base = static_cast<const uint8_t*>(bits);
  if (offset % 8 == 0) return WrapShared(base + offset / 8, bit_util::BytesForBits(length), owner);
  auto copy = Buffer::Allocate(bit_util::BytesForBits(length));
  bit_util::CopyBits(base, offset, length, copy->mutable_data(), 0);
  return copy;
}

// Fixed-width values [offset, offset + length): shared when aligned, copied otherwise.
std::shared_ptr<Buffer> ImportFixed(const void* values, int width, int64_t offset, int64_t length,
                                    const OwnerPtr& owner) {
  const auto* start = static_cast<const uint8_t*>(values) + offset * width;
  if (IsAligned(start, width)) return WrapShared(start, length * width, owner);
  return Buffer::CopyOf(start, length * width);
}

// Reads a value of the given width as a signed 128-bit integer (any alignment).
int128_t LoadSigned(const uint8_t* p, int width) {
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (width == 8) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  int128_t v;
  std::memcpy(&v, p, 16);
  return v;
}

// Decimals stored wider or narrower than Tandem's 64 bits: converted per valid row (null rows
// become 0); a value that does not fit 64 bits is an error.
Result<std::shared_ptr<Buffer>> ConvertDecimal(const uint8_t* values, int width, int64_t offset,
                                               int64_t length, const Buffer* validity) {
  auto out = Buffer::Allocate(length * 8);
  int64_t* dst = out->mutable_data_as<int64_t>();
  const uint8_t* src = values + offset * width;
  for (int64_t i = 0; i < length; ++i) {
    if (validity && !bit_util::GetBit(validity->data(), i)) continue;
    const int128_t v = LoadSigned(src + i * width, width);
    if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
      return Status::Invalid("decimal value at row " + std::to_string(i) +
                             " does not fit its precision");
    }
    dst[i] = static_cast<int64_t>(v);
  }
  return out;
}

// Timestamps in s, ms or ns scaled to microseconds; nanoseconds must be whole microseconds.
Result<std::shared_ptr<Buffer>> ConvertTimestamps(const uint8_t* values, int64_t offset,
                                                  int64_t length, const Buffer* validity,
                                                  const ArrowColumnLayout& layout) {
  auto out = Buffer::Allocate(length * 8);
  int64_t* dst = out->mutable_data_as<int64_t>();
  const uint8_t* src = values + offset * 8;
  for (int64_t i = 0; i < length; ++i) {
    if (validity && !bit_util::GetBit(validity->data(), i)) continue;
    int64_t v;
    std::memcpy(&v, src + i * 8, 8);
    if (layout.us_divisor != 1) {
      if (v % layout.us_divisor != 0) {
        return Status::Unsupported("timestamp with sub-microsecond precision at row " +
                                   std::to_string(i));
      }
      dst[i] = v / layout.us_divisor;
    } else if (__builtin_mul_overflow(v, layout.us_multiplier, &dst[i])) {
      return Status::Invalid("timestamp at row " + std::to_string(i) + " overflows microseconds");
    }
  }
  return out;
}

// Strings/binary: offsets [offset, offset + length]; shared when they start at 0 and are aligned,
// rebased into a copy otherwise. The bytes are always shared.
Result<ColumnPtr> ImportStrings(const ArrowArray& array, const DataType& type, int width,
                                int64_t offset, int64_t length, int64_t null_count,
                                std::shared_ptr<Buffer> validity, const OwnerPtr& owner) {
  const void* offsets_ptr = array.buffers[1];
  if (offsets_ptr == nullptr) {
    if (length > 0) return Status::Invalid("missing offsets buffer");
    auto zero = Buffer::Allocate(width);
    return std::make_shared<Column>(type, 0, 0, nullptr, zero, nullptr, width == 8);
  }
  const uint8_t* raw = static_cast<const uint8_t*>(offsets_ptr) + offset * width;
  const int64_t first = static_cast<int64_t>(LoadSigned(raw, width));
  const int64_t last = static_cast<int64_t>(LoadSigned(raw + length * width, width));
  if (first < 0 || last < first) return Status::Invalid("string offsets are out of order");
  if (array.buffers[2] == nullptr && last > first) return Status::Invalid("missing data buffer");
  std::shared_ptr<Buffer> offsets;
  if (first == 0 && IsAligned(raw, width)) {
    offsets = WrapShared(raw, (length + 1) * width, owner);
  } else {
    offsets = Buffer::Allocate((length + 1) * width);
    for (int64_t i = 0; i <= length; ++i) {
      const int64_t rebased = static_cast<int64_t>(LoadSigned(raw + i * width, width)) - first;
      if (width == 4) {
        offsets->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(rebased);
      } else {
        offsets->mutable_data_as<int64_t>()[i] = rebased;
      }
    }
  }
  std::shared_ptr<Buffer> data;
  if (array.buffers[2] != nullptr) {
    data = WrapShared(static_cast<const uint8_t*>(array.buffers[2]) + first, last - first, owner);
  }
  return std::make_shared<Column>(type, length, null_count, std::move(validity), std::move(offsets),
                                  std::move(data), width == 8);
}

Result<ColumnPtr> ImportColumn(const ArrowArray& array, int64_t parent_offset, int64_t length,
                               const Field& field, const ArrowColumnLayout& layout,
                               const OwnerPtr& owner) {
  const DataType& type = field.type;
  const int64_t expected_buffers = type.is_string_like() ? 3 : 2;
  if (array.n_buffers != expected_buffers || array.buffers == nullptr) {
    return Status::Invalid("Arrow array has " + std::to_string(array.n_buffers) +
                           " buffers, format '" + layout.format + "' needs " +
                           std::to_string(expected_buffers));
  }
  if (array.n_children != 0 || array.dictionary != nullptr) {
    return Status::Invalid("Arrow array of format '" + layout.format + "' has children");
  }
  if (array.offset < 0 || array.length < 0 || array.offset > kMaxElements ||
      array.length > kMaxElements) {
    return Status::Invalid("Arrow array has a bad offset or length");
  }
  if (parent_offset + length > array.length) {
    return Status::Invalid("Arrow child array is shorter than its struct");
  }
  const int64_t offset = array.offset + parent_offset;

  std::shared_ptr<Buffer> validity;
  int64_t null_count = 0;
  if (array.buffers[0] != nullptr && array.null_count != 0 && length > 0) {
    validity = ImportBits(array.buffers[0], offset, length, owner);
    null_count = length - bit_util::CountSetBits(validity->data(), 0, length);
    if (null_count == 0) validity.reset();
  } else if (array.buffers[0] == nullptr && array.null_count > 0) {
    return Status::Invalid("Arrow array counts nulls but has no validity bitmap");
  }
  if (null_count > 0 && !field.nullable) {
    return Status::Invalid("nulls in a column declared not null");
  }

  if (type.is_string_like()) {
    return ImportStrings(array, type, layout.source_width, offset, length, null_count,
                         std::move(validity), owner);
  }
  const void* values_ptr = array.buffers[1];
  if (values_ptr == nullptr) {
    if (length > 0) return Status::Invalid("missing values buffer");
    return std::make_shared<Column>(type, 0, 0, nullptr, Buffer::Allocate(0));
  }
  std::shared_ptr<Buffer> values;
  const auto* raw = static_cast<const uint8_t*>(values_ptr);
  if (type.id == TypeId::kBool) {
    values = ImportBits(values_ptr, offset, length, owner);
  } else if (type.is_decimal() && layout.source_width != type.byte_width()) {
    TANDEM_ASSIGN_OR_RAISE(
        values, ConvertDecimal(raw, layout.source_width, offset, length, validity.get()));
  } else if (type.id == TypeId::kTimestamp &&
             (layout.us_multiplier != 1 || layout.us_divisor != 1)) {
    TANDEM_ASSIGN_OR_RAISE(values, ConvertTimestamps(raw, offset, length, validity.get(), layout));
  } else {
    values = ImportFixed(values_ptr, type.byte_width(), offset, length, owner);
  }
  return std::make_shared<Column>(type, length, null_count, std::move(validity), std::move(values));
}

Result<BatchPtr> ImportOwnedBatch(const OwnerPtr& owner, const ImportedSchema& schema) {
  const ArrowArray& top = owner->array;
  const int64_t n = static_cast<int64_t>(schema.schema.fields.size());
  if (top.n_children != n || (n > 0 && top.children == nullptr)) {
    return Status::Invalid("Arrow struct array has " + std::to_string(top.n_children) +
                           " children but its schema has " + std::to_string(n));
  }
  if (top.length < 0 || top.offset < 0 || top.length > kMaxElements || top.offset > kMaxElements) {
    return Status::Invalid("Arrow struct array has a bad offset or length");
  }
  if (top.n_buffers >= 1 && top.buffers != nullptr && top.buffers[0] != nullptr &&
      top.null_count != 0 && top.length > 0) {
    const int64_t valid =
        bit_util::CountSetBits(static_cast<const uint8_t*>(top.buffers[0]), top.offset, top.length);
    if (valid != top.length) return Status::Unsupported("null rows in an Arrow struct array");
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = schema.schema;
  batch->num_rows = top.length;
  for (int64_t i = 0; i < n; ++i) {
    const Field& field = schema.schema.fields[i];
    const ArrowArray* child = top.children[i];
    if (child == nullptr) return Status::Invalid("Arrow struct array has a null child");
    Result<ColumnPtr> column =
        ImportColumn(*child, top.offset, top.length, field, schema.layouts[i], owner);
    if (!column.ok()) return column.status().WithContext("column " + field.name);
    batch->columns.push_back(std::move(column).value());
  }
  TANDEM_RETURN_NOT_OK(batch->Validate());
  return batch;
}

// A zero-row batch; it keeps the offset width of "U"/"Z" columns for a stream without batches,
// since a Tandem Schema does not record it.
BatchPtr EmptyBatch(const ImportedSchema& schema) {
  auto batch = std::make_shared<Batch>();
  batch->schema = schema.schema;
  for (size_t i = 0; i < schema.layouts.size(); ++i) {
    const DataType& type = schema.schema.fields[i].type;
    if (type.is_string_like()) {
      const int width = schema.layouts[i].source_width;
      batch->columns.push_back(std::make_shared<Column>(
          type, 0, 0, nullptr, Buffer::Allocate(width), nullptr, width == 8));
    } else {
      batch->columns.push_back(std::make_shared<Column>(type, 0, 0, nullptr, Buffer::Allocate(0)));
    }
  }
  return batch;
}

bool HasLargeOffsets(const ImportedSchema& schema) {
  for (size_t i = 0; i < schema.layouts.size(); ++i) {
    if (schema.schema.fields[i].type.is_string_like() && schema.layouts[i].source_width == 8) {
      return true;
    }
  }
  return false;
}

// Stream errors: the producer's message when it has one.
Status StreamError(ArrowArrayStream* stream, int code, const char* what) {
  const char* message = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
  return Status::Invalid(std::string("Arrow stream ") + what + " failed (error " +
                         std::to_string(code) + ")" + (message ? ": " + std::string(message) : ""));
}

}  // namespace

Result<BatchPtr> ImportBatch(ArrowArray* array, const ImportedSchema& schema) {
  if (array == nullptr || array->release == nullptr) {
    return Status::Invalid("Arrow array was already released");
  }
  try {
    auto owner = std::make_shared<ArrayOwner>();
    owner->array = *array;  // move: the source is marked released, as the spec prescribes
    array->release = nullptr;
    return ImportOwnedBatch(owner, schema);
  } catch (const std::bad_alloc&) {
    if (array->release != nullptr) array->release(array);
    return Status::OutOfMemory("out of memory importing an Arrow array");
  }
}

Result<BatchPtr> ImportBatch(ArrowArray* array, const ArrowSchema& schema) {
  Result<ImportedSchema> parsed = ParseArrowSchema(schema);
  if (!parsed.ok()) {
    if (array != nullptr && array->release != nullptr) array->release(array);
    return parsed.status();
  }
  return ImportBatch(array, *parsed);
}

Result<Table> ImportStream(ArrowArrayStream* source) {
  if (source == nullptr || source->release == nullptr) {
    return Status::Invalid("Arrow stream was already released");
  }
  ArrowArrayStream stream = *source;
  source->release = nullptr;
  struct Releaser {
    ArrowArrayStream* s;
    ~Releaser() {
      if (s->release != nullptr) s->release(s);
    }
  } releaser{&stream};
  try {
    ArrowSchema c_schema{};
    int rc = stream.get_schema(&stream, &c_schema);
    if (rc != 0) return StreamError(&stream, rc, "get_schema");
    Result<ImportedSchema> parsed = ParseArrowSchema(c_schema);
    if (c_schema.release != nullptr) c_schema.release(&c_schema);
    if (!parsed.ok()) return parsed.status();
    Table table;
    table.schema = parsed->schema;
    while (true) {
      ArrowArray c_array{};
      rc = stream.get_next(&stream, &c_array);
      if (rc != 0) return StreamError(&stream, rc, "get_next");
      if (c_array.release == nullptr) break;
      TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, ImportBatch(&c_array, *parsed));
      table.batches.push_back(std::move(batch));
    }
    if (table.batches.empty() && HasLargeOffsets(*parsed)) {
      table.batches.push_back(EmptyBatch(*parsed));
    }
    return table;
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("out of memory importing an Arrow stream");
  }
}

}  // namespace tandem::capi
