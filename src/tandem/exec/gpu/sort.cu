// GPU Sort and TopN (gpu_operators.h): the twins of exec/cpu/sort.cc and topn.cc.
//
// A permutation of row indices is sorted key by key, least significant key first, each pass a
// stable sort, so ties keep the order of the less significant keys and finally the input order.
// Fixed-width keys are mapped to unsigned integers whose order is the SQL order (the CPU's
// normalized key mapping of sort_keys.cc: sign bit flipped, floats with -0.0 == 0.0 and one NaN
// above +inf, DESC by complementing) and sorted with CUB's stable radix sort; the NULL flag rides
// in the bit above the value when it fits, else gets its own 1-bit pass. 128-bit decimals take
// two 64-bit passes. String keys are sorted by a Thrust stable merge sort with a comparator over
// the offsets and bytes (bytewise, unsigned, like std::string_view::compare), NULLs placed by
// the same comparator. The rows are gathered once at the end.
//
// TopN sorts fully, then gathers only rows [offset, offset + limit) of the permutation.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <new>
#include <stdexcept>

#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/gather.h"

namespace tandem::gpu {
namespace {

__device__ inline bool ValidAt(const uint8_t* bits, int64_t i) {
  return bits == nullptr || ((bits[i >> 3] >> (i & 7)) & 1);
}

// Order-preserving unsigned images of the stored values (as the CPU's sort_keys.cc).
struct SignFlip8 {
  __device__ uint32_t operator()(int8_t x) const { return static_cast<uint8_t>(x) ^ 0x80u; }
};
struct SignFlip16 {
  __device__ uint32_t operator()(int16_t x) const { return static_cast<uint16_t>(x) ^ 0x8000u; }
};
struct SignFlip32 {
  __device__ uint32_t operator()(int32_t x) const { return static_cast<uint32_t>(x) ^ 0x80000000u; }
};
struct SignFlip64 {
  __device__ uint64_t operator()(int64_t x) const {
    return static_cast<uint64_t>(x) ^ 0x8000000000000000ull;
  }
};
struct BoolBit {
  __device__ uint32_t operator()(uint8_t x) const { return x != 0; }
};
template <typename T>
struct AsUnsigned {
  __device__ uint64_t operator()(T x) const { return static_cast<uint64_t>(x); }
};
struct OrderedFloat {
  __device__ uint32_t operator()(float f) const {
    uint32_t u = f == 0 ? 0u : (f != f ? 0x7FC00000u : __float_as_uint(f));
    return (u >> 31) ? ~u : (u | (1u << 31));
  }
};
struct OrderedDouble {
  __device__ uint64_t operator()(double d) const {
    uint64_t u =
        d == 0 ? 0ull
               : (d != d ? 0x7FF8000000000000ull : static_cast<uint64_t>(__double_as_longlong(d)));
    return (u >> 63) ? ~u : (u | (1ull << 63));
  }
};
struct Decimal128Low {
  __device__ uint64_t operator()(const ulonglong2& x) const { return x.x; }
};
struct Decimal128High {
  __device__ uint64_t operator()(const ulonglong2& x) const { return x.y ^ 0x8000000000000000ull; }
};

struct KeyPass {
  int value_bits;    // bits of the mapped value
  bool null_in_key;  // the NULL flag sits at bit value_bits
  bool descending;
  bool nulls_first;
};

// keys[i] = the sort key of row perm[i]: the mapped value (0 for NULL rows, so NULLs stay in
// their current order), complemented for DESC, with the NULL flag above it when asked.
template <typename Src, typename Key, typename Map>
__global__ void EncodeKeysKernel(const Src* values, const uint8_t* validity, const int64_t* perm,
                                 Key* keys, int64_t n, KeyPass pass, Map map) {
  const Key mask = pass.value_bits >= static_cast<int>(8 * sizeof(Key))
                       ? ~Key{0}
                       : static_cast<Key>((Key{1} << pass.value_bits) - 1);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t row = perm[i];
    const bool valid = ValidAt(validity, row);
    Key key = 0;
    if (valid) {
      key = static_cast<Key>(map(values[row])) & mask;
      if (pass.descending) key ^= mask;
    }
    if (pass.null_in_key) {
      const bool high = valid == pass.nulls_first;  // NULLs FIRST: valid rows get the 1
      key |= static_cast<Key>(high) << pass.value_bits;
    }
    keys[i] = key;
  }
}

// A 1-bit key that orders NULLs before or after the other rows.
__global__ void NullKeysKernel(const uint8_t* validity, const int64_t* perm, uint8_t* keys,
                               int64_t n, bool nulls_first) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = ValidAt(validity, perm[i]) == nulls_first ? 1 : 0;
  }
}

__global__ void IotaKernel(int64_t* out, int64_t n) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = i;
}

// Strict weak order of rows by one string key, NULLs placed per the key's options.
struct StringRowLess {
  const int64_t* offsets;
  const uint8_t* bytes;
  const uint8_t* validity;
  bool descending;
  bool nulls_first;

  __device__ bool operator()(int64_t a, int64_t b) const {
    const bool va = ValidAt(validity, a), vb = ValidAt(validity, b);
    if (!va || !vb) {
      if (!va && !vb) return false;
      return va ? !nulls_first : nulls_first;
    }
    const int64_t a0 = offsets[a], alen = offsets[a + 1] - a0;
    const int64_t b0 = offsets[b], blen = offsets[b + 1] - b0;
    const int64_t common = alen < blen ? alen : blen;
    int c = 0;
    for (int64_t i = 0; i < common && c == 0; ++i) {
      c = static_cast<int>(bytes[a0 + i]) - static_cast<int>(bytes[b0 + i]);
    }
    if (c == 0) c = alen < blen ? -1 : (alen > blen ? 1 : 0);
    return descending ? c > 0 : c < 0;
  }
};

// The permutation being sorted, and the key buffers the radix passes use.
struct SortState {
  const Stream* stream;
  int64_t n;
  cub::DoubleBuffer<int64_t> perm;
  DeviceBuffer perm_a, perm_b, keys_a, keys_b;  // keys: n * 8 bytes each
};

template <typename Key>
Status RadixPass(SortState& st, int end_bit) {
  cub::DoubleBuffer<Key> keys(st.keys_a.data_as<Key>(), st.keys_b.data_as<Key>());
  const cudaStream_t s = CudaStream(*st.stream);
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, st.perm, st.n, 0, end_bit, s),
      "radix sort"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         DeviceBuffer::Allocate(static_cast<int64_t>(temp_bytes), *st.stream));
  return CudaStatus(
      cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys, st.perm, st.n, 0, end_bit, s),
      "radix sort");
}

template <typename Src, typename Key, typename Map>
Status ValuePass(SortState& st, const DeviceColumn& col, const SortKey& key, int value_bits,
                 bool null_in_key, Map map) {
  const KeyPass pass{value_bits, null_in_key, !key.ascending, key.nulls_first};
  EncodeKeysKernel<<<GridFor(st.n), kBlockThreads, 0, CudaStream(*st.stream)>>>(
      col.values.data_as<const Src>(), col.validity.data_as<const uint8_t>(), st.perm.Current(),
      st.keys_a.data_as<Key>(), st.n, pass, map);
  TANDEM_RETURN_NOT_OK(LaunchStatus("encode sort keys"));
  return RadixPass<Key>(st, value_bits + (null_in_key ? 1 : 0));
}

Status NullPass(SortState& st, const DeviceColumn& col, const SortKey& key) {
  NullKeysKernel<<<GridFor(st.n), kBlockThreads, 0, CudaStream(*st.stream)>>>(
      col.validity.data_as<const uint8_t>(), st.perm.Current(), st.keys_a.data_as<uint8_t>(), st.n,
      key.nulls_first);
  TANDEM_RETURN_NOT_OK(LaunchStatus("encode null keys"));
  return RadixPass<uint8_t>(st, 1);
}

// Values of up to 32 bits: one pass, NULL flag included. Wider: value pass, then a NULL pass.
template <typename Src, typename Map>
Status NarrowKey(SortState& st, const DeviceColumn& col, const SortKey& key, int bits, Map map) {
  const bool nulls = col.null_count > 0 && col.has_validity();
  if (bits + (nulls ? 1 : 0) <= 32) return ValuePass<Src, uint32_t>(st, col, key, bits, nulls, map);
  return ValuePass<Src, uint64_t>(st, col, key, bits, nulls, map);
}

template <typename Src, typename Map>
Status WideKey(SortState& st, const DeviceColumn& col, const SortKey& key, Map map) {
  TANDEM_RETURN_NOT_OK((ValuePass<Src, uint64_t>(st, col, key, 64, false, map)));
  if (col.null_count > 0 && col.has_validity()) return NullPass(st, col, key);
  return Status::OK();
}

Status StringKey(SortState& st, const DeviceColumn& col, const SortKey& key) {
  const StringRowLess less{col.values.data_as<const int64_t>(), col.data.data_as<const uint8_t>(),
                           col.null_count > 0 ? col.validity.data_as<const uint8_t>() : nullptr,
                           !key.ascending, key.nulls_first};
  try {
    PoolThrustAllocator alloc(*st.stream);
    int64_t* rows = st.perm.Current();
    thrust::stable_sort(thrust::cuda::par_nosync(alloc).on(CudaStream(*st.stream)), rows,
                        rows + st.n, less);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("GPU out of memory sorting string keys of " + std::to_string(st.n) +
                               " rows");
  } catch (const std::exception& e) {
    return Status::IOError(std::string("CUDA string sort: ") + e.what());
  }
  return Status::OK();
}

Status SortByKey(SortState& st, const DeviceColumn& col, const SortKey& key) {
  switch (col.type.id) {
    case TypeId::kBool:
      return NarrowKey<uint8_t>(st, col, key, 1, BoolBit{});
    case TypeId::kInt8:
      return NarrowKey<int8_t>(st, col, key, 8, SignFlip8{});
    case TypeId::kUInt8:
      return NarrowKey<uint8_t>(st, col, key, 8, AsUnsigned<uint8_t>{});
    case TypeId::kInt16:
      return NarrowKey<int16_t>(st, col, key, 16, SignFlip16{});
    case TypeId::kUInt16:
      return NarrowKey<uint16_t>(st, col, key, 16, AsUnsigned<uint16_t>{});
    case TypeId::kInt32:
    case TypeId::kDate32:
      return NarrowKey<int32_t>(st, col, key, 32, SignFlip32{});
    case TypeId::kUInt32:
      return NarrowKey<uint32_t>(st, col, key, 32, AsUnsigned<uint32_t>{});
    case TypeId::kFloat32:
      return NarrowKey<float>(st, col, key, 32, OrderedFloat{});
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return WideKey<int64_t>(st, col, key, SignFlip64{});
    case TypeId::kUInt64:
      return WideKey<uint64_t>(st, col, key, AsUnsigned<uint64_t>{});
    case TypeId::kFloat64:
      return WideKey<double>(st, col, key, OrderedDouble{});
    case TypeId::kDecimal:
      if (!col.type.is_wide_decimal()) return WideKey<int64_t>(st, col, key, SignFlip64{});
      TANDEM_RETURN_NOT_OK(
          (ValuePass<ulonglong2, uint64_t>(st, col, key, 64, false, Decimal128Low{})));
      return WideKey<ulonglong2>(st, col, key, Decimal128High{});
    case TypeId::kString:
    case TypeId::kBinary:
      return StringKey(st, col, key);
  }
  return Status::Internal("GPU sort: unexpected key type " + col.type.ToString());
}

// The input rows in sorted order: a device array of input.num_rows row indices.
Result<DeviceBuffer> SortedPermutation(const std::vector<SortKey>& keys, const DeviceBatch& input,
                                       const Stream& stream) {
  SortState st;
  st.stream = &stream;
  st.n = input.num_rows;
  TANDEM_ASSIGN_OR_RAISE(st.perm_a, DeviceBuffer::Allocate(st.n * 8, stream));
  if (st.n == 0) return std::move(st.perm_a);
  IotaKernel<<<GridFor(st.n), kBlockThreads, 0, CudaStream(stream)>>>(st.perm_a.data_as<int64_t>(),
                                                                      st.n);
  TANDEM_RETURN_NOT_OK(LaunchStatus("iota"));
  if (st.n == 1) return std::move(st.perm_a);
  TANDEM_ASSIGN_OR_RAISE(st.perm_b, DeviceBuffer::Allocate(st.n * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(st.keys_a, DeviceBuffer::Allocate(st.n * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(st.keys_b, DeviceBuffer::Allocate(st.n * 8, stream));
  st.perm = cub::DoubleBuffer<int64_t>(st.perm_a.data_as<int64_t>(), st.perm_b.data_as<int64_t>());
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const DeviceColumn& col = *input.columns[it->expr->column_index];
    TANDEM_RETURN_NOT_OK(SortByKey(st, col, *it));
  }
  return st.perm.Current() == st.perm_a.data_as<int64_t>() ? std::move(st.perm_a)
                                                           : std::move(st.perm_b);
}

Status CheckSortKeys(const PlanNode& node, const DeviceBatch& input) {
  const std::string why = SortUnsupported(node);
  if (!why.empty()) return Status::Unsupported("GPU sort: " + why);
  for (const SortKey& key : node.sort_keys) {
    const int c = key.expr->column_index;
    if (c >= static_cast<int>(input.columns.size())) {
      return Status::Invalid("GPU sort: key column " + std::to_string(c) + " of " +
                             std::to_string(input.columns.size()));
    }
  }
  return Status::OK();
}

}  // namespace

Result<DeviceBatchPtr> Sort(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  TANDEM_RETURN_NOT_OK(CheckSortKeys(node, input));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer perm, SortedPermutation(node.sort_keys, input, *ctx.stream));
  GatherOptions options;
  options.full_permutation = true;
  TANDEM_ASSIGN_OR_RAISE(auto out, GatherBatch(input, RowSource{perm.data_as<const int64_t>(), 0},
                                               input.num_rows, options, *ctx.stream));
  out->schema = node.schema;
  return out;
}

Result<DeviceBatchPtr> TopN(const PlanNode& limit_node, const PlanNode& sort_node,
                            const DeviceBatch& input, GpuContext& ctx) {
  TANDEM_RETURN_NOT_OK(CheckSortKeys(sort_node, input));
  const int64_t n = input.num_rows;
  const int64_t begin = std::min(std::max<int64_t>(limit_node.offset, 0), n);
  const int64_t end = limit_node.limit < 0 ? n : begin + std::min(limit_node.limit, n - begin);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer perm,
                         SortedPermutation(sort_node.sort_keys, input, *ctx.stream));
  GatherOptions options;
  options.indices_nonnegative = true;
  TANDEM_ASSIGN_OR_RAISE(
      auto out, GatherBatch(input, RowSource{perm.data_as<const int64_t>() + begin, 0}, end - begin,
                            options, *ctx.stream));
  out->schema = limit_node.schema;
  return out;
}

}  // namespace tandem::gpu
