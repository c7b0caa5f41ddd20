// Gathering a column chunk: concatenates validity bitmaps, drops null slots and widens or narrows
// each Tandem storage type to its Parquet physical type (int8/16 -> int32, decimal(<=9) int64 ->
// int32, booleans unpacked to bytes, strings to views).
#include <cstring>
#include <type_traits>

#include "tandem/io/parquet/encode/chunk_data.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::parquet {
namespace {

template <typename Src, typename Dst>
void GatherFixed(const ColumnSlice& s, std::vector<Dst>* out) {
  const Column& c = *s.column;
  const Src* src = c.values_as<Src>() + s.begin;
  const size_t pos = out->size();
  out->resize(pos + static_cast<size_t>(s.length));
  Dst* dst = out->data() + pos;
  if (c.null_count() == 0) {
    // Same width, both integers or both floats: a bit copy (uint32 storage into int32 too).
    if constexpr (sizeof(Src) == sizeof(Dst) &&
                  std::is_floating_point_v<Src> == std::is_floating_point_v<Dst>) {
      std::memcpy(dst, src, static_cast<size_t>(s.length) * sizeof(Dst));
    } else {
      for (int64_t i = 0; i < s.length; ++i) dst[i] = static_cast<Dst>(src[i]);
    }
    return;
  }
  const uint8_t* valid = c.validity_bits();
  int64_t k = 0;
  for (int64_t i = 0; i < s.length; ++i) {
    dst[k] = static_cast<Dst>(src[i]);
    k += bit_util::GetBit(valid, s.begin + i);
  }
  out->resize(pos + static_cast<size_t>(k));
}

void GatherBools(const ColumnSlice& s, std::vector<uint8_t>* out) {
  const Column& c = *s.column;
  const uint8_t* bits = c.values()->data();
  const uint8_t* valid = c.null_count() == 0 ? nullptr : c.validity_bits();
  for (int64_t i = 0; i < s.length; ++i) {
    const int64_t row = s.begin + i;
    if (valid == nullptr || bit_util::GetBit(valid, row)) {
      out->push_back(static_cast<uint8_t>(bit_util::GetBit(bits, row)));
    }
  }
}

void GatherStrings(const ColumnSlice& s, std::vector<std::string_view>* out) {
  const Column& c = *s.column;
  const uint8_t* valid = c.null_count() == 0 ? nullptr : c.validity_bits();
  for (int64_t i = 0; i < s.length; ++i) {
    const int64_t row = s.begin + i;
    if (valid == nullptr || bit_util::GetBit(valid, row)) out->push_back(c.GetString(row));
  }
}

// Fixed-width storage T into the vector of its Parquet physical type: integers of up to 32 bits
// and decimal(<=9) to int32, other 64-bit integers to int64.
template <typename T>
void GatherNumbers(const ColumnSlice& s, const ColumnWriteSpec& spec, ChunkData* out) {
  if constexpr (std::is_same_v<T, float>) {
    GatherFixed<T>(s, &out->f32);
  } else if constexpr (std::is_same_v<T, double>) {
    GatherFixed<T>(s, &out->f64);
  } else if constexpr (std::is_same_v<T, int128_t>) {
    GatherFixed<T>(s, &out->i128);
  } else if constexpr (sizeof(T) <= 4) {
    GatherFixed<T>(s, &out->i32);
  } else if (spec.kind == ValueKind::kInt32) {
    GatherFixed<T>(s, &out->i32);
  } else {
    GatherFixed<T>(s, &out->i64);
  }
}

void GatherValues(const ColumnSlice& s, const ColumnWriteSpec& spec, ChunkData* out) {
  auto gather = Overloaded{[&](BoolTag) { GatherBools(s, &out->bools); },
                           [&](StringTag) { GatherStrings(s, &out->bytes); },
                           [&]<typename T>(Tag<T>) { GatherNumbers<T>(s, spec, out); }};
  VisitStorage(spec.type, gather);
}

void ReserveValues(const ColumnWriteSpec& spec, int64_t rows, ChunkData* out) {
  const size_t n = static_cast<size_t>(rows);
  switch (spec.kind) {
    case ValueKind::kBool:
      out->bools.reserve(n);
      break;
    case ValueKind::kInt32:
    case ValueKind::kUInt32:
      out->i32.reserve(n);
      break;
    case ValueKind::kInt64:
    case ValueKind::kUInt64:
      out->i64.reserve(n);
      break;
    case ValueKind::kFloat:
      out->f32.reserve(n);
      break;
    case ValueKind::kDouble:
      out->f64.reserve(n);
      break;
    case ValueKind::kDecimal128:
      out->i128.reserve(n);
      break;
    case ValueKind::kByteArray:
      out->bytes.reserve(n);
      break;
  }
}

// Whether the Tandem storage of the type is bit for bit the physical value of its kind.
bool StorageIsPhysical(const ColumnWriteSpec& spec) {
  switch (spec.type.id) {
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kUInt32:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return true;
    case TypeId::kDecimal:
      return spec.kind != ValueKind::kInt32;  // decimal(<=9) narrows int64 to int32
    default:
      return false;
  }
}

int64_t StoredValues(const ColumnWriteSpec& spec, const ChunkData& d) {
  switch (spec.kind) {
    case ValueKind::kBool:
      return static_cast<int64_t>(d.bools.size());
    case ValueKind::kInt32:
    case ValueKind::kUInt32:
      return static_cast<int64_t>(d.i32.size());
    case ValueKind::kInt64:
    case ValueKind::kUInt64:
      return static_cast<int64_t>(d.i64.size());
    case ValueKind::kFloat:
      return static_cast<int64_t>(d.f32.size());
    case ValueKind::kDouble:
      return static_cast<int64_t>(d.f64.size());
    case ValueKind::kDecimal128:
      return static_cast<int64_t>(d.i128.size());
    case ValueKind::kByteArray:
      return static_cast<int64_t>(d.bytes.size());
  }
  return 0;
}

}  // namespace

void GatherChunk(const std::vector<ColumnSlice>& slices, const ColumnWriteSpec& spec,
                 ChunkData* out) {
  int64_t rows = 0;
  int64_t nulls = 0;
  for (const ColumnSlice& s : slices) {
    rows += s.length;
    if (s.column->null_count() > 0) {
      nulls += s.length - bit_util::CountSetBits(s.column->validity_bits(), s.begin, s.length);
    }
  }
  out->num_rows = rows;
  out->null_count = nulls;
  if (nulls > 0) {
    out->validity.assign(static_cast<size_t>(bit_util::BytesForBits(rows) + 8), 0);
    int64_t row = 0;
    for (const ColumnSlice& s : slices) {
      if (s.column->null_count() > 0) {
        bit_util::CopyBits(s.column->validity_bits(), s.begin, s.length, out->validity.data(), row);
      } else {
        bit_util::SetBitsTo(out->validity.data(), row, s.length, true);
      }
      row += s.length;
    }
  }
  if (slices.size() == 1 && nulls == 0 && StorageIsPhysical(spec)) {
    const ColumnSlice& s = slices[0];
    out->borrowed_values = s.column->values()->data() + s.begin * spec.type.byte_width();
    out->num_values = rows;
    return;
  }
  ReserveValues(spec, rows - nulls, out);
  for (const ColumnSlice& s : slices) GatherValues(s, spec, out);
  out->num_values = StoredValues(spec, *out);
}

}  // namespace tandem::parquet
