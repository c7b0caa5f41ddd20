// ParseChunksOnDevice (page_parse_kernels.h): one thread per page, the pages of many chunks in
// one launch, runs page_parse.h twice, first counting (defined values, value runs, string
// positions), then, at the page's place in each table (exclusive sums of the counts, taken on the
// host: a batch has hundreds to thousands of pages), writing its value runs, positions and
// validity bits. Pages share validity words at their edges, so bits are set with atomicOr.
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

// One page of the launch: where its chunk's bytes are and how its chunk is laid out.
struct PageJob {
  const uint8_t* staging;
  DevicePagePlan plan;
  DeviceColumnParse column;
  int32_t level_width;
};

__global__ void CountPages(const PageJob* jobs, int64_t n_pages, PageCounts* counts) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const PageJob& job = jobs[i];
    PageCounts c;
    const PageParseResult r = ParsePage(
        job.staging, job.plan, job.column, job.level_width, 0, 0, &c.defined,
        [](const ValueRun&, int64_t) {}, [&](const ValueRun&) { ++c.runs; },
        [&](int64_t) { ++c.positions; });
    c.error = r.error;
    c.run_error = r.runs;
    counts[i] = c;
  }
}

__global__ void WritePages(const PageJob* jobs, const PageTarget* targets, int64_t n_pages,
                           ValueRun* runs, int64_t* positions, uint32_t* validity_words) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const PageTarget t = targets[i];
    if (t.skip) continue;
    const PageJob& job = jobs[i];
    uint32_t* validity = t.validity_word >= 0 ? validity_words + t.validity_word : nullptr;
    const DevicePagePlan& p = job.plan;
    int64_t defined = 0;
    int64_t next_run = t.run;
    int64_t next_position = t.position;
    ParsePage(
        job.staging, p, job.column, job.level_width, t.dense, t.chunk_position, &defined,
        [&](const ValueRun& run, int64_t rows) {
          if (validity) {
            LevelRunValidity(run, rows, p.first_row + run.first, job.staging,
                             job.column.max_definition_level, validity);
          }
        },
        [&](const ValueRun& run) { runs[next_run++] = run; },
        [&](int64_t position) { positions[next_position++] = position; });
    if (!p.has_levels && validity) SetBitRange(validity, p.first_row, p.num_values);
  }
}

// Allocates `count` elements of T (at least one) on `stream`.
template <typename T>
Result<DeviceBuffer> AllocateOf(int64_t count, const gpu::Stream& stream) {
  return DeviceBuffer::Allocate(std::max<int64_t>(count, 1) * static_cast<int64_t>(sizeof(T)),
                                stream);
}

int LevelBitWidth(int max_def) {
  int width = 0;
  while ((int64_t{1} << width) <= max_def) ++width;
  return width;
}

}  // namespace

Result<ParsedChunks> ParseChunksOnDevice(const std::vector<ChunkPages>& chunks,
                                         const gpu::Stream& stream) {
  ParsedChunks out;
  out.chunks.resize(chunks.size());
  std::vector<PageJob> jobs;
  std::vector<size_t> owner;  // the chunk of each job
  std::vector<size_t> first_job(chunks.size(), 0);
  for (size_t k = 0; k < chunks.size(); ++k) {
    ParsedChunk& parsed = out.chunks[k];
    parsed.num_rows = chunks[k].num_rows;
    first_job[k] = jobs.size();
    parsed.status = CheckPagePlans(*chunks[k].pages, chunks[k].staging_bytes, chunks[k].num_rows);
    if (!parsed.status.ok()) continue;
    const int level_width = LevelBitWidth(chunks[k].column.max_definition_level);
    for (const DevicePagePlan& plan : *chunks[k].pages) {
      jobs.push_back(PageJob{chunks[k].staging, plan, chunks[k].column, level_width});
      owner.push_back(k);
    }
  }
  const auto n_jobs = static_cast<int64_t>(jobs.size());
  cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_jobs, gpu::UploadVector(jobs, stream));
  std::vector<PageCounts> counts(jobs.size());
  if (n_jobs > 0) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_counts, AllocateOf<PageCounts>(n_jobs, stream));
    CountPages<<<GridFor(n_jobs), kBlockThreads, 0, s>>>(device_jobs.data_as<PageJob>(), n_jobs,
                                                         device_counts.data_as<PageCounts>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("page parse counts"));
    TANDEM_RETURN_NOT_OK(gpu::CopyToHost(counts.data(), device_counts.data(),
                                         n_jobs * static_cast<int64_t>(sizeof(PageCounts)),
                                         stream));
    TANDEM_RETURN_NOT_OK(stream.Synchronize());
  }
  const BatchLayout layout = PlaceBatch(counts, owner, first_job, &out.chunks);
  TANDEM_ASSIGN_OR_RAISE(out.runs, AllocateOf<ValueRun>(layout.runs, stream));
  TANDEM_ASSIGN_OR_RAISE(out.positions, AllocateOf<int64_t>(layout.positions, stream));
  if (layout.validity_words > 0) {
    TANDEM_ASSIGN_OR_RAISE(out.validity, AllocateOf<uint32_t>(layout.validity_words, stream));
    TANDEM_RETURN_NOT_OK(
        gpu::MemsetDevice(out.validity.data(), 0, layout.validity_words * 4, stream));
  }
  if (n_jobs > 0) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_targets, gpu::UploadVector(layout.targets, stream));
    WritePages<<<GridFor(n_jobs), kBlockThreads, 0, s>>>(
        device_jobs.data_as<PageJob>(), device_targets.data_as<PageTarget>(), n_jobs,
        out.runs.data_as<ValueRun>(), out.positions.data_as<int64_t>(),
        out.validity.data_as<uint32_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("page parse"));
  }
  // The job and target tables are freed stream-ordered, after the write pass.
  return std::move(out);
}

Result<DevicePageTables> ParsePagesOnDevice(const uint8_t* staging, int64_t staging_bytes,
                                            const std::vector<DevicePagePlan>& pages,
                                            const DeviceColumnParse& column, int64_t num_rows,
                                            const gpu::Stream& stream) {
  ChunkPages chunk;
  chunk.staging = staging;
  chunk.staging_bytes = staging_bytes;
  chunk.pages = &pages;
  chunk.column = column;
  chunk.num_rows = num_rows;
  TANDEM_ASSIGN_OR_RAISE(ParsedChunks parsed, ParseChunksOnDevice({chunk}, stream));
  const ParsedChunk& c = parsed.chunks[0];
  TANDEM_RETURN_NOT_OK(c.status);
  DevicePageTables out;
  out.runs = std::move(parsed.runs);
  out.num_runs = c.num_runs;
  out.positions = std::move(parsed.positions);
  out.num_positions = c.num_positions;
  if (c.first_validity_word >= 0) out.validity = std::move(parsed.validity);
  out.num_rows = num_rows;
  out.num_valid = c.num_valid;
  return std::move(out);
}

}  // namespace tandem::parquet::gpu_decode
