// The row loop of GPU expression evaluation, shared by the interpreter's kernel (evaluate.cu)
// and the kernels generated for one program at run time (kernel_gen.h), so both store results,
// validity, string lengths and bytes the same way. Compiles under nvcc and NVRTC alike (nothing
// from the C++ standard library but <cstdint>).
#pragma once

#include <cstdint>

#include "tandem/expr/gpu/interpreter.cuh"

namespace tandem::gpu {

using internal::InterpParams;
using internal::Val;

enum OutMode : int32_t { kFixed, kStringLengths, kStringBytes, kSelectFlags };

struct OutParams {
  int32_t mode = kFixed;
  int32_t type = 0;  // TypeId of the result
  int32_t wide = 0;  // 128-bit decimal result
  int32_t concat_args = 0;
  void* values = nullptr;
  uint32_t* valid = nullptr;   // validity words, or null (no validity written)
  int64_t* offsets = nullptr;  // string lengths (pass 1) or offsets (pass 2)
  uint8_t* data = nullptr;     // string bytes (pass 2)
};

constexpr int64_t kMaxStringResult = int64_t{1} << 30;  // as the CPU's string kernels

__device__ inline void StoreFixed(const OutParams& O, int64_t row, const Val& v, bool valid) {
  switch (static_cast<TypeId>(O.type)) {
    case TypeId::kBool:
      static_cast<uint8_t*>(O.values)[row] = valid && v.i != 0 ? 1 : 0;
      return;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      static_cast<uint8_t*>(O.values)[row] = valid ? static_cast<uint8_t>(v.i) : 0;
      return;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      static_cast<uint16_t*>(O.values)[row] = valid ? static_cast<uint16_t>(v.i) : 0;
      return;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32:
      static_cast<uint32_t*>(O.values)[row] = valid ? static_cast<uint32_t>(v.i) : 0;
      return;
    case TypeId::kFloat32:
      static_cast<float*>(O.values)[row] = valid ? static_cast<float>(v.f) : 0.0f;
      return;
    case TypeId::kFloat64:
      static_cast<double*>(O.values)[row] = valid ? v.f : 0.0;
      return;
    case TypeId::kDecimal:
      if (O.wide) {
        static_cast<internal::i128*>(O.values)[row] = valid ? v.d : 0;
      } else {
        static_cast<int64_t*>(O.values)[row] = valid ? static_cast<int64_t>(v.d) : 0;
      }
      return;
    default:
      static_cast<int64_t*>(O.values)[row] = valid ? v.i : 0;
  }
}

__device__ inline void CopyView(uint8_t* out, const internal::StrView& s) {
  if (s.fold == 0) {
    for (int64_t k = 0; k < s.len; ++k) out[k] = s.p[k];
  } else {
    for (int64_t k = 0; k < s.len; ++k) out[k] = internal::ByteAt(s, k);
  }
}

// The rows of one launch: `run(row, st)` runs the program for a row on the stack `st` (false
// when the row raised an error), then the result is stored as O.mode says, with validity from
// warp ballots.
template <int kStack, typename Run>
__device__ __forceinline__ void EvalRows(const InterpParams& P, const OutParams& O, int64_t n,
                                         Run run) {
  Val st[kStack];
  unsigned long long nulls = 0;
  const int lane = threadIdx.x & 31;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const int64_t row = base + threadIdx.x;
    const bool active = row < n;
    bool valid = false;
    if (active) {
      const bool ok = run(row, st);
      if (O.concat_args > 0) {
        valid = ok;
        for (int k = 0; k < O.concat_args; ++k) valid = valid && !st[k].null;
      } else {
        valid = ok && !st[0].null;
      }
      switch (O.mode) {
        case kFixed:
          StoreFixed(O, row, st[0], valid);
          break;
        case kSelectFlags:
          static_cast<uint8_t*>(O.values)[row] = valid && st[0].i != 0 ? 1 : 0;
          break;
        case kStringLengths: {
          int64_t len = 0;
          if (valid) {
            const int parts = O.concat_args > 0 ? O.concat_args : 1;
            for (int k = 0; k < parts; ++k) len += st[k].s.len;
            if (len > kMaxStringResult) {
              const unsigned long long key =
                  (static_cast<unsigned long long>(P.ncode - 1) << internal::kErrorRowBits) |
                  static_cast<unsigned long long>(row);
              atomicMin(&P.status->error_key, key);
              len = 0;
            }
          }
          O.offsets[row] = len;
          break;
        }
        case kStringBytes: {
          if (valid) {
            uint8_t* out = O.data + O.offsets[row];
            const int parts = O.concat_args > 0 ? O.concat_args : 1;
            for (int k = 0; k < parts; ++k) {
              CopyView(out, internal::View(st[k]));
              out += st[k].s.len;
            }
          }
          break;
        }
      }
    }
    if (O.valid != nullptr) {
      const unsigned valid_mask = __ballot_sync(0xFFFFFFFFu, valid);
      const unsigned active_mask = __ballot_sync(0xFFFFFFFFu, active);
      if (lane == 0 && active_mask != 0) {
        O.valid[(base + (threadIdx.x & ~31)) / 32] = valid_mask;
        nulls += __popc(active_mask) - __popc(valid_mask);
      }
    }
  }
  if (lane == 0 && nulls != 0) atomicAdd(&P.status->null_count, nulls);
}

}  // namespace tandem::gpu
