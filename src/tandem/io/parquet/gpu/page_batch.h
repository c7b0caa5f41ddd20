// The host's part of parsing many chunks' pages in one batch (page_parse_kernels.h): the plan
// checks before the count pass, and after it, where the write pass puts each page (its chunk's
// dense value numbering, its first run and position in the batch's shared tables, its chunk's
// validity words) and where each chunk's tables lie. Plain host code, so that the GPU batch's
// bookkeeping is tested without a device (tests/unit/parquet_page_batch_test.cc runs both passes
// on the host with ParsePage and compares every chunk with its own parse).
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/io/parquet/gpu/page_parse.h"

namespace tandem::parquet::gpu_decode {

// What the count pass found for one page.
struct PageCounts {
  int64_t defined = 0;
  int64_t runs = 0;
  int64_t positions = 0;
  PageParseError error = PageParseError::kNone;
  HybridRunError run_error = HybridRunError::kNone;
};

// Where the write pass puts one page: its first dense value and its first position's number
// (chunk-relative, as a chunk's run tables number them: a PLAIN byte-array run's payload is the
// number of its first position), its first run and first position in the batch's tables, its
// chunk's first validity word (-1: every row of the chunk is valid); skip: its chunk failed.
struct PageTarget {
  int64_t dense = 0, chunk_position = 0;
  int64_t run = 0, position = 0;
  int64_t validity_word = -1;
  int32_t skip = 0;
};

// One chunk's tables, at these places in the batch's shared tables.
struct ParsedChunk {
  Status status;  // Invalid naming the first page that does not parse; its tables are empty
  int64_t first_run = 0, num_runs = 0;            // ValueRun, sorted by first
  int64_t first_position = 0, num_positions = 0;  // staging offset of each PLAIN byte array
  int64_t first_validity_word = -1;  // LSB bitmap of num_rows bits in 32-bit words; -1: all valid
  int64_t num_rows = 0, num_valid = 0;
};

// The host's checks of one chunk's plans before any page is parsed: every section inside the
// chunk's staging of `staging_bytes`, pages in row order adding up to `num_rows`.
Status CheckPagePlans(const std::vector<DevicePagePlan>& pages, int64_t staging_bytes,
                      int64_t num_rows);

// The write pass's layout. `counts` holds the count pass of every page of the batch, `owner` the
// chunk of each (a chunk's pages consecutive, from first_page[chunk]); `chunks` comes in with
// num_rows and the plan checks' status and leaves with every chunk's places, num_valid, and the
// first failing page's error. Returns the targets (one per page) and the tables' sizes.
struct BatchLayout {
  std::vector<PageTarget> targets;
  int64_t runs = 0, positions = 0, validity_words = 0;
};
BatchLayout PlaceBatch(const std::vector<PageCounts>& counts, const std::vector<size_t>& owner,
                       const std::vector<size_t>& first_page, std::vector<ParsedChunk>* chunks);

}  // namespace tandem::parquet::gpu_decode
