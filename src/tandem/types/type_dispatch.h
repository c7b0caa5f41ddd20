// The one mapping from a DataType to the C++ type its column values are stored as. Code that does
// the same thing for every storage type (gather, compare, read into a Value) is written once as a
// template and called through VisitStorage, instead of through a switch over TypeId with one case
// per type that picks int8_t..int128_t by hand.
//
// VisitStorage(type, f) calls f with one tag and returns what f returns:
//   Tag<T>     fixed-width values stored as T: int8_t..int64_t, uint8_t..uint64_t, float and
//              double for the numeric types, int32_t for dates (days), int64_t for timestamps
//              (microseconds), int64_t for decimals up to 18 digits and int128_t above;
//   BoolTag    booleans, bit-packed (read with Column::GetBool);
//   StringTag  string and binary: offsets and bytes (read with Column::GetString).
// Several types share one T (int32 and date32; int64, timestamp and decimal(<=18)): a caller that
// treats them differently still checks type.id itself. f is usually a few lambdas joined with
// Overloaded, a catch-all [](auto) one handling the types the caller does not support; all of them
// return the same type. Header only, for host code.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "tandem/types/data_type.h"

namespace tandem {

template <typename T>
struct Tag {
  using type = T;
};
struct BoolTag {};
struct StringTag {};

// Joins lambdas into one callable: Overloaded{[](BoolTag) {...}, [](auto) {...}}.
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

template <typename F>
decltype(auto) VisitStorage(const DataType& type, F&& f) {
  switch (type.id) {
    case TypeId::kBool:
      return f(BoolTag{});
    case TypeId::kInt8:
      return f(Tag<int8_t>{});
    case TypeId::kInt16:
      return f(Tag<int16_t>{});
    case TypeId::kInt32:
    case TypeId::kDate32:
      return f(Tag<int32_t>{});
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return f(Tag<int64_t>{});
    case TypeId::kUInt8:
      return f(Tag<uint8_t>{});
    case TypeId::kUInt16:
      return f(Tag<uint16_t>{});
    case TypeId::kUInt32:
      return f(Tag<uint32_t>{});
    case TypeId::kUInt64:
      return f(Tag<uint64_t>{});
    case TypeId::kFloat32:
      return f(Tag<float>{});
    case TypeId::kFloat64:
      return f(Tag<double>{});
    case TypeId::kDecimal:
      if (type.is_wide_decimal()) return f(Tag<int128_t>{});
      return f(Tag<int64_t>{});
    case TypeId::kString:
    case TypeId::kBinary:
      return f(StringTag{});
  }
  std::abort();  // not a TypeId: the DataType is corrupt
}

}  // namespace tandem
