// Parquet straight into device memory, decoded on the GPU. Host threads read each column chunk,
// walk its pages (headers, CRC, decompression), copy the values sections into pinned staging and
// decode what is cheap and sequential (definition levels, run headers of dictionary indexes,
// dictionary pages); GPU kernels decode the values. The calling thread uploads and decodes each
// chunk, in order, on `stream` while the pool stages the next ones.
//
// The result equals gpu::ToDevice(ReadParquet(path, options)): same columns, order, types,
// values and NULLs, row groups in file order, row-group pruning by options.predicates, partition
// columns of hive layouts, the same errors. Chunks the kernels do not handle (DELTA_* and
// BYTE_STREAM_SPLIT encodings, INT96, byte-array and fixed-length decimals, FLOAT16, fixed
// binary, dictionary-encoded pages that turn out damaged) are decoded on the host and copied.
// options.per_row_group is not supported here (Unsupported).
#pragma once

#include <cstdint>
#include <string>

#include "tandem/gpu/device_column.h"
#include "tandem/io/parquet/dataset.h"

namespace tandem::parquet {

// Where the column chunks were decoded, and where the read spent its time: whether the host
// threads (reading, decompressing, staging) or the GPU (uploads, kernels) held the scan back.
struct DeviceDecodeCounts {
  int64_t gpu_chunks = 0;                // decoded by the GPU kernels
  int64_t gpu_decompressed_chunks = 0;   // of those, decompressed and parsed on the GPU too
  int64_t gpu_decompress_fallbacks = 0;  // left compressed for the GPU, decoded on the host after
                                         // all (nvCOMP or the GPU page parse refused them)
  std::string first_fallback_reason;     // the first such refusal, in its words
  int64_t host_chunks = 0;     // decoded on the host and copied (unsupported encodings or types)
  double stage_ms = 0;         // host threads' time staging chunks, summed over the threads
  double wait_stage_ms = 0;    // the uploading thread's time waiting for the next staged chunk
  double wait_gpu_ms = 0;      // its time waiting for the stream (uploads and decode kernels)
  int64_t uploaded_bytes = 0;  // pinned bytes uploaded (values sections and their aux data)
  // Requests the pinned pool could not serve from what it held during the read (fresh
  // cudaHostAllocs, slow: the pool growing by a block, or a buffer past its maximum).
  int64_t pinned_misses = 0;
  int64_t pinned_miss_bytes = 0;  // bytes they pinned (a new block of the pool: its whole size)
};

// `stats` and `counts` may be null. Without CUDA: Unsupported("no CUDA device").
Result<gpu::DeviceBatchPtr> ReadParquetToDevice(const std::string& path, const ReadOptions& options,
                                                ReadStats* stats, const gpu::Stream& stream,
                                                DeviceDecodeCounts* counts = nullptr);

}  // namespace tandem::parquet
