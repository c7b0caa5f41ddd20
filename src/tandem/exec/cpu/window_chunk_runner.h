// WindowChunkRunner: the calls of a window over one partition (no PARTITION BY), computed a chunk
// of its sorted rows at a time (exec/cpu/ordered_window.h cuts the chunks, each ending where a
// peer group ends). Each chunk runs through the in-memory Window; then each call's values are
// continued from the chunks before (ROW_NUMBER, RANK: plus the rows before; DENSE_RANK and
// running COUNT/SUM: plus the value at the end of the chunk before; running MIN/MAX: compared with
// it; running AVG: its sum and count carried on; LAG: the first rows from values kept from
// before; LEAD: the last rows patched in once the
// chunks after are made), placed among all rows (NTILE, PERCENT_RANK, CUME_DIST), or taken from
// values computed over every row before the first chunk (aggregates over the whole partition,
// FIRST_VALUE, NTH_VALUE, LAST_VALUE over the whole partition). Calls over sliding ROWS frames
// run as one window over the rows kept from before the chunk and the chunk's, and the rows of
// earlier chunks whose frames reach into this one are patched.
#pragma once

#include <memory>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// Whether a call can be computed this way (its ORDER BY aside).
bool CallComputesInChunks(const WindowCall& call);
// How many rows around the current one a sliding ROWS frame reaches (0 for other calls): the
// input rows kept from one chunk to the next, computed again with it.
int64_t CallReach(const WindowCall& call);
// Whether a call needs every row seen before the first chunk (aggregates over the whole
// partition; FIRST_VALUE, NTH_VALUE, LAST_VALUE picked from it; NTILE, PERCENT_RANK and CUME_DIST,
// which need the row count).
bool CallNeedsEveryRowFirst(const WindowCall& call);
// Whether a call's value for a row depends on its peers (the rows equal in ORDER BY): not for
// ROW_NUMBER, NTILE, LAG, LEAD, frames by ROWS and frames over the whole partition.
bool CallSeesPeers(const WindowCall& call);

// Where a call that sees peers takes its value for a peer group computed in pieces
// (large_peer_group.h), every row of a peer group having the same value: from the group's first
// row as the first piece computed it (RANK, DENSE_RANK, PERCENT_RANK), or from its last row as
// the last piece computed it, every row before counted (CUME_DIST, frames by RANGE up to the
// current row's peers). kCannot: frames by RANGE around the current row, which keep every row
// within reach of it. kNone: the call does not see peers.
enum class PeerValue { kNone, kFirstRow, kLastRow, kCannot };
PeerValue PeerValueOf(const WindowCall& call);

class WindowChunkRunner {
 public:
  // `window`: its calls all have no PARTITION BY and one ORDER BY, and CallComputesInChunks.
  static std::unique_ptr<WindowChunkRunner> Make(const PlanNode& window, ExecContext& ctx);
  virtual ~WindowChunkRunner() = default;
  // What is computed over every row before the first chunk, when a call needs it
  // (CallNeedsEveryRowFirst): each batch of rows in the ORDER BY's order, then FinishPrepare.
  virtual Status PrepareBatch(const BatchPtr& batch) = 0;
  virtual Status FinishPrepare() = 0;
  // The window's rows for the next chunk (the rows after the last chunk's, up to the end of a peer
  // group), appended to `out`; a LEAD or a sliding frame may still patch the last OpenRows() rows
  // of the chunks so far when the next chunks come: the rows before them are final.
  virtual Status Run(std::vector<BatchPtr> chunk, Table* out) = 0;
  // Whether the next chunks go on with the peer group the chunk before ended in (a group larger
  // than a chunk): DENSE_RANK then does not count it again.
  virtual void ContinuePeerGroup(bool continues) = 0;
  virtual int64_t OpenRows() const = 0;
};

}  // namespace tandem::cpu
