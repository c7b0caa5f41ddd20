// The type ids alone, apart from DataType (data_type.h): GPU code compiled at run time by NVRTC
// (gpu/jit) includes this, and it can include nothing from the C++ standard library but
// <cstdint>.
#pragma once

#include <cstdint>

namespace tandem {

enum class TypeId : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDecimal,    // precision 1..38, scale 0..precision
  kDate32,     // days since 1970-01-01
  kTimestamp,  // microseconds since 1970-01-01 00:00:00; utc says whether it is an instant
  kString,     // UTF-8
  kBinary,
};

}  // namespace tandem
