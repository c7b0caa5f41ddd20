// Data pages whose bytes are already on the device (decompressed there by nvCOMP, or uploaded as
// stored) turned into the run tables, string positions and validity bitmap that the decode
// kernels read (decode_kernels.h), without the host seeing a page's bytes: each page is parsed
// by one GPU thread with the host staging's own parse (page_parse.h), in two passes (count, then
// write where an exclusive scan of the counts puts each page). The host knows only what the page
// headers say (DevicePagePlan). Flat columns, RLE definition levels (the deprecated BIT_PACKED
// levels stay on the host). Not yet wired into the scan: tests/gpu/page_parse_gpu_test.cc checks
// it against the host staging.
// Without CUDA, ParsePagesOnDevice returns Unsupported("no CUDA device").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/gpu/runtime.h"
#include "tandem/io/parquet/gpu/page_parse.h"

namespace tandem::parquet::gpu_decode {

// The tables of one chunk, in device memory (the decode kernels' inputs).
struct DevicePageTables {
  gpu::DeviceBuffer runs;  // ValueRun[num_runs], sorted by first
  int64_t num_runs = 0;
  gpu::DeviceBuffer positions;  // int64 per PLAIN byte-array value: staging offset of its bytes
  int64_t num_positions = 0;
  gpu::DeviceBuffer validity;  // LSB bitmap of num_rows bits in 32-bit words; empty: all valid
  int64_t num_rows = 0;
  int64_t num_valid = 0;
};

// Parses `pages` of one chunk (num_rows rows in all) whose bodies lie in `staging` (device
// memory) and synchronizes once. Invalid naming the first page that does not parse, in the host
// staging's words ("page 3: RLE data ends inside a repeated run"); the caller then decodes the
// chunk on the host, which reports the damage as a host read does.
Result<DevicePageTables> ParsePagesOnDevice(const uint8_t* staging, int64_t staging_bytes,
                                            const std::vector<DevicePagePlan>& pages,
                                            const DeviceColumnParse& column, int64_t num_rows,
                                            const gpu::Stream& stream);

}  // namespace tandem::parquet::gpu_decode
