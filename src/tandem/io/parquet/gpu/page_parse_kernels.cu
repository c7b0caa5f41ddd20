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

// Where a page's definition levels and values lie in staging.
struct PageSections {
  int64_t levels = 0, levels_bytes = 0;
  int64_t values = 0, values_bytes = 0;
};

__device__ PageParseError FindSections(const uint8_t* staging, const DevicePagePlan& p,
                                       PageSections* s) {
  s->values = p.body;
  s->values_bytes = p.body_bytes;
  if (p.v2) {
    const int64_t prefix = p.v2_repetition_bytes + p.v2_definition_bytes;
    if (p.v2_repetition_bytes < 0 || p.v2_definition_bytes < 0 || prefix > p.body_bytes) {
      return PageParseError::kLevelsPastPage;
    }
    s->levels = p.body + p.v2_repetition_bytes;
    s->levels_bytes = p.v2_definition_bytes;
    s->values = p.body + prefix;
    s->values_bytes = p.body_bytes - prefix;
    return PageParseError::kNone;
  }
  if (!p.has_levels) return PageParseError::kNone;
  if (p.body_bytes < 4) return PageParseError::kLevelsWithoutLength;
  const uint32_t len = LittleEndian32(staging + p.body);
  if (len > p.body_bytes - 4) return PageParseError::kLevelsPastPage;
  s->levels = p.body + 4;
  s->levels_bytes = len;
  s->values = p.body + 4 + int64_t{len};
  s->values_bytes = p.body_bytes - 4 - int64_t{len};
  return PageParseError::kNone;
}

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

// Validity of one level run's first `count` rows, starting at chunk row `row`.
__device__ void LevelRunValidity(const ValueRun& run, int64_t count, int64_t row,
                                 const uint8_t* staging, int max_def, uint32_t* words) {
  if (run.kind == RunKind::kRepeat) {
    if (run.payload == max_def) SetBitRange(words, row, count);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t level = PackedBits(staging, run.payload + i * run.bit_width, run.bit_width);
    if (static_cast<int>(level) == max_def) {
      atomicOr(&words[(row + i) >> 5], 1u << ((row + i) & 31));
    }
  }
}

__global__ void CountPages(const uint8_t* staging, const DevicePagePlan* pages, int64_t n_pages,
                           DeviceColumnParse column, int level_width, PageCounts* counts) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const DevicePagePlan p = pages[i];
    PageCounts c;
    PageSections s;
    c.error = FindSections(staging, p, &s);
    c.defined = p.num_values;
    if (c.error == PageParseError::kNone && p.has_levels) {
      const PageParseResult r = ParseLevels(staging + s.levels, s.levels_bytes, s.levels, staging,
                                            column.max_definition_level, level_width, p.num_values,
                                            &c.defined, [](const ValueRun&) {});
      c.error = r.error;
      c.run_error = r.runs;
    }
    if (c.error == PageParseError::kNone) {
      const PageParseResult r = ParseValues(
          p.encoding, column.shape, staging + s.values, s.values_bytes, s.values, c.defined, 0, 0,
          column.physical_width, column.dictionary_size, [&](const ValueRun&) { ++c.runs; },
          [&](int64_t) { ++c.positions; });
      c.error = r.error;
      c.run_error = r.runs;
    }
    counts[i] = c;
  }
}

// The write pass; bases[i] holds page i's (first dense value, first run, first position).
__global__ void WritePages(const uint8_t* staging, const DevicePagePlan* pages, int64_t n_pages,
                           DeviceColumnParse column, int level_width, const int64_t* bases,
                           ValueRun* runs, int64_t* positions, uint32_t* validity) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const DevicePagePlan p = pages[i];
    PageSections s;
    FindSections(staging, p, &s);  // the count pass found no error in any page
    int64_t defined = p.num_values;
    if (p.has_levels) {
      const int max_def = column.max_definition_level;
      bool have = false;
      ValueRun previous;
      ParseLevels(staging + s.levels, s.levels_bytes, s.levels, staging, max_def, level_width,
                  p.num_values, &defined, [&](const ValueRun& run) {
                    if (have && validity) {
                      LevelRunValidity(previous, run.first - previous.first,
                                       p.first_row + previous.first, staging, max_def, validity);
                    }
                    previous = run;
                    have = true;
                  });
      if (have && validity) {
        LevelRunValidity(previous, p.num_values - previous.first, p.first_row + previous.first,
                         staging, max_def, validity);
      }
    } else if (validity) {
      SetBitRange(validity, p.first_row, p.num_values);
    }
    int64_t next_run = bases[3 * i + 1];
    int64_t next_position = bases[3 * i + 2];
    ParseValues(
        p.encoding, column.shape, staging + s.values, s.values_bytes, s.values, defined,
        bases[3 * i], next_position, column.physical_width, column.dictionary_size,
        [&](const ValueRun& run) { runs[next_run++] = run; },
        [&](int64_t position) { positions[next_position++] = position; });
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
    if (p.body < 0 || p.body_bytes < 0 || p.body > staging_bytes ||
        p.body_bytes > staging_bytes - p.body || p.num_values < 0 || p.first_row != rows) {
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
