// Window calls with no PARTITION BY (one partition of every row) over more rows than the host
// budget (tandem.memory.host.limit) lets the in-memory Window hold. The rows, sorted by the calls'
// shared ORDER BY (an external sort, exec/cpu/external_sort.h; none without ORDER BY), are
// taken as they come from the sort's merge (or from a file) and computed a chunk at a time, each
// chunk ending where a peer group ends (anywhere when no call sees peers: PeersMatter), and each
// call's values carry over from one chunk to the next: ROW_NUMBER and RANK add the rows before the
// chunk, DENSE_RANK and a running COUNT add their value at the end of the chunk before, a running
// SUM adds it too (a NULL so far takes it), a running MIN or MAX compares with it, a running AVG
// carries its sum and count (exact for integers and decimals). "Running": the frame from UNBOUNDED
// PRECEDING to the CURRENT ROW, by ROWS or RANGE (the default with ORDER BY). An aggregate over the
// whole partition (any aggregate; the default frame with no ORDER BY) is computed first over every
// row, by an aggregation without keys, and each chunk's rows take its value. LAG and LEAD by a
// constant of at most 2^20 rows take the values their chunk lacks from the rows kept from the
// chunks before, or (LEAD) from the chunks after, patched in once those are made. NTILE,
// PERCENT_RANK and CUME_DIST come from the row's place (its peer group's) among all rows, whose
// count the sort knows. FIRST_VALUE, NTH_VALUE (up to the current row or over the whole partition)
// and LAST_VALUE over the whole partition take a row picked out of the sorted rows first;
// LAST_VALUE up to the current row is right within its chunk. A ROWS frame reaching at most 2^20
// rows before and after the current row is computed over the rows kept from before the chunk and
// the chunk's, the earlier rows whose frames reach into the chunk patched. A RANGE frame whose
// ends are n PRECEDING, CURRENT ROW or m FOLLOWING (by value) is computed over the rows kept from
// before the chunk whose ORDER BY value lies within n + m of the last one's; the chunk's last rows
// within m of its last value stay open until the next chunk is made, and are then patched. COUNT,
// and SUM and AVG of integers and decimals, from the current row (by RANGE: its first peer) to
// the partition's end are the totals over every row, taken first, less the rows before. Other
// calls (other frames to the partition's end, longer ROWS frames, frames from the start to past
// the current row) need the partition whole. A peer group larger than a chunk under calls that see
// peers is computed in pieces (large_peer_group.h); under frames by RANGE with an offset it must
// fit in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// Whether every call of `window` has no PARTITION BY, either no ORDER BY or the same as every
// other call that has one, and is one of the calls above (RANK, DENSE_RANK, PERCENT_RANK and
// CUME_DIST only with an ORDER BY).
bool ComputesInOrderedChunks(const PlanNode& window);
// The ORDER BY of those calls that have one (empty: none has).
const std::vector<SortKey>& ChunkOrder(const PlanNode& window);

// Whether a call's value for a row depends on the row's peers (the rows equal to it in ORDER
// BY): RANK and the like, frames by RANGE. When none does, chunks end anywhere, so a peer group
// need not fit in memory (ROW_NUMBER() OVER (ORDER BY day) over days of many rows).
bool PeersMatter(const PlanNode& window);

// Rows per chunk for rows of about `row_bytes` each: an eighth of what the host budget has free
// (the window over a chunk holds a few times its rows), at least 4096, and at least twice the
// rows a call reaches around the current one (so the rows kept from before each chunk cost no
// more than the chunk).
int64_t ChunkRows(const PlanNode& window, int64_t row_bytes);

// Whether such a window needs every row seen once before its first chunk (aggregates over the
// whole partition, FIRST_VALUE, NTH_VALUE and LAST_VALUE picks, NTILE, PERCENT_RANK, CUME_DIST):
// its sorted rows are then read twice (from a file on disk when they do not fit).
bool NeedsEveryRowFirst(const PlanNode& window);

class WindowChunkRunner;
class LargePeerGroup;

// The window over its input's rows taken in the calls' ORDER BY order, a batch at a time, in
// chunks of about `chunk_rows` rows. Output batches go to `emit` once no later chunk can change
// them (a LEAD or a sliding frame patches the last rows made), so neither the rows nor the
// window's output need fit whole.
class OrderedWindowChunks {
 public:
  OrderedWindowChunks(const PlanNode& window, int64_t chunk_rows, ExecContext& ctx,
                      std::function<Status(BatchPtr)> emit);
  ~OrderedWindowChunks();

  // When NeedsEveryRowFirst: every row first (in order), then FinishPrepare, before Consume.
  Status PrepareBatch(const BatchPtr& batch);
  Status FinishPrepare();
  // The next rows in order.
  Status Consume(BatchPtr batch);
  // After the last row: computes what is left and emits every row not yet emitted.
  Status Finish();

 private:
  Status RunChunk(std::vector<BatchPtr> chunk);
  // Emits the made batches no later chunk changes (all but the last OpenRows() rows).
  Status EmitFinal();
  Result<const std::vector<ColumnPtr>*> KeysOf(size_t b);
  // A peer group larger than a chunk (large_peer_group.h): the pending rows, all of it so far,
  // become its first piece; rows go on to it until a row with another key comes.
  Status StartLargeGroup(const std::vector<ColumnPtr>& keys, int64_t row);
  Status ConsumeInLargeGroup(BatchPtr batch);
  Status RunGroupPiece(bool first);
  Status EndLargeGroup();

  const PlanNode& window_;
  const int64_t chunk_rows_;
  ExecContext& ctx_;
  std::function<Status(BatchPtr)> emit_;
  std::unique_ptr<WindowChunkRunner> runner_;
  const bool peers_matter_;   // chunks end where a peer group ends
  const bool splits_groups_;  // SplitsPeerGroups: a peer group may span chunks
  std::vector<ExprPtr> key_exprs_;
  std::vector<SortOrder> orders_;
  // The rows taken and not yet computed, with their ORDER BY keys (evaluated when first needed).
  std::vector<BatchPtr> pending_;
  std::vector<std::vector<ColumnPtr>> pending_keys_;
  int64_t pending_rows_ = 0;
  // The first pending rows known to be one peer group (of the row at their end).
  int64_t one_group_rows_ = 0;
  Table made_;  // output rows not yet emitted
  // The large peer group being computed: its calls' values, its rows held on disk; the ORDER BY
  // keys of one of its rows (row group_row_ of group_keys_); the made batches from before it.
  std::unique_ptr<LargePeerGroup> group_;
  std::vector<ColumnPtr> group_keys_;
  int64_t group_row_ = 0;
  size_t batches_before_group_ = 0;
};

// The window over `sorted` (all of its input's rows, in order), collected in one table;
// `sorted`'s batches are released as they are taken.
Result<Table> WindowInOrderedChunks(const PlanNode& window, Table* sorted, int64_t chunk_rows,
                                    ExecContext& ctx);

}  // namespace tandem::cpu
