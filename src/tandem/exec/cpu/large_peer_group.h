// A peer group larger than a chunk of a window computed in ordered chunks (ordered_window.h),
// under calls that see peers. Every row of a peer group takes the same value of such a call, so
// the group is computed in pieces of a chunk each, as if each piece ended it, and the values are
// then made the group's (PeerValueOf, window_chunk_runner.h): RANK, DENSE_RANK and PERCENT_RANK
// take the value the first piece gave its first row; CUME_DIST and frames by RANGE up to the
// current row's peers the value the last piece gave the group's last row, every row before it
// counted. The pieces' finished rows wait in a spill file until the group ends, so the group
// need not fit in memory. Frames by RANGE around the current row cannot be computed this way
// (SplitsPeerGroups is false).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/cpu/window_chunk_runner.h"
#include "tandem/exec/exec_context.h"
#include "tandem/memory/spill_file.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// Whether every call of the window that sees peers takes its value this way.
bool SplitsPeerGroups(const PlanNode& window);

class LargePeerGroup {
 public:
  explicit LargePeerGroup(const PlanNode& window, ExecContext& ctx);

  // Row `row` of `batch` (the window's output) is the group's first row, as the first piece
  // computed it; or its last row so far, as the latest piece computed it.
  void NoteFirstRow(const Batch& batch, int64_t row);
  void NoteLastRow(const Batch& batch, int64_t row);
  // A batch of the group's rows that no later piece changes: to disk until the group ends.
  Status Hold(const Batch& batch);
  // The group's values of its calls that see peers put into `batch` (rows of the group).
  void Patch(Batch* batch) const;
  // After the group's last piece: the held rows, patched, to `emit` in order.
  Status EmitHeld(const std::function<Status(BatchPtr)>& emit);
  int64_t held_rows() const { return held_ ? held_->rows() : 0; }

 private:
  const PlanNode& window_;
  ExecContext& ctx_;
  int first_call_ = 0;            // the output column of the first call
  std::vector<PeerValue> from_;   // per call
  std::vector<ColumnPtr> value_;  // per call that sees peers: its value, one row
  std::unique_ptr<SpillFile> held_;
};

}  // namespace tandem::cpu
