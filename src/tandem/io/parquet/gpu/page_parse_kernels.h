// Data pages whose bytes are already on the device (decompressed there by nvCOMP, or uploaded as
// stored) turned into the run tables, string positions and validity bitmap that the decode
// kernels read (decode_kernels.h), without the host seeing a page's bytes: each page is parsed
// by one GPU thread with the host staging's own parse (page_parse.h), in two passes (count, then
// write where an exclusive scan of the counts puts each page); the pages of many chunks go in
// one launch of each pass. The host knows only what the page headers say (DevicePagePlan). Flat
// columns, RLE definition levels (the deprecated BIT_PACKED levels stay on the host). The scan's
// GPU decompression (decode_kernels.h) uses it; tests/gpu/page_parse_gpu_test.cc checks it against
// the host staging.
// Without CUDA, ParsePagesOnDevice returns Unsupported("no CUDA device").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/gpu/runtime.h"
#include "tandem/io/parquet/gpu/page_batch.h"
#include "tandem/io/parquet/gpu/page_parse.h"

namespace tandem::parquet::gpu_decode {

// One chunk's pages for ParseChunksOnDevice: its bodies lie in `staging` (device memory).
struct ChunkPages {
  const uint8_t* staging = nullptr;
  int64_t staging_bytes = 0;
  const std::vector<DevicePagePlan>* pages = nullptr;
  DeviceColumnParse column;
  int64_t num_rows = 0;
};

// The tables of several chunks parsed together (the decode kernels' inputs).
struct ParsedChunks {
  gpu::DeviceBuffer runs, positions, validity;
  std::vector<ParsedChunk> chunks;
};

// Parses the pages of every chunk in one count pass, one synchronization and one write pass.
// A chunk whose plans fall outside its staging, whose pages do not add up to its rows, or one of
// whose pages does not parse gets an Invalid status in the host staging's words ("page 3: RLE
// data ends inside a repeated run"); the caller then decodes that chunk on the host, which reports
// the damage as a host read does. The result's error is a CUDA or allocation failure.
Result<ParsedChunks> ParseChunksOnDevice(const std::vector<ChunkPages>& chunks,
                                         const gpu::Stream& stream);

// The tables of one chunk, in device memory.
struct DevicePageTables {
  gpu::DeviceBuffer runs;  // ValueRun[num_runs], sorted by first
  int64_t num_runs = 0;
  gpu::DeviceBuffer positions;  // int64 per PLAIN byte-array value: staging offset of its bytes
  int64_t num_positions = 0;
  gpu::DeviceBuffer validity;  // LSB bitmap of num_rows bits in 32-bit words; empty: all valid
  int64_t num_rows = 0;
  int64_t num_valid = 0;
};

// ParseChunksOnDevice of one chunk, its error as the result's.
Result<DevicePageTables> ParsePagesOnDevice(const uint8_t* staging, int64_t staging_bytes,
                                            const std::vector<DevicePagePlan>& pages,
                                            const DeviceColumnParse& column, int64_t num_rows,
                                            const gpu::Stream& stream);

}  // namespace tandem::parquet::gpu_decode
