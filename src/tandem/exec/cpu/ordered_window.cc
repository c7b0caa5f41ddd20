// One partition's window calls a chunk at a time, in ORDER BY order (see ordered_window.h): the
// sorted rows cut into chunks where a peer group ends; what each call carries from chunk to chunk
// is window_chunk_runner.h's.
#include "tandem/exec/cpu/ordered_window.h"

#include "tandem/column/slice.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/window_chunk_runner.h"

namespace tandem::cpu {
namespace {

bool SameOrder(const std::vector<SortKey>& a, const std::vector<SortKey>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpr(*a[i].expr, *b[i].expr) || a[i].ascending != b[i].ascending ||
        a[i].nulls_first != b[i].nulls_first) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ComputesInOrderedChunks(const PlanNode& window) {
  if (window.kind != PlanKind::kWindow || window.windows.empty() || window.children.empty() ||
      !window.children[0]) {
    return false;
  }
  const std::vector<SortKey>& order = window.windows[0].order_by;
  for (const WindowCall& call : window.windows) {
    if (!call.partition_by.empty() || !SameOrder(call.order_by, order) ||
        !CallComputesInChunks(call)) {
      return false;
    }
  }
  return true;
}

Result<Table> WindowInOrderedChunks(const PlanNode& window, Table* sorted, int64_t chunk_rows,
                                    ExecContext& ctx) {
  if (!ComputesInOrderedChunks(window)) {
    return Status::Internal("window computed in chunks that cannot be");
  }
  std::vector<ExprPtr> key_exprs;
  std::vector<SortOrder> orders;
  SplitSortKeys(window.windows[0].order_by, &key_exprs, &orders);
  const int num_keys = static_cast<int>(key_exprs.size());
  EvalContext eval = ctx.eval;
  const std::unique_ptr<WindowChunkRunner> runner = WindowChunkRunner::Make(window, ctx);
  TANDEM_RETURN_NOT_OK(runner->Prepare(*sorted));
  Table out{window.schema, {}};

  // The rows taken and not yet computed, with their ORDER BY keys (evaluated when first needed).
  std::vector<BatchPtr> pending;
  std::vector<std::vector<ColumnPtr>> pending_keys;
  int64_t pending_rows = 0;
  // The first pending rows known to be one peer group (of the row at their end).
  int64_t one_group_rows = 0;
  auto keys_of = [&](size_t b) -> Result<const std::vector<ColumnPtr>*> {
    if (pending_keys[b].empty()) {
      TANDEM_ASSIGN_OR_RAISE(pending_keys[b], EvaluateColumns(key_exprs, *pending[b], eval));
    }
    return &pending_keys[b];
  };
  for (BatchPtr& taken : sorted->batches) {
    BatchPtr batch = std::move(taken);
    if (!batch || batch->num_rows == 0) continue;
    pending_rows += batch->num_rows;
    pending.push_back(std::move(batch));
    pending_keys.emplace_back();
    if (pending_rows < chunk_rows) continue;
    if (num_keys == 0) {  // no ORDER BY: no peers to keep together
      pending_keys.clear();
      pending_rows = 0;
      TANDEM_RETURN_NOT_OK(runner->Run(std::move(pending), &out));
      pending.clear();
      continue;
    }
    // The peer group of the last row may go on in the next batch: it waits for the next chunk.
    // Walk back from the last row to where its group starts (not below rows known to be one).
    const size_t last_b = pending.size() - 1;
    const int64_t last_r = pending[last_b]->num_rows - 1;
    TANDEM_ASSIGN_OR_RAISE(const std::vector<ColumnPtr>* last_keys, keys_of(last_b));
    size_t cut_b = last_b;
    int64_t cut_r = last_r;  // the group's first row
    int64_t position = pending_rows - 1;
    while (position > 0) {
      size_t b = cut_b;
      int64_t r = cut_r - 1;
      if (r < 0) {
        b = cut_b - 1;
        r = pending[b]->num_rows - 1;
      }
      TANDEM_ASSIGN_OR_RAISE(const std::vector<ColumnPtr>* keys, keys_of(b));
      if (CompareSortRows(*keys, r, *last_keys, last_r, orders, 0, num_keys) != 0) break;
      cut_b = b;
      cut_r = r;
      --position;
      if (position < one_group_rows) {  // a peer of the rows known to be one group: all are
        cut_b = 0;
        cut_r = 0;
        position = 0;
      }
    }
    if (position == 0) {  // all one peer group so far
      one_group_rows = pending_rows;
      continue;
    }
    std::vector<BatchPtr> chunk(pending.begin(), pending.begin() + static_cast<long>(cut_b));
    std::vector<BatchPtr> rest;
    std::vector<std::vector<ColumnPtr>> rest_keys;
    if (cut_r > 0) chunk.push_back(SliceBatchView(*pending[cut_b], 0, cut_r));
    rest.push_back(cut_r > 0
                       ? SliceBatchView(*pending[cut_b], cut_r, pending[cut_b]->num_rows - cut_r)
                       : pending[cut_b]);
    rest_keys.emplace_back();
    for (size_t b = cut_b + 1; b < pending.size(); ++b) {
      rest.push_back(pending[b]);
      rest_keys.push_back(std::move(pending_keys[b]));
    }
    pending = std::move(rest);
    pending_keys = std::move(rest_keys);
    pending_rows -= position;
    one_group_rows = pending_rows;
    TANDEM_RETURN_NOT_OK(runner->Run(std::move(chunk), &out));
  }
  sorted->batches.clear();
  if (!pending.empty()) TANDEM_RETURN_NOT_OK(runner->Run(std::move(pending), &out));
  return out;
}

}  // namespace tandem::cpu
