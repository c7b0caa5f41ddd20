// The GPU page parse's batch bookkeeping (io/parquet/gpu/page_batch.h) without a device: the
// count and write passes of ParseChunksOnDevice run on the host with the GPU's own per-page
// function (ParsePage) over the deferred chunks of random files and the parquet-testing files,
// many chunks in one batch, and every chunk's tables are compared with its own parse
// (CarryDeferredOnHost); a chunk with damaged plans fails alone. In the ASan tier.
#include <gtest/gtest.h>

#include "../gpu/deferred_carry.h"
#include "../gpu/parquet_gpu_test_util.h"
#include "tandem/io/parquet/gpu/page_batch.h"

namespace tandem::parquet {
namespace {

using gpu_decode::DeviceColumnParse;
using gpu_decode::DevicePagePlan;
using gpu_decode::StagedChunk;

// The batch bookkeeping of ParseChunksOnDevice (page_batch.h) with both passes run on the host:
// every deferred chunk of `path` parsed in one batch gets the tables its own parse gives
// (CarryDeferredOnHost); one chunk whose plans are damaged fails alone. Returns the chunks.
int64_t BatchMatchesChunkByChunk(const std::string& path) {
  std::vector<StagedChunk> carried;
  std::vector<DeviceColumnParse> columns;
  CountChunks(path, [&](const uint8_t* chunk, int64_t length, const ColumnMetaData& md,
                        const LeafColumn& leaf, const RowGroup& rg, int64_t, size_t) {
    StagedChunk deferred, c;
    gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/false, &deferred,
                                 /*defer_decompression=*/true);
    if (!deferred.on_gpu || !CarryDeferredOnHost(deferred, &c).empty()) return false;
    c.page_plans = deferred.page_plans;
    carried.push_back(std::move(c));
    columns.push_back(deferred.parse);
    return true;
  });
  const size_t n = carried.size();
  const size_t bad = n > 2 ? n / 2 : n;  // its plans skip a row: CheckPagePlans refuses them
  std::vector<gpu_decode::ParsedChunk> chunks(n);
  std::vector<gpu_decode::PageCounts> counts;
  std::vector<size_t> owner, first_page(n);
  std::vector<std::pair<size_t, DevicePagePlan>> pages;  // (chunk, plan) of each page
  auto width_of = [&](size_t k) {
    int width = 0;
    while ((int64_t{1} << width) <= columns[k].max_definition_level) ++width;
    return width;
  };
  for (size_t k = 0; k < n; ++k) {
    std::vector<DevicePagePlan> plans = carried[k].page_plans;
    if (k == bad && !plans.empty()) plans[0].first_row = 1;
    chunks[k].num_rows = carried[k].num_rows;
    first_page[k] = counts.size();
    chunks[k].status =
        gpu_decode::CheckPagePlans(plans, carried[k].staging_bytes, carried[k].num_rows);
    if (!chunks[k].status.ok()) continue;
    for (const DevicePagePlan& p : plans) {
      gpu_decode::PageCounts c;
      const auto r = gpu_decode::ParsePage(
          carried[k].staging, p, columns[k], width_of(k), 0, 0, &c.defined,
          [](const gpu_decode::ValueRun&, int64_t) {},
          [&](const gpu_decode::ValueRun&) { ++c.runs; }, [&](int64_t) { ++c.positions; });
      c.error = r.error;
      c.run_error = r.runs;
      counts.push_back(c);
      owner.push_back(k);
      pages.emplace_back(k, p);
    }
  }
  const gpu_decode::BatchLayout layout = gpu_decode::PlaceBatch(counts, owner, first_page, &chunks);
  std::vector<gpu_decode::ValueRun> runs(static_cast<size_t>(layout.runs));
  std::vector<int64_t> positions(static_cast<size_t>(layout.positions));
  std::vector<uint32_t> words(static_cast<size_t>(layout.validity_words), 0);
  auto set_bit = [&](int64_t word0, int64_t bit) {
    words[static_cast<size_t>(word0 + bit / 32)] |= 1u << (bit % 32);
  };
  for (size_t j = 0; j < pages.size(); ++j) {
    const gpu_decode::PageTarget& t = layout.targets[j];
    if (t.skip) continue;
    const size_t k = pages[j].first;
    const DevicePagePlan& p = pages[j].second;
    int64_t defined = 0, next_run = t.run, next_position = t.position;
    gpu_decode::ParsePage(
        carried[k].staging, p, columns[k], width_of(k), t.dense, t.chunk_position, &defined,
        [&](const gpu_decode::ValueRun& run, int64_t rows) {
          if (t.validity_word < 0) return;
          const int64_t row = p.first_row + run.first;
          gpu_decode::DefinedRowsOfRun(
              run, rows, carried[k].staging, columns[k].max_definition_level,
              [&](int64_t first, int64_t m) {
                for (int64_t i = 0; i < m; ++i) set_bit(t.validity_word, row + first + i);
              },
              [&](int64_t first, uint32_t bits, int take) {
                for (int i = 0; i < take; ++i) {
                  if ((bits >> i) & 1) set_bit(t.validity_word, row + first + i);
                }
              });
        },
        [&](const gpu_decode::ValueRun& run) { runs[static_cast<size_t>(next_run++)] = run; },
        [&](int64_t at) { positions[static_cast<size_t>(next_position++)] = at; });
    if (!p.has_levels && t.validity_word >= 0) {
      for (int64_t i = 0; i < p.num_values; ++i) set_bit(t.validity_word, p.first_row + i);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    SCOPED_TRACE(path + ", chunk " + std::to_string(k) + " of " + std::to_string(n));
    const gpu_decode::ParsedChunk& c = chunks[k];
    if (k == bad) {
      EXPECT_FALSE(c.status.ok());
      continue;
    }
    if (!c.status.ok()) {
      ADD_FAILURE() << c.status.ToString();
      continue;
    }
    const StagedChunk& want = carried[k];
    EXPECT_EQ(c.num_valid, want.num_valid);
    EXPECT_EQ(c.num_runs, static_cast<int64_t>(want.runs.size()));
    if (c.num_runs != static_cast<int64_t>(want.runs.size())) continue;
    for (int64_t i = 0; i < c.num_runs; ++i) {
      const gpu_decode::ValueRun& a = runs[static_cast<size_t>(c.first_run + i)];
      const gpu_decode::ValueRun& b = want.runs[static_cast<size_t>(i)];
      EXPECT_TRUE(a.first == b.first && a.payload == b.payload && a.kind == b.kind &&
                  a.bit_width == b.bit_width)
          << "run " << i;
    }
    EXPECT_EQ(c.num_positions, static_cast<int64_t>(want.plain_positions.size()));
    if (c.num_positions != static_cast<int64_t>(want.plain_positions.size())) continue;
    for (int64_t i = 0; i < c.num_positions; ++i) {
      EXPECT_EQ(positions[static_cast<size_t>(c.first_position + i)],
                want.plain_positions[static_cast<size_t>(i)]);
    }
    EXPECT_EQ(c.first_validity_word >= 0, !want.validity.empty());
    if (c.first_validity_word < 0 || want.validity.empty()) continue;
    for (int64_t r = 0; r < c.num_rows; ++r) {
      const bool got = (words[static_cast<size_t>(c.first_validity_word + r / 32)] >> (r % 32)) & 1;
      if (got != bit_util::GetBit(want.validity.data(), r)) {
        ADD_FAILURE() << "validity differs at row " << r;
        break;
      }
    }
  }
  return static_cast<int64_t>(n);
}

TEST(ParquetPageBatch, ChunksParsedAsOneBatchOnTheHost) {
  const fs::path dir = TempDir("batch");
  EXPECT_GT(SumOverRandomFiles(dir, 400, BatchMatchesChunkByChunk), 200);
  fs::remove_all(dir);
  if (!ParquetTestingDir().empty()) {
    EXPECT_GT(SumOverParquetTestingFiles(BatchMatchesChunkByChunk), 20);
  }
}

}  // namespace
}  // namespace tandem::parquet
