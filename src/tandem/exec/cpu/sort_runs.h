// Sorting rows by normalized keys (sort_keys.h): runs of rows are encoded and sorted in parallel
// as (key words, row ref) items, then merged pairwise in parallel. Ties keep input order
// (stable: refs are (batch << 32 | row), increasing in input order). With a limit only the first
// `limit` rows are kept at every step (partial sorts), which is how TopN avoids a full sort.
// A full sort whose keys encode into one word with no tail runs as a parallel stable radix sort.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/aggregate.h"

namespace tandem::cpu {

// Where the sorted rows' keys change, read off the sorted key words (sequential) instead of the
// rows (a window's partition and peer bounds, exec/cpu/window_frames.h). Filled only when every
// key is encoded whole (SortKeyEncoder::ExactPrefixBytes) and the items sort runs; `filled`
// says whether it was.
struct KeyChanges {
  int prefix_bytes = 0;                 // asked: the leading keys' bytes (the PARTITION BY keys)
  std::vector<uint8_t> prefix_changed;  // [i]: those bytes of row i differ from row i - 1's
  std::vector<uint8_t> any_changed;     // [i]: any key of row i differs from row i - 1's
  bool filled = false;
};

// Packed refs of the rows of `batches` in sorted order (only the first `limit` when limit >= 0);
// with `changes`, where their keys change too (when it can).
Result<std::vector<int64_t>> SortedRowRefs(const std::vector<BatchPtr>& batches,
                                           const SortKeyEncoder& encoder, int64_t limit = -1,
                                           KeyChanges* changes = nullptr);

// Evaluates SQL sort keys over every batch and builds their encoder.
Result<SortKeyEncoder> MakeSortKeyEncoder(const std::vector<SortKey>& keys,
                                          const std::vector<BatchPtr>& batches, EvalContext& ctx);

// The rows of `input` at refs[begin, end), in that order, as a table of the given schema (in
// batches of kDefaultMorselRows rows, gathered in parallel).
Result<Table> GatherTable(const Table& input, const Schema& schema,
                          const std::vector<int64_t>& refs, int64_t begin, int64_t end);

}  // namespace tandem::cpu
