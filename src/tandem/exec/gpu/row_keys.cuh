// Device row keys shared by the GPU hash aggregate and the GPU hash joins: a row over several key
// columns (fixed width, booleans as one byte, strings/binary with int64 offsets, optional
// validity bitmaps) is hashed and compared on the device with the CPU twins' key semantics:
// floats canonical (-0.0 equals 0.0, every NaN equals every NaN), strings bytewise. Two NULL
// modes: grouping (NULL equals NULL, exec/cpu/group_table.h) and joining (a row with a NULL key
// never matches, exec/cpu/join_keys.h); callers pick with `nulls_equal` / AnyNull.
//
// Also the few launch and CUB helpers both operators use (grid-stride launches with 64-bit
// indices, CUDA errors as Status, scratch buffers from the device pool).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/exec/gpu/aggregate_key_limits.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/gpu/device_column.h"

namespace tandem::gpu::keys {

constexpr int kMaxKeyColumns = kMaxGpuKeyColumns;

enum class KeyKind : uint8_t { kFixed, kFloat32, kFloat64, kString };

struct KeyColumn {
  KeyKind kind = KeyKind::kFixed;
  int width = 0;  // bytes per fixed value (1, 2, 4, 8 or 16)
  const uint8_t* values = nullptr;
  const uint8_t* validity = nullptr;  // LSB bitmap or null (no NULLs)
  const int64_t* offsets = nullptr;   // strings
  const uint8_t* chars = nullptr;     // strings
};

// Passed to kernels by value.
struct KeySet {
  int count = 0;
  KeyColumn cols[kMaxKeyColumns];
};

inline Status CudaStatus(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::OK();
  return Status::IOError(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

inline cudaStream_t Raw(const Stream& stream) { return static_cast<cudaStream_t>(stream.handle()); }

// Builds a key column view of a device column (which must outlive the view's use).
inline Result<KeyColumn> MakeKeyColumn(const DeviceColumn& c) {
  KeyColumn k;
  k.values = c.values.data_as<uint8_t>();
  k.validity = c.null_count > 0 && c.has_validity() ? c.validity.data_as<uint8_t>() : nullptr;
  switch (c.type.id) {
    case TypeId::kString:
    case TypeId::kBinary:
      k.kind = KeyKind::kString;
      k.offsets = c.values.data_as<int64_t>();
      k.chars = c.data.data_as<uint8_t>();
      return k;
    case TypeId::kFloat32:
      k.kind = KeyKind::kFloat32;
      k.width = 4;
      return k;
    case TypeId::kFloat64:
      k.kind = KeyKind::kFloat64;
      k.width = 8;
      return k;
    default:
      break;
  }
  k.kind = KeyKind::kFixed;
  k.width = DeviceByteWidth(c.type);
  if (k.width != 1 && k.width != 2 && k.width != 4 && k.width != 8 && k.width != 16) {
    return Status::Internal("key type " + c.type.ToString() + " has no device key width");
  }
  return k;
}

inline Result<KeySet> MakeKeySet(const std::vector<const DeviceColumn*>& columns) {
  if (static_cast<int>(columns.size()) > kMaxKeyColumns) {
    return Status::Unsupported("more than " + std::to_string(kMaxKeyColumns) + " key columns");
  }
  KeySet set;
  set.count = static_cast<int>(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(set.cols[i], MakeKeyColumn(*columns[i]));
  }
  return set;
}

__device__ __forceinline__ bool IsNull(const KeyColumn& c, int64_t row) {
  return c.validity && !((c.validity[row >> 3] >> (row & 7)) & 1);
}

__device__ __forceinline__ bool AnyNull(const KeySet& k, int64_t row) {
  for (int i = 0; i < k.count; ++i) {
    if (IsNull(k.cols[i], row)) return true;
  }
  return false;
}

__device__ __forceinline__ uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Canonical bits of a float key: -0.0 -> 0.0, every NaN -> one NaN.
__device__ __forceinline__ uint64_t CanonicalDoubleBits(double v) {
  if (v == 0.0) return 0;
  if (v != v) return 0x7ff8000000000000ULL;
  return static_cast<uint64_t>(__double_as_longlong(v));
}
__device__ __forceinline__ uint64_t CanonicalFloatBits(float v) {
  if (v == 0.0f) return 0;
  if (v != v) return 0x7fc00000U;
  return static_cast<uint32_t>(__float_as_uint(v));
}

// The value of a fixed or float key as (up to) two canonical words.
__device__ __forceinline__ void FixedWords(const KeyColumn& c, int64_t row, uint64_t* lo,
                                           uint64_t* hi) {
  *hi = 0;
  switch (c.kind) {
    case KeyKind::kFloat32:
      *lo = CanonicalFloatBits(reinterpret_cast<const float*>(c.values)[row]);
      return;
    case KeyKind::kFloat64:
      *lo = CanonicalDoubleBits(reinterpret_cast<const double*>(c.values)[row]);
      return;
    default:
      break;
  }
  switch (c.width) {
    case 1:
      *lo = c.values[row];
      return;
    case 2:
      *lo = reinterpret_cast<const uint16_t*>(c.values)[row];
      return;
    case 4:
      *lo = reinterpret_cast<const uint32_t*>(c.values)[row];
      return;
    case 8:
      *lo = reinterpret_cast<const uint64_t*>(c.values)[row];
      return;
    default: {
      const uint64_t* w = reinterpret_cast<const uint64_t*>(c.values) + 2 * row;
      *lo = w[0];
      *hi = w[1];
      return;
    }
  }
}

__device__ __forceinline__ uint64_t HashBytes(const uint8_t* p, int64_t n, uint64_t h) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = 0;
    for (int b = 0; b < 8; ++b) w |= static_cast<uint64_t>(p[i + b]) << (8 * b);
    h = Mix64(h ^ w) + 0x9e3779b97f4a7c15ULL;
  }
  uint64_t w = 0;
  for (int b = 0; i + b < n; ++b) w |= static_cast<uint64_t>(p[i + b]) << (8 * b);
  return Mix64(h ^ w ^ (static_cast<uint64_t>(n) << 56));
}

// Hash of row `row`; NULLs hash to a fixed tag per column.
__device__ __forceinline__ uint64_t HashRow(const KeySet& k, int64_t row) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (int i = 0; i < k.count; ++i) {
    const KeyColumn& c = k.cols[i];
    if (IsNull(c, row)) {
      h = Mix64(h ^ 0x5bd1e995ULL) + i;
      continue;
    }
    if (c.kind == KeyKind::kString) {
      const int64_t b = c.offsets[row];
      h = HashBytes(c.chars + b, c.offsets[row + 1] - b, h);
    } else {
      uint64_t lo, hi;
      FixedWords(c, row, &lo, &hi);
      h = Mix64(h ^ lo) + 0x9e3779b97f4a7c15ULL;
      if (c.width == 16) h = Mix64(h ^ hi);
    }
  }
  return Mix64(h);
}

// Whether row i of `a` equals row j of `b` (same column types). nulls_equal: NULL equals NULL
// (grouping); otherwise a NULL equals nothing (joins).
__device__ __forceinline__ bool RowsEqual(const KeySet& a, int64_t i, const KeySet& b, int64_t j,
                                          bool nulls_equal) {
  for (int c = 0; c < a.count; ++c) {
    const KeyColumn& x = a.cols[c];
    const KeyColumn& y = b.cols[c];
    const bool xn = IsNull(x, i), yn = IsNull(y, j);
    if (xn || yn) {
      if (nulls_equal && xn && yn) continue;
      return false;
    }
    if (x.kind == KeyKind::kString) {
      const int64_t xb = x.offsets[i], xl = x.offsets[i + 1] - xb;
      const int64_t yb = y.offsets[j], yl = y.offsets[j + 1] - yb;
      if (xl != yl) return false;
      for (int64_t t = 0; t < xl; ++t) {
        if (x.chars[xb + t] != y.chars[yb + t]) return false;
      }
    } else {
      uint64_t xl, xh, yl, yh;
      FixedWords(x, i, &xl, &xh);
      FixedWords(y, j, &yl, &yh);
      if (xl != yl || xh != yh) return false;
    }
  }
  return true;
}

// ---- launch and scratch helpers ------------------------------------------------------------

constexpr int kThreads = 256;

inline unsigned GridFor(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > (1 << 20) ? (1 << 20) : blocks));
}

// Grid-stride loop over [0, n) with 64-bit indices.
#define TANDEM_GRID_LOOP(i, n)                                                           \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// Device scratch of at least `bytes` (never a zero-byte allocation).
inline Result<DeviceBuffer> Scratch(int64_t bytes, const Stream& stream) {
  return DeviceBuffer::Allocate(bytes < 16 ? 16 : bytes, stream);
}

inline Status LaunchStatus(const char* what) { return CudaStatus(cudaGetLastError(), what); }

// An expression's values over the batch: a plain column reference is the input column itself,
// anything else is evaluated on the device.
inline Result<DeviceColumnPtr> ColumnOf(const Expr& e, const DeviceBatch& batch,
                                        const EvalContext& eval, const Stream& stream) {
  if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0) {
    if (e.column_index < 0 || e.column_index >= static_cast<int>(batch.columns.size())) {
      return Status::Internal("column reference " + std::to_string(e.column_index) +
                              " outside a batch of " + std::to_string(batch.columns.size()) +
                              " columns");
    }
    return batch.columns[e.column_index];
  }
  return Evaluate(e, batch, eval, stream);
}

}  // namespace tandem::gpu::keys
