// Row gathering by index for every column layout.
#include "tandem/column/take.h"

#include <cstring>
#include <type_traits>

#include "tandem/column/column_builder.h"
#include "tandem/types/type_dispatch.h"

namespace tandem {
namespace {

// The field of a Value that holds a stored T (see value.h): f64 for floats, i128 for decimals
// above 18 digits, i64 for everything else (integers of any sign and width, dates, timestamps).
template <typename T>
T StoredValue(const Value& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.f64);
  } else if constexpr (std::is_same_v<T, int128_t>) {
    return v.i128;
  } else {
    return static_cast<T>(v.i64);
  }
}
template <typename T>
void SetStoredValue(T x, Value* v) {
  if constexpr (std::is_floating_point_v<T>) {
    v->f64 = x;
  } else if constexpr (std::is_same_v<T, int128_t>) {
    v->i128 = x;
  } else {
    v->i64 = static_cast<int64_t>(x);
  }
}

// The strings at idx (a negative index: an empty string, its row NULL in `validity`), with the
// source's offsets read as Offset: one pass sums the bytes, one writes offsets and bytes.
template <typename Offset, typename Index>
ColumnPtr TakeStrings(const Column& src, const Index* idx, int64_t n, int64_t nulls,
                      std::shared_ptr<Buffer> validity, bool any_negative) {
  // A string column of no rows may come without offsets; then every index is negative.
  const Offset* in_offsets = src.values() ? src.values()->data_as<Offset>() : nullptr;
  int64_t bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!any_negative || idx[i] >= 0) bytes += in_offsets[idx[i] + 1] - in_offsets[idx[i]];
  }
  const bool large = bytes > INT32_MAX;
  auto offsets = Buffer::Allocate((n + 1) * (large ? 8 : 4));
  auto data = Buffer::Allocate(bytes);
  const char* base = src.data() ? reinterpret_cast<const char*>(src.data()->data()) : "";
  char* out = reinterpret_cast<char*>(data->mutable_data());
  auto write = [&](auto* out_offsets) {
    int64_t pos = 0;
    for (int64_t i = 0; i < n; ++i) {
      out_offsets[i] = static_cast<std::remove_pointer_t<decltype(out_offsets)>>(pos);
      if (any_negative && idx[i] < 0) continue;
      const int64_t b = in_offsets[idx[i]];
      const int64_t len = in_offsets[idx[i] + 1] - b;
      if (len > 0) std::memcpy(out + pos, base + b, static_cast<size_t>(len));
      pos += len;
    }
    out_offsets[n] = static_cast<std::remove_pointer_t<decltype(out_offsets)>>(pos);
  };
  if (large) {
    write(offsets->mutable_data_as<int64_t>());
  } else {
    write(offsets->mutable_data_as<int32_t>());
  }
  return std::make_shared<Column>(src.type(), n, nulls, std::move(validity), offsets, data, large);
}

template <typename Index>
ColumnPtr TakeImpl(const Column& src, const Index* idx, int64_t n) {
  const DataType& type = src.type();
  int64_t nulls = 0;
  std::shared_ptr<Buffer> validity;
  bool any_negative = false;
  for (int64_t i = 0; i < n; ++i) any_negative |= idx[i] < 0;
  if (src.null_count() > 0 || any_negative) {
    validity = Buffer::Allocate(bit_util::BytesForBits(n));
    uint8_t* bits = validity->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      const bool valid = idx[i] >= 0 && src.IsValid(idx[i]);
      if (valid) {
        bit_util::SetBit(bits, i);
      } else {
        ++nulls;
      }
    }
    if (nulls == 0) validity.reset();
  }
  if (type.id == TypeId::kBool) {
    auto values = Buffer::Allocate(bit_util::BytesForBits(n));
    uint8_t* out = values->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] >= 0 && src.GetBool(idx[i])) bit_util::SetBit(out, i);
    }
    return std::make_shared<Column>(type, n, nulls, validity, values);
  }
  if (type.is_string_like()) {
    return src.large_offsets()
               ? TakeStrings<int64_t>(src, idx, n, nulls, std::move(validity), any_negative)
               : TakeStrings<int32_t>(src, idx, n, nulls, std::move(validity), any_negative);
  }
  const int w = type.byte_width();
  auto values = Buffer::Allocate(n * w);
  uint8_t* out = values->mutable_data();
  const uint8_t* in = src.values()->data();
  switch (w) {
#define TANDEM_TAKE_CASE(W, T)                                            \
  case W: {                                                               \
    T* o = reinterpret_cast<T*>(out);                                     \
    const T* s = reinterpret_cast<const T*>(in);                          \
    for (int64_t i = 0; i < n; ++i) o[i] = idx[i] >= 0 ? s[idx[i]] : T{}; \
    break;                                                                \
  }
    TANDEM_TAKE_CASE(1, uint8_t)
    TANDEM_TAKE_CASE(2, uint16_t)
    TANDEM_TAKE_CASE(4, uint32_t)
    TANDEM_TAKE_CASE(8, uint64_t)
    TANDEM_TAKE_CASE(16, uint128_t)
#undef TANDEM_TAKE_CASE
  }
  return std::make_shared<Column>(type, n, nulls, validity, values);
}

}  // namespace

ColumnPtr Take(const Column& source, const int32_t* indices, int64_t count) {
  return TakeImpl(source, indices, count);
}
ColumnPtr Take(const Column& source, const int64_t* indices, int64_t count) {
  return TakeImpl(source, indices, count);
}

BatchPtr TakeBatch(const Batch& source, const int32_t* indices, int64_t count) {
  auto out = std::make_shared<Batch>();
  out->schema = source.schema;
  out->num_rows = count;
  for (const auto& c : source.columns) out->columns.push_back(Take(*c, indices, count));
  return out;
}

ColumnPtr TakeFromBatches(const std::vector<BatchPtr>& batches, int column,
                          const int64_t* packed_refs, int64_t count) {
  if (batches.size() == 1) {
    std::vector<int64_t> rows(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      rows[i] = packed_refs[i] < 0 ? -1 : (packed_refs[i] & 0xFFFFFFFF);
    }
    return Take(*batches[0]->columns[column], rows.data(), count);
  }
  ColumnBuilder b(batches.empty() ? DataType::Int64() : batches[0]->columns[column]->type(), count);
  for (int64_t i = 0; i < count; ++i) {
    if (packed_refs[i] < 0) {
      b.AppendNull();
    } else {
      const auto& col = *batches[packed_refs[i] >> 32]->columns[column];
      b.AppendFrom(col, packed_refs[i] & 0xFFFFFFFF);
    }
  }
  return b.Finish();
}

ColumnPtr BroadcastValue(const Value& value, int64_t count) {
  ColumnBuilder b(value.type, count);
  if (value.is_null) {
    b.AppendNulls(count);
    return b.Finish();
  }
  auto append = Overloaded{[&](BoolTag) { b.AppendBool(value.i64 != 0); },
                           [&](StringTag) { b.AppendString(value.str); },
                           [&]<typename T>(Tag<T>) { b.Append<T>(StoredValue<T>(value)); }};
  for (int64_t i = 0; i < count; ++i) VisitStorage(value.type, append);
  return b.Finish();
}

Value GetValue(const Column& column, int64_t row) {
  const DataType& t = column.type();
  if (column.IsNull(row)) return Value::Null(t);
  Value v = Value::Null(t);
  v.is_null = false;
  VisitStorage(t,
               Overloaded{[&](BoolTag) { v.i64 = column.GetBool(row); },
                          [&](StringTag) { v.str = std::string(column.GetString(row)); },
                          [&]<typename T>(Tag<T>) { SetStoredValue(column.Value<T>(row), &v); }});
  return v;
}

BatchPtr CombineBatches(const Table& table) {
  if (table.batches.size() == 1) return table.batches[0];
  auto combined = ConcatenateBatches(table.batches, table.schema);
  return combined.ok() ? *combined : nullptr;
}

}  // namespace tandem
