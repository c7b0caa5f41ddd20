// Type codes of the Thrift compact protocol, shared by the reader and the writer (they appear in
// field headers and list headers of Parquet footers and page headers).
#pragma once

#include <cstdint>

namespace tandem::parquet {

enum class ThriftType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

}  // namespace tandem::parquet
