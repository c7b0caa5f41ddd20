// COUNT(*), COUNT, SUM, AVG, MIN and MAX over window frames on the GPU (window_layout.cuh), the
// twin of exec/cpu/window_aggregates.cc, computed the same ways:
//   - COUNT from an exclusive prefix count of non-NULL values; integer and decimal SUM/AVG from
//     exact 128-bit prefix sums, finished with the CPU's rules (AVG rounds half away from zero,
//     AVG of integers divides in double, an int64 result out of range is the CPU's overflow error);
//   - float SUM/AVG never subtract: NaN, +inf and -inf are prefix-counted and the finite values
//     summed per frame over the CPU's segment tree (same shape and order of additions). The CPU
//     adds in long double and the GPU in double, so float sums may differ in the last bits;
//   - MIN/MAX pick a row per frame: a running best per partition when every frame starts at its
//     partition's start, else the CPU's segment tree of row positions, with the same tie rule
//     (which of -0.0 and 0.0, or of two NaNs, is returned is the CPU's choice too).
// The segment tree is the CPU's bottom-up one: leaves at [n, 2n), node i = f(2i, 2i + 1). On the
// GPU its internal nodes are built one depth at a time (node i has depth floor(log2 i); its
// children are one level deeper or leaves), deepest first.
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

#include <cub/device/device_scan.cuh>
#include <new>
#include <stdexcept>

#include "tandem/exec/gpu/row_keys.cuh"
#include "tandem/exec/gpu/window_layout.cuh"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/types/decimal_core.h"

namespace tandem::gpu::window {
namespace {

using i128 = __int128;

enum class Code : int {
  kBool,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kI128,
  kF32,
  kF64,
  kString,
  kOther
};

Code CodeOf(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return Code::kBool;
    case TypeId::kInt8:
      return Code::kI8;
    case TypeId::kInt16:
      return Code::kI16;
    case TypeId::kInt32:
      return Code::kI32;
    case TypeId::kInt64:
      return Code::kI64;
    case TypeId::kUInt8:
      return Code::kU8;
    case TypeId::kUInt16:
      return Code::kU16;
    case TypeId::kUInt32:
      return Code::kU32;
    case TypeId::kUInt64:
      return Code::kU64;
    case TypeId::kDecimal:
      return t.is_wide_decimal() ? Code::kI128 : Code::kI64;
    case TypeId::kFloat32:
      return Code::kF32;
    case TypeId::kFloat64:
      return Code::kF64;
    case TypeId::kString:
    case TypeId::kBinary:
      return Code::kString;
    default:
      return Code::kOther;
  }
}

// The argument column read in sorted order: position i is input row perm[i].
struct Arg {
  Code code;
  const uint8_t* values;
  const uint8_t* validity;  // null: no NULLs
  const int64_t* offsets;   // strings
  const uint8_t* chars;
  const int64_t* perm;
};

Arg ArgOf(const DeviceColumn& c, const Layout& L) {
  Arg a;
  a.code = CodeOf(c.type);
  a.values = c.values.data_as<const uint8_t>();
  a.validity = c.null_count > 0 && c.has_validity() ? c.validity.data_as<const uint8_t>() : nullptr;
  a.offsets = c.type.is_string_like() ? c.values.data_as<const int64_t>() : nullptr;
  a.chars = c.data.data_as<const uint8_t>();
  a.perm = L.perm();
  return a;
}

__device__ inline bool ValidAt(const Arg& a, int64_t pos) {
  const int64_t row = a.perm[pos];
  return a.validity == nullptr || ((a.validity[row >> 3] >> (row & 7)) & 1);
}

// The CPU's ExactValue: integers and unscaled decimals as int128.
__device__ inline i128 ExactAt(const Arg& a, int64_t pos) {
  const int64_t row = a.perm[pos];
  switch (a.code) {
    case Code::kBool:
      return a.values[row] != 0;
    case Code::kI8:
      return reinterpret_cast<const int8_t*>(a.values)[row];
    case Code::kI16:
      return reinterpret_cast<const int16_t*>(a.values)[row];
    case Code::kI32:
      return reinterpret_cast<const int32_t*>(a.values)[row];
    case Code::kI64:
      return reinterpret_cast<const int64_t*>(a.values)[row];
    case Code::kU8:
      return a.values[row];
    case Code::kU16:
      return reinterpret_cast<const uint16_t*>(a.values)[row];
    case Code::kU32:
      return reinterpret_cast<const uint32_t*>(a.values)[row];
    case Code::kU64:
      return static_cast<i128>(reinterpret_cast<const uint64_t*>(a.values)[row]);
    case Code::kI128:
      return reinterpret_cast<const i128*>(a.values)[row];
    default:
      return 0;
  }
}

__device__ inline double FloatAt(const Arg& a, int64_t pos) {
  const int64_t row = a.perm[pos];
  if (a.code == Code::kF32) return reinterpret_cast<const float*>(a.values)[row];
  return reinterpret_cast<const double*>(a.values)[row];
}

// The CPU's MIN/MAX float key: ordered bits, -0.0 == 0.0, one NaN above every number.
__device__ inline uint64_t OrderedFloatKey(double d) {
  if (d == 0) d = 0;
  const uint64_t u =
      d != d ? 0x7FF8000000000000ULL : static_cast<uint64_t>(__double_as_longlong(d));
  return (u >> 63) ? ~u : (u | (1ULL << 63));
}

// ---- prefix counts and sums ----------------------------------------------------------------

__global__ void ValidFlagsKernel(Arg a, int64_t n, int64_t* out) {
  TANDEM_GRID_LOOP(i, n + 1) out[i] = i < n && ValidAt(a, i) ? 1 : 0;
}

__global__ void ExactValuesKernel(Arg a, int64_t n, i128* out) {
  TANDEM_GRID_LOOP(i, n + 1) out[i] = i < n && ValidAt(a, i) ? ExactAt(a, i) : i128{0};
}

template <typename T>
Status ExclusiveSumInPlace(T* data, int64_t count, const Stream& stream) {
  size_t temp_bytes = 0;
  const cudaStream_t s = CudaStream(stream);
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, data, data, count, s), "window scan"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         keys::Scratch(static_cast<int64_t>(temp_bytes), stream));
  return CudaStatus(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, data, data, count, s),
                    "window scan");
}

// cnt[i] = non-NULL values before position i (n + 1 entries).
Result<DeviceBuffer> PrefixCounts(const Arg& a, int64_t n, const Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer cnt, keys::Scratch((n + 1) * 8, stream));
  ValidFlagsKernel<<<GridFor(n + 1), kBlockThreads, 0, CudaStream(stream)>>>(
      a, n, cnt.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window valid flags"));
  TANDEM_RETURN_NOT_OK(ExclusiveSumInPlace(cnt.data_as<int64_t>(), n + 1, stream));
  return std::move(cnt);
}

__global__ void FrameCountsKernel(const int64_t* cnt, const int64_t* fs, const int64_t* fe,
                                  int64_t n, int64_t* out) {
  TANDEM_GRID_LOOP(i, n) out[i] = cnt == nullptr ? fe[i] - fs[i] : cnt[fe[i]] - cnt[fs[i]];
}

// ---- exact SUM / AVG ------------------------------------------------------------------------

enum class ExactOut : int { kInt64, kInt128, kFloat64 };

struct ExactFinish {
  bool avg;
  ExactOut out;
  bool decimal_arg;
  double arg_scale;  // 10^scale of a decimal argument, as the CPU converts it
  int shift;         // AVG: result scale - argument scale (>= 0)
};

__global__ void ExactFinishKernel(ExactFinish f, const int64_t* cnt, const i128* sum,
                                  const int64_t* fs, const int64_t* fe, int64_t n, void* out,
                                  uint8_t* valid, int* overflow) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t c = cnt[fe[i]] - cnt[fs[i]];
    valid[i] = c != 0;
    double* as_double = static_cast<double*>(out);
    i128* as_i128 = static_cast<i128*>(out);
    int64_t* as_i64 = static_cast<int64_t*>(out);
    if (c == 0) {
      if (f.out == ExactOut::kFloat64) as_double[i] = 0;
      if (f.out == ExactOut::kInt128) as_i128[i] = 0;
      if (f.out == ExactOut::kInt64) as_i64[i] = 0;
      continue;
    }
    const i128 s = sum[fe[i]] - sum[fs[i]];
    i128 v = s;
    if (f.avg) {
      if (f.out == ExactOut::kFloat64) {
        double d = static_cast<double>(s) / static_cast<double>(c);
        if (f.decimal_arg) d /= f.arg_scale;
        as_double[i] = d;
        continue;
      }
      // As the CPU: exact through 256 bits, an overflow where the quotient passes 128 bits.
      if (!decimal::DivideScaled(s, f.shift, c, &v)) {
        atomicExch(overflow, 1);
        v = 0;
      }
    }
    if (f.out == ExactOut::kFloat64) {
      as_double[i] = static_cast<double>(v);
    } else if (f.out == ExactOut::kInt128) {
      as_i128[i] = v;
    } else {
      if (v > static_cast<i128>(INT64_MAX) || v < static_cast<i128>(INT64_MIN)) {
        atomicExch(overflow, 1);
        v = 0;
      }
      as_i64[i] = static_cast<int64_t>(v);
    }
  }
}

Result<DeviceColumnPtr> ExactSum(const WindowCall& call, const Arg& a, const DataType& t,
                                 const DeviceBuffer& cnt, const Frames& frames, int64_t n,
                                 const Stream& stream) {
  const cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer sums, keys::Scratch((n + 1) * 16, stream));
  ExactValuesKernel<<<GridFor(n + 1), kBlockThreads, 0, s>>>(a, n, sums.data_as<i128>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window exact values"));
  TANDEM_RETURN_NOT_OK(ExclusiveSumInPlace(sums.data_as<i128>(), n + 1, stream));

  const DataType& rt = call.type;
  ExactFinish f;
  f.avg = call.aggregate == AggregateKind::kAvg;
  f.out = rt.id == TypeId::kFloat64 ? ExactOut::kFloat64
                                    : (rt.is_wide_decimal() ? ExactOut::kInt128 : ExactOut::kInt64);
  if (f.out == ExactOut::kInt64 && !(rt.id == TypeId::kInt64 || rt.is_decimal())) {
    return Status::Unsupported("GPU window: " + call.name + " of type " + rt.ToString());
  }
  f.decimal_arg = t.is_decimal();
  int128_t scale = 1;
  for (int k = 0; k < t.scale; ++k) scale *= 10;
  f.arg_scale = static_cast<double>(scale);
  const int shift = rt.is_decimal() && t.is_decimal() ? rt.scale - t.scale : 0;
  f.shift = shift > 0 ? shift : 0;

  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out,
                         keys::Scratch(n * (f.out == ExactOut::kInt128 ? 16 : 8), stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer valid, keys::Scratch(n, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer overflow, keys::Scratch(4, stream));
  TANDEM_RETURN_NOT_OK(MemsetDevice(overflow.data(), 0, 4, stream));
  ExactFinishKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      f, cnt.data_as<int64_t>(), sums.data_as<i128>(), frames.start.data_as<int64_t>(),
      frames.end.data_as<int64_t>(), n, out.data(), valid.data_as<uint8_t>(),
      overflow.data_as<int>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window exact sums"));
  int overflowed = 0;
  TANDEM_RETURN_NOT_OK(CopyToHost(&overflowed, overflow.data(), 4, stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  if (overflowed) {
    return Status::Invalid(call.name + ": integer overflow in window " +
                           AggregateKindName(call.aggregate));
  }
  return FixedResult(rt, std::move(out), valid.data_as<uint8_t>(), n, stream);
}

// ---- segment trees ------------------------------------------------------------------------

template <typename T, typename Combine>
__global__ void TreeLevelKernel(T* tree, int64_t lo, int64_t hi, Combine combine) {
  TANDEM_GRID_LOOP(k, hi - lo) {
    const int64_t i = lo + k;
    tree[i] = combine(tree[2 * i], tree[2 * i + 1]);
  }
}

// Builds internal nodes [1, n) over leaves tree[n, 2n), deepest level first.
template <typename T, typename Combine>
Status BuildTree(T* tree, int64_t n, Combine combine, const Stream& stream) {
  if (n < 2) return Status::OK();
  int depth = 0;  // floor(log2(n - 1)): the deepest internal node's depth
  while ((int64_t{2} << depth) <= n - 1) ++depth;
  for (int d = depth; d >= 0; --d) {
    const int64_t lo = int64_t{1} << d;
    const int64_t hi = std::min<int64_t>(lo * 2, n);
    TreeLevelKernel<<<GridFor(hi - lo), kBlockThreads, 0, CudaStream(stream)>>>(tree, lo, hi,
                                                                                combine);
    TANDEM_RETURN_NOT_OK(LaunchStatus("window segment tree"));
  }
  return Status::OK();
}

struct AddDoubles {
  __host__ __device__ double operator()(double a, double b) const { return a + b; }
};

// ---- float SUM / AVG ----------------------------------------------------------------------

// Leaves tree[n + i] = finite value or 0; specials[k * (n + 1) + i] flags NaN, +inf, -inf
// (k = 0, 1, 2) for prefix counting (entry n of each is 0).
__global__ void FloatPartsKernel(Arg a, int64_t n, double* tree, int64_t* specials) {
  TANDEM_GRID_LOOP(i, n + 1) {
    double v = 0;
    if (i < n && ValidAt(a, i)) v = FloatAt(a, i);
    const bool nan = isnan(v), inf = isinf(v);
    if (i < n) tree[n + i] = nan || inf ? 0.0 : v;
    specials[i] = nan;
    specials[(n + 1) + i] = inf && v > 0;
    specials[2 * (n + 1) + i] = inf && v < 0;
  }
}

__global__ void FloatFrameKernel(bool avg, const double* tree, const int64_t* cnt,
                                 const int64_t* specials, const int64_t* fs, const int64_t* fe,
                                 int64_t n, double* out, uint8_t* valid) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t s = fs[i], e = fe[i];
    const int64_t c = cnt[e] - cnt[s];
    valid[i] = c != 0;
    if (c == 0) {
      out[i] = 0;
      continue;
    }
    double left = 0, right = 0;  // in frame order: left pieces, then right pieces
    for (int64_t l = s + n, r = e + n; l < r; l >>= 1, r >>= 1) {
      if (l & 1) left += tree[l++];
      if (r & 1) right = tree[--r] + right;
    }
    const double sum = left + right;
    const int64_t* nans = specials;
    const int64_t* pinfs = specials + (n + 1);
    const int64_t* ninfs = specials + 2 * (n + 1);
    const bool nan = nans[e] > nans[s], pinf = pinfs[e] > pinfs[s], ninf = ninfs[e] > ninfs[s];
    if (nan || (pinf && ninf)) {
      out[i] = __longlong_as_double(0x7FF8000000000000LL);
    } else if (pinf || ninf) {
      out[i] = pinf ? INFINITY : -INFINITY;
    } else {
      out[i] = avg ? sum / static_cast<double>(c) : sum;
    }
  }
}

Result<DeviceColumnPtr> FloatSum(const WindowCall& call, const Arg& a, const DeviceBuffer& cnt,
                                 const Frames& frames, int64_t n, const Stream& stream) {
  if (call.type.id != TypeId::kFloat64) {
    return Status::Internal("window " + call.name + " of floats typed " + call.type.ToString());
  }
  const cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer tree, keys::Scratch(2 * n * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer specials, keys::Scratch(3 * (n + 1) * 8, stream));
  FloatPartsKernel<<<GridFor(n + 1), kBlockThreads, 0, s>>>(a, n, tree.data_as<double>(),
                                                            specials.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window float parts"));
  for (int k = 0; k < 3; ++k) {
    TANDEM_RETURN_NOT_OK(
        ExclusiveSumInPlace(specials.data_as<int64_t>() + k * (n + 1), n + 1, stream));
  }
  TANDEM_RETURN_NOT_OK(BuildTree(tree.data_as<double>(), n, AddDoubles{}, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, keys::Scratch(n * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer valid, keys::Scratch(n, stream));
  FloatFrameKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      call.aggregate == AggregateKind::kAvg, tree.data_as<double>(), cnt.data_as<int64_t>(),
      specials.data_as<int64_t>(), frames.start.data_as<int64_t>(), frames.end.data_as<int64_t>(),
      n, out.data_as<double>(), valid.data_as<uint8_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window float sums"));
  return FixedResult(DataType::Float64(), std::move(out), valid.data_as<uint8_t>(), n, stream);
}

// ---- MIN / MAX ----------------------------------------------------------------------------

// Whether position x's value is strictly better than position y's (both non-NULL).
struct KeyBetter {
  const i128* keys;
  bool is_min;
  __host__ __device__ bool operator()(int64_t x, int64_t y) const {
    return is_min ? keys[x] < keys[y] : keys[x] > keys[y];
  }
};

struct StringBetter {
  const int64_t* offsets;
  const uint8_t* chars;
  const int64_t* perm;
  bool is_min;
  __host__ __device__ bool operator()(int64_t x, int64_t y) const {
    const int64_t rx = perm[x], ry = perm[y];
    const int64_t x0 = offsets[rx], xl = offsets[rx + 1] - x0;
    const int64_t y0 = offsets[ry], yl = offsets[ry + 1] - y0;
    const int64_t common = xl < yl ? xl : yl;
    int c = 0;
    for (int64_t k = 0; k < common && c == 0; ++k) {
      c = static_cast<int>(chars[x0 + k]) - static_cast<int>(chars[y0 + k]);
    }
    if (c == 0) c = xl < yl ? -1 : (xl > yl ? 1 : 0);
    return is_min ? c < 0 : c > 0;
  }
};

// The CPU's pick: -1 is "none" (NULLs never win); `a` (earlier in the combination) keeps ties.
template <typename Better>
struct Pick {
  Better better;
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    return better(b, a) ? b : a;
  }
};

__global__ void FixedKeysKernel(Arg a, int64_t n, i128* keys) {
  TANDEM_GRID_LOOP(i, n) {
    if (!ValidAt(a, i)) {
      keys[i] = 0;
    } else if (a.code == Code::kF32 || a.code == Code::kF64) {
      keys[i] = static_cast<i128>(OrderedFloatKey(FloatAt(a, i)));
    } else {
      keys[i] = ExactAt(a, i);
    }
  }
}

// Candidates: the position itself when its value is not NULL, else -1.
__global__ void CandidatesKernel(Arg a, int64_t n, int64_t* out) {
  TANDEM_GRID_LOOP(i, n) out[i] = ValidAt(a, i) ? i : -1;
}

// rows[i] = the input row of frame i's best position (running bests end at fe - 1), or -1.
__global__ void RunningBestRowsKernel(const int64_t* running, const int64_t* perm,
                                      const int64_t* fs, const int64_t* fe, int64_t n,
                                      int64_t* rows) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t best = fe[i] > fs[i] ? running[fe[i] - 1] : -1;
    rows[i] = best < 0 ? -1 : perm[best];
  }
}

template <typename Better>
__global__ void TreeBestRowsKernel(Pick<Better> pick, const int64_t* tree, const int64_t* perm,
                                   const int64_t* fs, const int64_t* fe, int64_t n, int64_t* rows) {
  TANDEM_GRID_LOOP(i, n) {
    int64_t best = -1;
    for (int64_t l = fs[i] + n, r = fe[i] + n; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = pick(best, tree[l++]);
      if (r & 1) best = pick(best, tree[--r]);
    }
    rows[i] = best < 0 ? -1 : perm[best];
  }
}

// Input rows of each frame's best value (-1: none).
template <typename Better>
Result<DeviceBuffer> BestRows(Better better, const Arg& a, const Layout& L, const Frames& frames,
                              const Stream& stream) {
  const int64_t n = L.n;
  const cudaStream_t s = CudaStream(stream);
  const int64_t* fs = frames.start.data_as<int64_t>();
  const int64_t* fe = frames.end.data_as<int64_t>();
  const int64_t* ps = L.part_start.data_as<int64_t>();
  const Pick<Better> pick{better};
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer rows, keys::Scratch(n * 8, stream));
  bool anchored = false;
  try {
    PoolThrustAllocator alloc(stream);
    anchored = thrust::equal(thrust::cuda::par(alloc).on(s), fs, fs + n, ps);
    if (anchored) {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer candidates, keys::Scratch(n * 8, stream));
      CandidatesKernel<<<GridFor(n), kBlockThreads, 0, s>>>(a, n, candidates.data_as<int64_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window min/max candidates"));
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer running, keys::Scratch(n * 8, stream));
      // Running best per partition: positions of one partition share part_start.
      thrust::inclusive_scan_by_key(thrust::cuda::par_nosync(alloc).on(s), ps, ps + n,
                                    candidates.data_as<int64_t>(), running.data_as<int64_t>(),
                                    thrust::equal_to<int64_t>(), pick);
      RunningBestRowsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
          running.data_as<int64_t>(), L.perm(), fs, fe, n, rows.data_as<int64_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window running min/max"));
      return std::move(rows);
    }
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("GPU out of memory in window MIN/MAX");
  } catch (const std::exception& e) {
    return Status::IOError(std::string("CUDA window MIN/MAX: ") + e.what());
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer tree, keys::Scratch(2 * n * 8, stream));
  CandidatesKernel<<<GridFor(n), kBlockThreads, 0, s>>>(a, n, tree.data_as<int64_t>() + n);
  TANDEM_RETURN_NOT_OK(LaunchStatus("window min/max leaves"));
  TANDEM_RETURN_NOT_OK(BuildTree(tree.data_as<int64_t>(), n, pick, stream));
  TreeBestRowsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(pick, tree.data_as<int64_t>(), L.perm(),
                                                          fs, fe, n, rows.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window min/max queries"));
  return std::move(rows);
}

Result<DeviceColumnPtr> MinMax(const WindowCall& call, const DeviceColumn& arg, const Arg& a,
                               const Layout& L, const Frames& frames, const Stream& stream) {
  const bool is_min = call.aggregate == AggregateKind::kMin;
  DeviceBuffer rows;
  if (a.code == Code::kString) {
    TANDEM_ASSIGN_OR_RAISE(
        rows, BestRows(StringBetter{a.offsets, a.chars, a.perm, is_min}, a, L, frames, stream));
  } else if (a.code == Code::kOther) {
    return Status::Unsupported("GPU window: " + call.name + " over " + arg.type.ToString());
  } else {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer keys, keys::Scratch(L.n * 16, stream));
    FixedKeysKernel<<<GridFor(L.n), kBlockThreads, 0, CudaStream(stream)>>>(a, L.n,
                                                                            keys.data_as<i128>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("window min/max keys"));
    TANDEM_ASSIGN_OR_RAISE(
        rows, BestRows(KeyBetter{keys.data_as<const i128>(), is_min}, a, L, frames, stream));
  }
  return GatherColumn(arg, rows.data_as<const int64_t>(), L.n, stream);
}

}  // namespace

Result<DeviceColumnPtr> Aggregate(const WindowCall& call, const Layout& L, const Frames& frames,
                                  const DeviceBatch& input, GpuContext& ctx) {
  const Stream& stream = *ctx.stream;
  const int64_t n = L.n;
  const AggregateKind kind = call.aggregate;
  const int64_t* fs = frames.start.data_as<int64_t>();
  const int64_t* fe = frames.end.data_as<int64_t>();
  if (kind == AggregateKind::kCountStar) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, keys::Scratch(n * 8, stream));
    FrameCountsKernel<<<GridFor(n), kBlockThreads, 0, CudaStream(stream)>>>(nullptr, fs, fe, n,
                                                                            out.data_as<int64_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("window count(*)"));
    return CountResult(call.type, std::move(out), n, stream);
  }
  if (call.args.empty()) {
    return Status::Invalid(std::string(AggregateKindName(kind)) + " OVER needs an argument");
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr arg,
                         keys::ColumnOf(*call.args[0], input, ctx.eval, stream));
  const Arg a = ArgOf(*arg, L);
  if (kind == AggregateKind::kMin || kind == AggregateKind::kMax) {
    return MinMax(call, *arg, a, L, frames, stream);
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer cnt, PrefixCounts(a, n, stream));
  if (kind == AggregateKind::kCount) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, keys::Scratch(n * 8, stream));
    FrameCountsKernel<<<GridFor(n), kBlockThreads, 0, CudaStream(stream)>>>(
        cnt.data_as<int64_t>(), fs, fe, n, out.data_as<int64_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("window count"));
    return CountResult(call.type, std::move(out), n, stream);
  }
  if (kind != AggregateKind::kSum && kind != AggregateKind::kAvg) {
    return Status::Unsupported(std::string(AggregateKindName(kind)) + " as a window function");
  }
  const DataType& t = arg->type;
  if (t.is_floating()) return FloatSum(call, a, cnt, frames, n, stream);
  if (!t.is_integer() && !t.is_decimal()) {
    return Status::Invalid(std::string("cannot ") + AggregateKindName(kind) + " " + t.ToString());
  }
  return ExactSum(call, a, t, cnt, frames, n, stream);
}

}  // namespace tandem::gpu::window
