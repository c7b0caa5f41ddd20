// CheckPagePlans and PlaceBatch (page_batch.h).
#include "tandem/io/parquet/gpu/page_batch.h"

#include <string>

namespace tandem::parquet::gpu_decode {

Status CheckPagePlans(const std::vector<DevicePagePlan>& pages, int64_t staging_bytes,
                      int64_t num_rows) {
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
  if (rows != num_rows) return Status::Invalid("chunk rows differ from the row group's");
  return Status::OK();
}

BatchLayout PlaceBatch(const std::vector<PageCounts>& counts, const std::vector<size_t>& owner,
                       const std::vector<size_t>& first_page, std::vector<ParsedChunk>* chunks) {
  std::vector<ParsedChunk>& out = *chunks;
  // A chunk with a page that does not parse fails whole, named by its first such page.
  for (size_t j = 0; j < counts.size(); ++j) {
    const PageCounts& c = counts[j];
    ParsedChunk& parsed = out[owner[j]];
    if (c.error != PageParseError::kNone && parsed.status.ok()) {
      parsed.status = Status::Invalid("page " + std::to_string(j - first_page[owner[j]]) + ": " +
                                      PageParseErrorText(c.error, c.run_error));
    }
  }
  BatchLayout layout;
  layout.targets.resize(counts.size());
  std::vector<int64_t> dense(out.size(), 0);
  for (size_t j = 0; j < counts.size(); ++j) {
    const size_t k = owner[j];
    ParsedChunk& parsed = out[k];
    PageTarget& t = layout.targets[j];
    t.skip = !parsed.status.ok();
    if (t.skip) continue;
    if (j == first_page[k]) {
      parsed.first_run = layout.runs;
      parsed.first_position = layout.positions;
    }
    t.dense = dense[k];
    t.chunk_position = parsed.num_positions;
    t.run = layout.runs;
    t.position = layout.positions;
    dense[k] += counts[j].defined;
    parsed.num_runs += counts[j].runs;
    parsed.num_positions += counts[j].positions;
    layout.runs += counts[j].runs;
    layout.positions += counts[j].positions;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    ParsedChunk& parsed = out[k];
    if (!parsed.status.ok()) continue;
    parsed.num_valid = dense[k];
    if (parsed.num_valid != parsed.num_rows) {
      parsed.first_validity_word = layout.validity_words;
      layout.validity_words += (parsed.num_rows + 31) / 32;
    }
  }
  for (size_t j = 0; j < counts.size(); ++j) {
    layout.targets[j].validity_word = out[owner[j]].first_validity_word;
  }
  return layout;
}

}  // namespace tandem::parquet::gpu_decode
