// Device half of GPU Parquet decoding: a StagedChunk (chunk_staging.h) becomes a DeviceColumn.
// Fixed-width and boolean columns take one kernel (one thread per row: rank among the valid rows
// from the validity bitmap, binary search of the run table, bit extraction, dictionary gather or
// PLAIN conversion); strings take a lengths kernel, a CUB scan for the offsets and a copy kernel.
// Without CUDA every function returns Unsupported("no CUDA device").
#pragma once

#include <vector>

#include "tandem/gpu/device_column.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"

namespace tandem::parquet::gpu_decode {

// Uploads the chunk's staging and auxiliary buffers (pinned; they must stay alive until `stream`
// has passed this point) and decodes them on `stream`. A value that only the data can show to be
// bad (dictionary index out of range, timestamp overflow) sets *device_error_flag (device memory)
// to 1; the caller then decodes the chunk on the host, which reports the error. String chunks
// synchronize the stream once (to size the bytes buffer).
Result<gpu::DeviceColumnPtr> DecodeOnDevice(const StagedChunk& chunk, int32_t* device_error_flag,
                                            const gpu::Stream& stream);

// Decodes chunks staged with deferred decompression (StagedChunk::deferred) together: their
// compressed pages in one nvCOMP batch per codec, all their pages parsed in one pass
// (page_parse_kernels.h), then each decoded as DecodeOnDevice does; two synchronizations for the
// whole group (string chunks one more each). One entry per chunk: its column, or the error that
// sends it to the host (Invalid where nvCOMP or the page parse refused it; a failed batch is
// retried chunk by chunk, so that one damaged chunk does not send the others to the host). The
// staged chunks must stay alive until `stream` has passed this point.
std::vector<Result<gpu::DeviceColumnPtr>> DecodeDeferredOnDevice(
    const std::vector<const StagedChunk*>& chunks, const std::vector<int32_t*>& device_error_flags,
    const gpu::Stream& stream);

// Concatenates columns of one type, rows in order (the parts may be released afterwards).
Result<gpu::DeviceColumnPtr> ConcatColumns(const std::vector<gpu::DeviceColumnPtr>& parts,
                                           const DataType& type, const gpu::Stream& stream);

// A column of `type` without rows (strings: a single zero offset).
Result<gpu::DeviceColumnPtr> EmptyColumn(const DataType& type, const gpu::Stream& stream);

}  // namespace tandem::parquet::gpu_decode
