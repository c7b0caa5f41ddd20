// ParsePagesOnDevice (page_parse_kernels.h): one thread per page runs page_parse.h twice, first
// counting (defined values, value runs, string positions), then, at the page's place in each
// table (exclusive sums of the counts, taken on the host: a chunk has tens of pages), writing
// its value runs, positions and validity bits. Pages share validity words at their edges, so
// bits are set with atomicOr.
#include <algorithm>
#include <vector>

#include "tandem/gpu/cuda_util.cuh"
#include "tandem/io/parquet/gpu/page_parse_kernels.h"

namespace tandem::parquet::gpu_decode {
namespace {

using gpu::CudaStatus;
using gpu::CudaStream;
using gpu::DeviceBuffer;
using gpu::GridFor;
using gpu::kBlockThreads;
using gpu::LaunchStatus;

// Per page: what the count pass found (the write pass reads the bases from these, summed).
struct PageCounts {
  int64_t defined = 0;
  int64_t runs = 0;
  int64_t positions = 0;
  PageParseError error = PageParseError::kNone;
  HybridRunError run_error = HybridRunError::kNone;
};

// Sets bits [first, first + count) of a bitmap of 32-bit words.
__device__ void SetBitRange(uint32_t* words, int64_t first, int64_t count) {
  int64_t bit = first;
  const int64_t end = first + count;
  while (bit < end) {
    const int64_t word = bit >> 5;
    const int lo = static_cast<int>(bit & 31);
    const int64_t room = 32 - lo;
    const int take = static_cast<int>(end - bit < room ? end - bit : room);
    const uint32_t mask = take == 32 ? ~0u : ((1u << take) - 1u) << lo;
    atomicOr(&words[word], mask);
    bit += take;
  }
}

// Validity of one level run's first `count` rows, starting at chunk row `row`; pages share
// words at their edges, hence atomicOr.
__device__ void LevelRunValidity(const ValueRun& run, int64_t count, int64_t row,
                                 const uint8_t* staging, int max_def, uint32_t* words) {
  DefinedRowsOfRun(
      run, count, staging, max_def,
      [&](int64_t first, int64_t n) { SetBitRange(words, row + first, n); },
      [&](int64_t first, uint32_t bits, int take) {
        const int64_t at = row + first;
        const int lo = static_cast<int>(at & 31);
        atomicOr(&words[at >> 5], bits << lo);
        if (lo > 0 && take > 32 - lo) atomicOr(&words[(at >> 5) + 1], bits >> (32 - lo));
      });
}

__global__ void CountPages(const uint8_t* staging, const DevicePagePlan* pages, int64_t n_pages,
                           DeviceColumnParse column, int level_width, PageCounts* counts) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    PageCounts c;
    const PageParseResult r = ParsePage(
        staging, pages[i], column, level_width, 0, 0, &c.defined, [](const ValueRun&, int64_t) {},
        [&](const ValueRun&) { ++c.runs; }, [&](int64_t) { ++c.positions; });
    c.error = r.error;
    c.run_error = r.runs;
    counts[i] = c;
  }
}

// The write pass; bases[3 i ..] holds page i's first dense value, first run and first position.
__global__ void WritePages(const uint8_t* staging, const DevicePagePlan* pages, int64_t n_pages,
                           DeviceColumnParse column, int level_width, const int64_t* bases,
                           ValueRun* runs, int64_t* positions, uint32_t* validity) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const DevicePagePlan p = pages[i];
    int64_t defined = 0;
    int64_t next_run = bases[3 * i + 1];
    int64_t next_position = bases[3 * i + 2];
    ParsePage(
        staging, p, column, level_width, bases[3 * i], next_position, &defined,
        [&](const ValueRun& run, int64_t rows) {
          if (validity) {
            LevelRunValidity(run, rows, p.first_row + run.first, staging,
                             column.max_definition_level, validity);
          }
        },
        [&](const ValueRun& run) { runs[next_run++] = run; },
        [&](int64_t position) { positions[next_position++] = position; });
    if (!p.has_levels && validity) SetBitRange(validity, p.first_row, p.num_values);
  }
}

int LevelBitWidth(int max_def) {
  int width = 0;
  while ((int64_t{1} << width) <= max_def) ++width;
  return width;
}

}  // namespace

Result<DevicePageTables> ParsePagesOnDevice(const uint8_t* staging, int64_t staging_bytes,
                                            const std::vector<DevicePagePlan>& pages,
                                            const DeviceColumnParse& column, int64_t num_rows,
                                            const gpu::Stream& stream) {
  const auto n_pages = static_cast<int64_t>(pages.size());
  int64_t rows = 0;
  for (int64_t i = 0; i < n_pages; ++i) {
    const DevicePagePlan& p = pages[static_cast<size_t>(i)];
    auto outside = [&](int64_t at, int64_t bytes) {
      return at < 0 || bytes < 0 || at > staging_bytes || bytes > staging_bytes - at;
    };
    if (outside(p.body, p.body_bytes) || (p.v2 && outside(p.v2_levels, p.v2_levels_bytes)) ||
        p.num_values < 0 || p.first_row != rows) {
      return Status::Invalid("page " + std::to_string(i) + ": outside the staged bytes");
    }
    rows += p.num_values;
  }
  if (rows != num_rows) return Status::Invalid("chunk rows differ from the row group's");
  DevicePageTables out;
  out.num_rows = num_rows;
  cudaStream_t s = CudaStream(stream);
  const int level_width = LevelBitWidth(column.max_definition_level);
  const int64_t plan_bytes = std::max<int64_t>(n_pages, 1) * sizeof(DevicePagePlan);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer plans, DeviceBuffer::Allocate(plan_bytes, stream));
  if (n_pages > 0) {
    TANDEM_RETURN_NOT_OK(
        gpu::CopyToDevice(plans.data(), pages.data(), n_pages * sizeof(DevicePagePlan), stream));
  }
  TANDEM_ASSIGN_OR_RAISE(
      DeviceBuffer counts,
      DeviceBuffer::Allocate(std::max<int64_t>(n_pages, 1) * sizeof(PageCounts), stream));
  std::vector<PageCounts> host_counts(static_cast<size_t>(n_pages));
  if (n_pages > 0) {
    CountPages<<<GridFor(n_pages), kBlockThreads, 0, s>>>(staging, plans.data_as<DevicePagePlan>(),
                                                          n_pages, column, level_width,
                                                          counts.data_as<PageCounts>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("page parse counts"));
    TANDEM_RETURN_NOT_OK(
        gpu::CopyToHost(host_counts.data(), counts.data(), n_pages * sizeof(PageCounts), stream));
    TANDEM_RETURN_NOT_OK(stream.Synchronize());
  }
  std::vector<int64_t> bases(static_cast<size_t>(std::max<int64_t>(n_pages, 1)) * 3, 0);
  for (int64_t i = 0; i < n_pages; ++i) {
    const PageCounts& c = host_counts[static_cast<size_t>(i)];
    if (c.error != PageParseError::kNone) {
      return Status::Invalid("page " + std::to_string(i) + ": " +
                             PageParseErrorText(c.error, c.run_error));
    }
    bases[3 * i] = out.num_valid;
    bases[3 * i + 1] = out.num_runs;
    bases[3 * i + 2] = out.num_positions;
    out.num_valid += c.defined;
    out.num_runs += c.runs;
    out.num_positions += c.positions;
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_bases,
                         DeviceBuffer::Allocate(bases.size() * sizeof(int64_t), stream));
  TANDEM_RETURN_NOT_OK(
      gpu::CopyToDevice(device_bases.data(), bases.data(), bases.size() * sizeof(int64_t), stream));
  TANDEM_ASSIGN_OR_RAISE(
      out.runs,
      DeviceBuffer::Allocate(std::max<int64_t>(out.num_runs, 1) * sizeof(ValueRun), stream));
  TANDEM_ASSIGN_OR_RAISE(
      out.positions,
      DeviceBuffer::Allocate(std::max<int64_t>(out.num_positions, 1) * sizeof(int64_t), stream));
  const bool nullable = out.num_valid != num_rows;
  if (nullable) {
    const int64_t words = (num_rows + 31) / 32;
    TANDEM_ASSIGN_OR_RAISE(out.validity, DeviceBuffer::Allocate(words * 4, stream));
    TANDEM_RETURN_NOT_OK(gpu::MemsetDevice(out.validity.data(), 0, words * 4, stream));
  }
  if (n_pages > 0) {
    WritePages<<<GridFor(n_pages), kBlockThreads, 0, s>>>(
        staging, plans.data_as<DevicePagePlan>(), n_pages, column, level_width,
        device_bases.data_as<int64_t>(), out.runs.data_as<ValueRun>(),
        out.positions.data_as<int64_t>(), nullable ? out.validity.data_as<uint32_t>() : nullptr);
    TANDEM_RETURN_NOT_OK(LaunchStatus("page parse"));
  }
  return std::move(out);
}

}  // namespace tandem::parquet::gpu_decode
