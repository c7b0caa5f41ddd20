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

// One page of the launch: where its chunk's bytes are and how its chunk is laid out.
struct PageJob {
  const uint8_t* staging;
  DevicePagePlan plan;
  DeviceColumnParse column;
  int32_t level_width;
};

// Where the write pass puts one page: its chunk's first dense value index (chunk-relative, as
// the run tables count), its first run and first position in the shared tables, and its chunk's
// validity words (null: every row of the chunk is valid); skip: its chunk failed the count pass.
struct PageTarget {
  int64_t dense, run, position;
  uint32_t* validity;
  int32_t skip;
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
                           ValueRun* runs, int64_t* positions) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pages;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const PageTarget t = targets[i];
    if (t.skip) continue;
    const PageJob& job = jobs[i];
    const DevicePagePlan& p = job.plan;
    int64_t defined = 0;
    int64_t next_run = t.run;
    int64_t next_position = t.position;
    ParsePage(
        job.staging, p, job.column, job.level_width, t.dense, next_position, &defined,
        [&](const ValueRun& run, int64_t rows) {
          if (t.validity) {
            LevelRunValidity(run, rows, p.first_row + run.first, job.staging,
                             job.column.max_definition_level, t.validity);
          }
        },
        [&](const ValueRun& run) { runs[next_run++] = run; },
        [&](int64_t position) { positions[next_position++] = position; });
    if (!p.has_levels && t.validity) SetBitRange(t.validity, p.first_row, p.num_values);
  }
}

// Allocates `count` elements of T (at least one) on `stream`.
template <typename T>
Result<DeviceBuffer> AllocateOf(int64_t count, const gpu::Stream& stream) {
  return DeviceBuffer::Allocate(std::max<int64_t>(count, 1) * static_cast<int64_t>(sizeof(T)),
                                stream);
}

// Uploads a host vector into a fresh device buffer.
template <typename T>
Result<DeviceBuffer> UploadVector(const std::vector<T>& v, const gpu::Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer d, AllocateOf<T>(static_cast<int64_t>(v.size()), stream));
  if (!v.empty()) {
    TANDEM_RETURN_NOT_OK(
        gpu::CopyToDevice(d.data(), v.data(), static_cast<int64_t>(v.size() * sizeof(T)), stream));
  }
  return std::move(d);
}

// The host's checks of one chunk's plans before any page is parsed.
Status CheckPlans(const ChunkPages& chunk) {
  const std::vector<DevicePagePlan>& pages = *chunk.pages;
  const int64_t staging_bytes = chunk.staging_bytes;
  int64_t rows = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    const DevicePagePlan& p = pages[i];
    auto outside = [&](int64_t at, int64_t bytes) {
      return at < 0 || bytes < 0 || at > staging_bytes || bytes > staging_bytes - at;
    };
    if (outside(p.body, p.body_bytes) || (p.v2 && outside(p.v2_levels, p.v2_levels_bytes)) ||
        p.num_values < 0 || p.first_row != rows) {
      return Status::Invalid("page " + std::to_string(i) + ": outside the staged bytes");
    }
    rows += p.num_values;
  }
  if (rows != chunk.num_rows) return Status::Invalid("chunk rows differ from the row group's");
  return Status::OK();
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
    parsed.status = CheckPlans(chunks[k]);
    if (!parsed.status.ok()) continue;
    const int level_width = LevelBitWidth(chunks[k].column.max_definition_level);
    for (const DevicePagePlan& plan : *chunks[k].pages) {
      jobs.push_back(PageJob{chunks[k].staging, plan, chunks[k].column, level_width});
      owner.push_back(k);
    }
  }
  const auto n_jobs = static_cast<int64_t>(jobs.size());
  cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_jobs, UploadVector(jobs, stream));
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
  // A chunk with a page that does not parse fails whole; the others get their places.
  for (int64_t j = 0; j < n_jobs; ++j) {
    const PageCounts& c = counts[static_cast<size_t>(j)];
    ParsedChunk& parsed = out.chunks[owner[static_cast<size_t>(j)]];
    if (c.error != PageParseError::kNone && parsed.status.ok()) {
      const size_t page = static_cast<size_t>(j) - first_job[owner[static_cast<size_t>(j)]];
      parsed.status = Status::Invalid("page " + std::to_string(page) + ": " +
                                      PageParseErrorText(c.error, c.run_error));
    }
  }
  std::vector<PageTarget> targets(jobs.size());
  std::vector<int64_t> dense(chunks.size(), 0);
  int64_t total_runs = 0, total_positions = 0, total_words = 0;
  for (int64_t j = 0; j < n_jobs; ++j) {
    const size_t k = owner[static_cast<size_t>(j)];
    ParsedChunk& parsed = out.chunks[k];
    PageTarget& t = targets[static_cast<size_t>(j)];
    t.skip = !parsed.status.ok();
    if (t.skip) continue;
    const PageCounts& c = counts[static_cast<size_t>(j)];
    if (static_cast<size_t>(j) == first_job[k]) {  // a chunk's pages are consecutive jobs
      parsed.first_run = total_runs;
      parsed.first_position = total_positions;
    }
    t.dense = dense[k];
    t.run = total_runs;
    t.position = total_positions;
    dense[k] += c.defined;
    parsed.num_runs += c.runs;
    parsed.num_positions += c.positions;
    total_runs += c.runs;
    total_positions += c.positions;
  }
  for (size_t k = 0; k < chunks.size(); ++k) {
    ParsedChunk& parsed = out.chunks[k];
    if (!parsed.status.ok()) continue;
    parsed.num_valid = dense[k];
    if (parsed.num_valid != parsed.num_rows) {
      parsed.first_validity_word = total_words;
      total_words += (parsed.num_rows + 31) / 32;
    }
  }
  TANDEM_ASSIGN_OR_RAISE(out.runs, AllocateOf<ValueRun>(total_runs, stream));
  TANDEM_ASSIGN_OR_RAISE(out.positions, AllocateOf<int64_t>(total_positions, stream));
  if (total_words > 0) {
    TANDEM_ASSIGN_OR_RAISE(out.validity, AllocateOf<uint32_t>(total_words, stream));
    TANDEM_RETURN_NOT_OK(gpu::MemsetDevice(out.validity.data(), 0, total_words * 4, stream));
  }
  for (int64_t j = 0; j < n_jobs; ++j) {
    const ParsedChunk& parsed = out.chunks[owner[static_cast<size_t>(j)]];
    targets[static_cast<size_t>(j)].validity =
        parsed.first_validity_word >= 0
            ? out.validity.data_as<uint32_t>() + parsed.first_validity_word
            : nullptr;
  }
  if (n_jobs > 0) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer device_targets, UploadVector(targets, stream));
    WritePages<<<GridFor(n_jobs), kBlockThreads, 0, s>>>(
        device_jobs.data_as<PageJob>(), device_targets.data_as<PageTarget>(), n_jobs,
        out.runs.data_as<ValueRun>(), out.positions.data_as<int64_t>());
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
