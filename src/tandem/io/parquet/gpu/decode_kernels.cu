// Parquet decoding kernels (decode_kernels.h). Every kernel is a grid-stride loop with 64-bit
// indexes. A dense value (the d-th non-NULL value of a chunk) is found by a binary search of the
// run table; a row's dense index is its rank among the valid rows: the exclusive prefix count of
// valid rows per 32-row word (CUB scan) plus a popcount inside the word.
#include <cstring>
#include <cub/device/device_scan.cuh>

#include "tandem/gpu/cuda_util.cuh"
#include "tandem/io/parquet/gpu/decode_kernels.h"
#include "tandem/io/parquet/gpu/page_decompress.h"
#include "tandem/io/parquet/gpu/page_parse.h"
#include "tandem/io/parquet/gpu/page_parse_kernels.h"

namespace tandem::parquet::gpu_decode {
namespace {

using gpu::CudaStatus;
using gpu::CudaStream;
using gpu::DeviceBuffer;
using gpu::DeviceColumn;
using gpu::DeviceColumnPtr;
using gpu::GridFor;
using gpu::kBlockThreads;
using gpu::LaunchStatus;

#define H5_GRID_LOOP(i, n)                                                               \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// Device pointers of one staged chunk, passed to kernels by value.
struct ChunkView {
  const uint8_t* staging = nullptr;
  const ValueRun* runs = nullptr;
  int64_t num_runs = 0;
  const uint32_t* validity = nullptr;  // bitmap as 32-bit words (padded), or null: all valid
  const int64_t* word_rank = nullptr;  // valid rows before each 32-row word
  const uint8_t* dictionary_values = nullptr;
  const int64_t* dictionary_offsets = nullptr;
  const uint8_t* dictionary_bytes = nullptr;
  int64_t dictionary_size = 0;
  const int64_t* plain_positions = nullptr;
  int64_t num_rows = 0;
  int64_t num_valid = 0;
  Conversion conversion = Conversion::kCopy;
  int physical_width = 0;
  bool values_are_indexes = false;  // booleans: the hybrid-encoded values are the output
  int32_t* error = nullptr;
};

__device__ int64_t FindRun(const ChunkView& c, int64_t d) {
  int64_t lo = 0, hi = c.num_runs;  // runs[lo].first <= d < runs[hi].first
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (c.runs[mid].first <= d) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The hybrid-encoded value (dictionary index or boolean) of dense value d in run r.
__device__ uint32_t HybridValue(const ChunkView& c, const ValueRun& run, int64_t d) {
  if (run.kind == RunKind::kRepeat) return static_cast<uint32_t>(run.payload);
  return PackedBits(c.staging, run.payload + (d - run.first) * run.bit_width, run.bit_width);
}

// Row -> dense index; false for a NULL row.
__device__ bool DenseIndex(const ChunkView& c, int64_t row, int64_t* d) {
  if (c.validity == nullptr) {
    *d = row;
    return true;
  }
  const uint32_t word = c.validity[row >> 5];
  const uint32_t bit = static_cast<uint32_t>(row & 31);
  if (((word >> bit) & 1u) == 0) return false;
  *d = c.word_rank[row >> 5] + __popc(word & ((1u << bit) - 1u));
  return true;
}

// Valid rows before `row` (row may equal num_rows).
__device__ int64_t RankBefore(const ChunkView& c, int64_t row) {
  if (c.validity == nullptr) return row;
  if (row >= c.num_rows) return c.num_valid;
  const uint32_t word = c.validity[row >> 5];
  return c.word_rank[row >> 5] + __popc(word & ((1u << (row & 31)) - 1u));
}

template <typename T>
__device__ T Load(const uint8_t* p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

template <typename Out>
__device__ Out ConvertPlain(const ChunkView& c, const uint8_t* src) {
  switch (c.conversion) {
    case Conversion::kInt32ToInt8:
    case Conversion::kInt32ToInt16:
    case Conversion::kInt32ToInt64:
    case Conversion::kInt32ToInt128:
      return static_cast<Out>(static_cast<__int128>(Load<int32_t>(src)));
    case Conversion::kInt64ToInt128:
      return static_cast<Out>(static_cast<__int128>(Load<int64_t>(src)));
    case Conversion::kMillisToMicros: {
      const int64_t v = Load<int64_t>(src);
      if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000) {  // v * 1000 would overflow
        *c.error = 1;
        return Out{};
      }
      return static_cast<Out>(static_cast<__int128>(v * 1000));
    }
    case Conversion::kNanosToMicros: {
      const int64_t v = Load<int64_t>(src);
      const int64_t q = v / 1000;
      return static_cast<Out>(static_cast<__int128>((v % 1000 != 0 && v < 0) ? q - 1 : q));
    }
    default:  // kCopy: same width
      return Load<Out>(src);
  }
}

template <typename Out>
__device__ Out DenseFixed(const ChunkView& c, int64_t d) {
  const ValueRun run = c.runs[FindRun(c, d)];
  if (run.kind == RunKind::kPlain) {
    return ConvertPlain<Out>(c, c.staging + run.payload + (d - run.first) * c.physical_width);
  }
  const uint32_t index = HybridValue(c, run, d);
  if (c.values_are_indexes) return static_cast<Out>(index);
  if (index >= c.dictionary_size) {
    *c.error = 1;
    return Out{};
  }
  return reinterpret_cast<const Out*>(c.dictionary_values)[index];
}

template <typename Out>
__global__ void DecodeFixedKernel(ChunkView c, Out* out) {
  H5_GRID_LOOP(row, c.num_rows) {
    int64_t d;
    out[row] = DenseIndex(c, row, &d) ? DenseFixed<Out>(c, d) : Out{};
  }
}

__global__ void WordPopcounts(const uint32_t* words, int64_t n, int64_t* counts) {
  H5_GRID_LOOP(i, n) { counts[i] = __popc(words[i]); }
}

// Strings, step 1: the length and source of every dense value. source >= 0: staging offset;
// source < 0: dictionary byte offset -(source + 1). lengths[num_valid] is set to 0 for the scan.
__global__ void StringSources(ChunkView c, int64_t* lengths, int64_t* sources) {
  H5_GRID_LOOP(d, c.num_valid + 1) {
    if (d == c.num_valid) {
      lengths[d] = 0;
      continue;
    }
    const ValueRun run = c.runs[FindRun(c, d)];
    if (run.kind == RunKind::kPlain) {
      const int64_t pos = c.plain_positions[run.payload + (d - run.first)];
      sources[d] = pos;
      lengths[d] = Load<uint32_t>(c.staging + pos - 4);
      continue;
    }
    const uint32_t index = HybridValue(c, run, d);
    if (index >= c.dictionary_size) {
      *c.error = 1;
      sources[d] = -1;
      lengths[d] = 0;
      continue;
    }
    const int64_t begin = c.dictionary_offsets[index];
    sources[d] = -begin - 1;
    lengths[d] = c.dictionary_offsets[index + 1] - begin;
  }
}

// Strings, step 3: copy each dense value's bytes to its offset.
__global__ void CopyStrings(ChunkView c, const int64_t* sources, const int64_t* dense_offsets,
                            uint8_t* out) {
  H5_GRID_LOOP(d, c.num_valid) {
    const int64_t s = sources[d];
    const uint8_t* src = s >= 0 ? c.staging + s : c.dictionary_bytes + (-s - 1);
    const int64_t begin = dense_offsets[d];
    const int64_t len = dense_offsets[d + 1] - begin;
    uint8_t* dst = out + begin;
    for (int64_t k = 0; k < len; ++k) dst[k] = src[k];
  }
}

// Strings, step 4: row offsets from dense offsets (NULL rows take the length 0).
__global__ void RowOffsets(ChunkView c, const int64_t* dense_offsets, int64_t* out) {
  H5_GRID_LOOP(row, c.num_rows + 1) { out[row] = dense_offsets[RankBefore(c, row)]; }
}

// Concatenation: bits [0, length) of src (null: all ones) to dst bits [offset, offset + length),
// one thread per destination byte (the bytes at either end keep their other bits).
__global__ void PlaceBits(const uint8_t* src, int64_t length, uint8_t* dst, int64_t offset) {
  const int64_t first_byte = offset >> 3;
  const int64_t last_byte = (offset + length - 1) >> 3;
  H5_GRID_LOOP(k, last_byte - first_byte + 1) {
    const int64_t byte = first_byte + k;
    uint8_t v = dst[byte];
    for (int b = 0; b < 8; ++b) {
      const int64_t bit = byte * 8 + b - offset;
      if (bit < 0 || bit >= length) continue;
      const bool set = src == nullptr || ((src[bit >> 3] >> (bit & 7)) & 1);
      v = set ? static_cast<uint8_t>(v | (1u << b)) : static_cast<uint8_t>(v & ~(1u << b));
    }
    dst[byte] = v;
  }
}

__global__ void ShiftOffsets(const int64_t* src, int64_t count, int64_t shift, int64_t* dst) {
  H5_GRID_LOOP(i, count) { dst[i] = src[i] + shift; }
}

Result<DeviceBuffer> Allocate(int64_t bytes, const gpu::Stream& stream) {
  return DeviceBuffer::Allocate(bytes > 0 ? bytes : 8, stream);
}

// Device copies of the chunk's buffers, kept alive while its kernels are queued.
struct Uploaded {
  DeviceBuffer staging, aux, word_rank;
};

Status RankWords(const gpu::Stream& stream, Uploaded* up, ChunkView* view);

// The view's fields that come from the chunk's description and its uploaded aux buffer (the
// dictionary; the runs, validity and positions too unless the GPU parsed the pages).
void DescribeChunk(const StagedChunk& chunk, int32_t* error, const uint8_t* aux, ChunkView* c) {
  const auto& l = chunk.aux_layout;
  c->runs = reinterpret_cast<const ValueRun*>(aux + l.runs);
  c->num_runs = static_cast<int64_t>(chunk.runs.size());
  c->dictionary_values = aux + l.dictionary_values;
  c->dictionary_offsets = reinterpret_cast<const int64_t*>(aux + l.dictionary_offsets);
  c->dictionary_bytes = aux + l.dictionary_bytes;
  c->dictionary_size = chunk.dictionary_size;
  c->plain_positions = reinterpret_cast<const int64_t*>(aux + l.plain_positions);
  c->num_rows = chunk.num_rows;
  c->num_valid = chunk.num_valid;
  c->conversion = chunk.conversion;
  c->physical_width = chunk.physical_width;
  c->values_are_indexes = chunk.kind == OutputKind::kBool;
  c->error = error;
}

Status Upload(const StagedChunk& chunk, int32_t* error, const gpu::Stream& stream, Uploaded* up,
              ChunkView* view) {
  TANDEM_ASSIGN_OR_RAISE(up->staging, Allocate(chunk.staging_bytes, stream));
  if (chunk.staging_bytes > 0) {
    TANDEM_RETURN_NOT_OK(
        gpu::CopyToDevice(up->staging.data(), chunk.staging, chunk.staging_bytes, stream));
  }
  const auto& l = chunk.aux_layout;
  TANDEM_ASSIGN_OR_RAISE(up->aux, Allocate(l.total, stream));
  TANDEM_RETURN_NOT_OK(gpu::CopyToDevice(up->aux.data(), chunk.aux.data(), l.total, stream));
  const uint8_t* aux = up->aux.data_as<uint8_t>();
  ChunkView& c = *view;
  c.staging = up->staging.data_as<uint8_t>();
  DescribeChunk(chunk, error, aux, &c);
  if (chunk.validity.empty()) return Status::OK();
  c.validity = reinterpret_cast<const uint32_t*>(aux + l.validity);
  return RankWords(stream, up, view);
}

// The valid rows before each 32-row word of c's validity (c.word_rank), kept in up->word_rank.
Status RankWords(const gpu::Stream& stream, Uploaded* up, ChunkView* view) {
  ChunkView& c = *view;
  const int64_t words = (c.num_rows + 31) / 32;
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer counts_buffer, Allocate(words * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(up->word_rank, Allocate(words * 8, stream));
  int64_t* counts = counts_buffer.data_as<int64_t>();
  int64_t* rank = up->word_rank.data_as<int64_t>();
  const cudaStream_t s = CudaStream(stream);
  WordPopcounts<<<GridFor(words), kBlockThreads, 0, s>>>(c.validity, words, counts);
  TANDEM_RETURN_NOT_OK(LaunchStatus("word popcounts"));
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, rank, words, s), "scan size"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp, Allocate(static_cast<int64_t>(temp_bytes), stream));
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, counts, rank, words, s), "scan"));
  c.word_rank = rank;
  return Status::OK();
}

template <typename Out>
Status LaunchFixed(const ChunkView& c, void* out, const gpu::Stream& stream) {
  DecodeFixedKernel<Out>
      <<<GridFor(c.num_rows), kBlockThreads, 0, CudaStream(stream)>>>(c, static_cast<Out*>(out));
  return LaunchStatus("Parquet fixed-width decode");
}

Status DecodeStrings(const ChunkView& c, const gpu::Stream& stream, DeviceColumn* col) {
  const cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer lengths, Allocate((c.num_valid + 1) * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer sources, Allocate(c.num_valid * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer dense_offsets, Allocate((c.num_valid + 1) * 8, stream));
  StringSources<<<GridFor(c.num_valid + 1), kBlockThreads, 0, s>>>(c, lengths.data_as<int64_t>(),
                                                                   sources.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("Parquet string lengths"));
  size_t temp_bytes = 0;
  int64_t* len = lengths.data_as<int64_t>();
  int64_t* off = dense_offsets.data_as<int64_t>();
  TANDEM_RETURN_NOT_OK(
      CudaStatus(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, len, off, c.num_valid + 1, s),
                 "scan size"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp, Allocate(static_cast<int64_t>(temp_bytes), stream));
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, len, off, c.num_valid + 1, s),
      "scan"));
  int64_t total = 0;
  TANDEM_RETURN_NOT_OK(gpu::CopyToHost(&total, off + c.num_valid, 8, stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  TANDEM_ASSIGN_OR_RAISE(col->data, Allocate(total, stream));
  if (c.num_valid > 0) {
    CopyStrings<<<GridFor(c.num_valid), kBlockThreads, 0, s>>>(c, sources.data_as<int64_t>(), off,
                                                               col->data.data_as<uint8_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("Parquet string copy"));
  }
  if (c.validity == nullptr) {
    col->values = std::move(dense_offsets);
    return Status::OK();
  }
  TANDEM_ASSIGN_OR_RAISE(col->values, Allocate((c.num_rows + 1) * 8, stream));
  RowOffsets<<<GridFor(c.num_rows + 1), kBlockThreads, 0, s>>>(c, off,
                                                               col->values.data_as<int64_t>());
  return LaunchStatus("Parquet string offsets");
}

// Decodes the chunk that `c` views (its buffers on the device) into col.
Status DecodeView(const StagedChunk& chunk, const ChunkView& c, const gpu::Stream& stream,
                  DeviceColumn* col) {
  if (c.validity != nullptr) {
    const int64_t bytes = (chunk.num_rows + 7) / 8;
    TANDEM_ASSIGN_OR_RAISE(col->validity, Allocate(bytes, stream));
    TANDEM_RETURN_NOT_OK(gpu::CopyDeviceToDevice(col->validity.data(), c.validity, bytes, stream));
  }
  if (chunk.kind == OutputKind::kStrings) return DecodeStrings(c, stream, col);
  TANDEM_ASSIGN_OR_RAISE(col->values, Allocate(chunk.num_rows * chunk.out_width, stream));
  void* out = col->values.data();
  switch (chunk.out_width) {
    case 1:
      return LaunchFixed<uint8_t>(c, out, stream);
    case 2:
      return LaunchFixed<uint16_t>(c, out, stream);
    case 4:
      return LaunchFixed<uint32_t>(c, out, stream);
    case 8:
      return LaunchFixed<uint64_t>(c, out, stream);
    case 16:
      return LaunchFixed<unsigned __int128>(c, out, stream);
    default:
      return Status::Internal("unexpected value width " + std::to_string(chunk.out_width));
  }
}

Status DecodeChunk(const StagedChunk& chunk, int32_t* error, const gpu::Stream& stream,
                   DeviceColumn* col) {
  Uploaded up;
  ChunkView c;
  TANDEM_RETURN_NOT_OK(Upload(chunk, error, stream, &up, &c));
  return DecodeView(chunk, c, stream, col);
}

// A deferred chunk's device staging: [direct | decompressed | compressed] (chunk_staging.h), the
// direct and compressed bytes uploaded.
Status UploadDeferred(const StagedChunk& chunk, const gpu::Stream& stream, Uploaded* up) {
  const int64_t direct = chunk.direct_bytes;
  const int64_t compressed = chunk.staging_bytes - direct;
  TANDEM_ASSIGN_OR_RAISE(up->staging,
                         Allocate(direct + chunk.decompressed_bytes + compressed, stream));
  uint8_t* dev = up->staging.data_as<uint8_t>();
  if (direct > 0) TANDEM_RETURN_NOT_OK(gpu::CopyToDevice(dev, chunk.staging, direct, stream));
  if (compressed > 0) {
    TANDEM_RETURN_NOT_OK(gpu::CopyToDevice(dev + direct + chunk.decompressed_bytes,
                                           chunk.staging + direct, compressed, stream));
  }
  return Status::OK();
}

// The nvCOMP batch entries of a deferred chunk's compressed pages, in its device staging.
void AppendPages(const StagedChunk& chunk, uint8_t* dev, std::vector<DevicePage>* pages) {
  for (const auto& p : chunk.compressed_pages) {
    DevicePage page;
    page.compressed = dev + chunk.decompressed_bytes + p.from;
    page.host_compressed = chunk.staging + p.from;
    page.compressed_bytes = p.bytes;
    page.out = dev + p.to;
    page.out_bytes = p.out_bytes;
    pages->push_back(page);
  }
}

// Decodes one parsed deferred chunk (its tables in `parsed`) into col.
Status DecodeParsed(const StagedChunk& chunk, int32_t* error, const ParsedChunks& parsed,
                    const ParsedChunk& tables, Uploaded* up, const gpu::Stream& stream,
                    DeviceColumn* col) {
  const auto& l = chunk.aux_layout;
  TANDEM_ASSIGN_OR_RAISE(up->aux, Allocate(l.total, stream));
  TANDEM_RETURN_NOT_OK(gpu::CopyToDevice(up->aux.data(), chunk.aux.data(), l.total, stream));
  ChunkView c;
  c.staging = up->staging.data_as<uint8_t>();
  DescribeChunk(chunk, error, up->aux.data_as<uint8_t>(), &c);
  c.runs = parsed.runs.data_as<ValueRun>() + tables.first_run;
  c.num_runs = tables.num_runs;
  c.plain_positions = parsed.positions.data_as<int64_t>() + tables.first_position;
  c.num_valid = tables.num_valid;
  col->null_count = chunk.num_rows - tables.num_valid;
  if (tables.first_validity_word >= 0) {
    c.validity = parsed.validity.data_as<uint32_t>() + tables.first_validity_word;
    TANDEM_RETURN_NOT_OK(RankWords(stream, up, &c));
  }
  return DecodeView(chunk, c, stream, col);
}

}  // namespace

std::vector<Result<DeviceColumnPtr>> DecodeDeferredOnDevice(
    const std::vector<const StagedChunk*>& chunks, const std::vector<int32_t*>& error_flags,
    const gpu::Stream& stream) {
  const size_t n = chunks.size();
  std::vector<Status> failed(n);  // a chunk's error so far
  std::vector<Uploaded> up(n);
  for (size_t i = 0; i < n; ++i) {
    if (!chunks[i]->on_gpu || !chunks[i]->deferred || chunks[i]->aux.data() == nullptr) {
      failed[i] = Status::Invalid("chunk not staged for GPU decompression");
    } else {
      failed[i] = UploadDeferred(*chunks[i], stream, &up[i]);
    }
  }
  // One nvCOMP batch per codec (a scan's chunks mostly share one). A batch that fails leaves its
  // chunks to be decoded one by one below, so that only the damaged ones go to the host.
  std::vector<bool> alone(n, false);
  std::vector<CompressionCodec> codecs;
  for (size_t i = 0; i < n; ++i) {
    if (failed[i].ok() &&
        std::find(codecs.begin(), codecs.end(), chunks[i]->codec) == codecs.end()) {
      codecs.push_back(chunks[i]->codec);
    }
  }
  for (CompressionCodec codec : codecs) {
    std::vector<DevicePage> pages;
    std::vector<size_t> members;
    for (size_t i = 0; i < n; ++i) {
      if (!failed[i].ok() || chunks[i]->codec != codec) continue;
      AppendPages(*chunks[i], up[i].staging.data_as<uint8_t>(), &pages);
      members.push_back(i);
    }
    if (pages.empty()) continue;
    Status st = DecompressPagesOnGpu(codec, pages, stream);
    if (st.ok()) continue;
    for (size_t i : members) {
      if (members.size() > 1) {
        alone[i] = true;
      } else {
        failed[i] = st;
      }
    }
  }
  std::vector<ChunkPages> inputs;
  std::vector<size_t> parsed_of;  // the chunk of each input
  for (size_t i = 0; i < n; ++i) {
    if (!failed[i].ok() || alone[i]) continue;
    const StagedChunk& chunk = *chunks[i];
    ChunkPages in;
    in.staging = up[i].staging.data_as<uint8_t>();
    in.staging_bytes = up[i].staging.size();
    in.pages = &chunk.page_plans;
    in.column = chunk.parse;
    in.num_rows = chunk.num_rows;
    inputs.push_back(in);
    parsed_of.push_back(i);
  }
  std::vector<Result<DeviceColumnPtr>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.emplace_back(failed[i].ok() ? Status::Internal("column chunk was not decoded") : failed[i]);
  }
  Result<ParsedChunks> parsed = ParseChunksOnDevice(inputs, stream);
  for (size_t k = 0; k < parsed_of.size(); ++k) {
    const size_t i = parsed_of[k];
    if (!parsed.ok()) {
      out[i] = parsed.status();
      continue;
    }
    const ParsedChunk& tables = parsed->chunks[k];
    if (!tables.status.ok()) {
      out[i] = tables.status;
      continue;
    }
    auto col = std::make_shared<DeviceColumn>();
    col->type = chunks[i]->type;
    col->length = chunks[i]->num_rows;
    Status st =
        DecodeParsed(*chunks[i], error_flags[i], *parsed, tables, &up[i], stream, col.get());
    out[i] = st.ok() ? Result<DeviceColumnPtr>(std::move(col)) : Result<DeviceColumnPtr>(st);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!alone[i]) continue;
    out[i] = std::move(DecodeDeferredOnDevice({chunks[i]}, {error_flags[i]}, stream)[0]);
  }
  // The device buffers (staging, tables) are freed stream-ordered, after the kernels that read
  // them.
  return out;
}

Result<DeviceColumnPtr> DecodeOnDevice(const StagedChunk& chunk, int32_t* device_error_flag,
                                       const gpu::Stream& stream) {
  if (!chunk.on_gpu || chunk.aux.data() == nullptr) {
    return Status::Invalid("chunk not staged for the device");
  }
  if (chunk.deferred) {
    return std::move(DecodeDeferredOnDevice({&chunk}, {device_error_flag}, stream)[0]);
  }
  auto col = std::make_shared<DeviceColumn>();
  col->type = chunk.type;
  col->length = chunk.num_rows;
  col->null_count = chunk.num_rows - chunk.num_valid;
  TANDEM_RETURN_NOT_OK(DecodeChunk(chunk, device_error_flag, stream, col.get()));
  return col;
}

Result<DeviceColumnPtr> EmptyColumn(const DataType& type, const gpu::Stream& stream) {
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  TANDEM_ASSIGN_OR_RAISE(col->values, Allocate(8, stream));
  TANDEM_RETURN_NOT_OK(gpu::MemsetDevice(col->values.data(), 0, 8, stream));
  return col;
}

Result<DeviceColumnPtr> ConcatColumns(const std::vector<DeviceColumnPtr>& all_parts,
                                      const DataType& type, const gpu::Stream& stream) {
  std::vector<DeviceColumnPtr> parts;  // row groups without rows add nothing
  for (const auto& p : all_parts) {
    if (p->length > 0) parts.push_back(p);
  }
  if (parts.empty()) return EmptyColumn(type, stream);
  int64_t rows = 0, nulls = 0;
  for (const auto& p : parts) {
    rows += p->length;
    nulls += p->null_count;
  }
  if (parts.size() == 1) {
    if (nulls == 0) parts[0]->validity = DeviceBuffer();  // no nulls: no bitmap, as ToDevice
    return parts[0];
  }
  const cudaStream_t s = CudaStream(stream);
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  col->length = rows;
  col->null_count = nulls;
  if (nulls > 0) {
    TANDEM_ASSIGN_OR_RAISE(col->validity, Allocate((rows + 7) / 8, stream));
    int64_t at = 0;
    for (const auto& p : parts) {
      if (p->length > 0) {
        const uint8_t* src = p->has_validity() ? p->validity.data_as<uint8_t>() : nullptr;
        const int64_t bytes = ((at + p->length - 1) >> 3) - (at >> 3) + 1;
        PlaceBits<<<GridFor(bytes), kBlockThreads, 0, s>>>(src, p->length,
                                                           col->validity.data_as<uint8_t>(), at);
        TANDEM_RETURN_NOT_OK(LaunchStatus("validity concatenation"));
      }
      at += p->length;
    }
  }
  if (!type.is_string_like()) {
    const int64_t width = gpu::DeviceByteWidth(type);
    TANDEM_ASSIGN_OR_RAISE(col->values, Allocate(rows * width, stream));
    int64_t at = 0;
    for (const auto& p : parts) {
      if (p->length > 0) {
        TANDEM_RETURN_NOT_OK(gpu::CopyDeviceToDevice(col->values.data_as<uint8_t>() + at * width,
                                                     p->values.data(), p->length * width, stream));
      }
      at += p->length;
    }
    return col;
  }
  // Strings: each part's byte count is its last offset.
  std::vector<int64_t> bytes(parts.size(), 0);
  for (size_t i = 0; i < parts.size(); ++i) {
    TANDEM_RETURN_NOT_OK(gpu::CopyToHost(
        &bytes[i], parts[i]->values.data_as<int64_t>() + parts[i]->length, 8, stream));
  }
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  int64_t total = 0;
  for (int64_t b : bytes) total += b;
  TANDEM_ASSIGN_OR_RAISE(col->values, Allocate((rows + 1) * 8, stream));
  TANDEM_ASSIGN_OR_RAISE(col->data, Allocate(total, stream));
  int64_t at = 0, byte_at = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    ShiftOffsets<<<GridFor(p->length + 1), kBlockThreads, 0, s>>>(
        p->values.data_as<int64_t>(), p->length + 1, byte_at, col->values.data_as<int64_t>() + at);
    TANDEM_RETURN_NOT_OK(LaunchStatus("offset concatenation"));
    if (bytes[i] > 0) {
      TANDEM_RETURN_NOT_OK(gpu::CopyDeviceToDevice(col->data.data_as<uint8_t>() + byte_at,
                                                   p->data.data(), bytes[i], stream));
    }
    at += p->length;
    byte_at += bytes[i];
  }
  return col;
}

}  // namespace tandem::parquet::gpu_decode
