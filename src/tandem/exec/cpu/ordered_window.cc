// One partition's window calls a chunk at a time, in ORDER BY order (see ordered_window.h): the
// sorted rows cut into chunks where a peer group ends; what each call carries from chunk to chunk
// is window_chunk_runner.h's.
#include "tandem/exec/cpu/ordered_window.h"

#include <algorithm>

#include "tandem/column/slice.h"
#include "tandem/exec/cpu/large_peer_group.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/spilling_pipeline.h"
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

const std::vector<SortKey>& ChunkOrder(const PlanNode& window) {
  for (const WindowCall& call : window.windows) {
    if (!call.order_by.empty()) return call.order_by;
  }
  return window.windows[0].order_by;
}

bool ComputesInOrderedChunks(const PlanNode& window) {
  if (window.kind != PlanKind::kWindow || window.windows.empty() || window.children.empty() ||
      !window.children[0]) {
    return false;
  }
  const std::vector<SortKey>& order = ChunkOrder(window);
  for (const WindowCall& call : window.windows) {
    if (!call.partition_by.empty() ||
        (!call.order_by.empty() && !SameOrder(call.order_by, order)) ||
        !CallComputesInChunks(call)) {
      return false;
    }
  }
  return true;
}

bool PeersMatter(const PlanNode& window) {
  for (const WindowCall& call : window.windows) {
    if (CallSeesPeers(call)) return true;
  }
  return false;
}

int64_t ChunkRows(const PlanNode& window, int64_t row_bytes) {
  int64_t reach = 0;
  for (const WindowCall& call : window.windows) reach = std::max(reach, CallReach(call));
  return std::max({int64_t{4096}, SpillBudget() / 8 / std::max<int64_t>(1, row_bytes), 2 * reach});
}

bool NeedsEveryRowFirst(const PlanNode& window) {
  for (const WindowCall& call : window.windows) {
    if (CallNeedsEveryRowFirst(call)) return true;
  }
  return false;
}

OrderedWindowChunks::OrderedWindowChunks(const PlanNode& window, int64_t chunk_rows,
                                         ExecContext& ctx, std::function<Status(BatchPtr)> emit)
    : window_(window),
      chunk_rows_(chunk_rows),
      ctx_(ctx),
      emit_(std::move(emit)),
      runner_(WindowChunkRunner::Make(window, ctx)),
      peers_matter_(PeersMatter(window)),
      splits_groups_(SplitsPeerGroups(window)),
      made_{window.schema, {}} {
  SplitSortKeys(ChunkOrder(window), &key_exprs_, &orders_);
}

OrderedWindowChunks::~OrderedWindowChunks() = default;

Status OrderedWindowChunks::PrepareBatch(const BatchPtr& batch) {
  return runner_->PrepareBatch(batch);
}

Status OrderedWindowChunks::FinishPrepare() { return runner_->FinishPrepare(); }

Result<const std::vector<ColumnPtr>*> OrderedWindowChunks::KeysOf(size_t b) {
  if (pending_keys_[b].empty()) {
    EvalContext eval = ctx_.eval;
    TANDEM_ASSIGN_OR_RAISE(pending_keys_[b], EvaluateColumns(key_exprs_, *pending_[b], eval));
  }
  return &pending_keys_[b];
}

Status OrderedWindowChunks::RunChunk(std::vector<BatchPtr> chunk) {
  TANDEM_RETURN_NOT_OK(runner_->Run(std::move(chunk), &made_));
  return EmitFinal();
}

Status OrderedWindowChunks::EmitFinal() {
  // The batches before the last OpenRows() rows are final: they go (a large peer group's to
  // disk, until its values are known).
  int64_t open = runner_->OpenRows();
  size_t keep_from = made_.batches.size();
  while (keep_from > 0 && open > 0) {
    --keep_from;
    open -= made_.batches[keep_from]->num_rows;
  }
  for (size_t b = 0; b < keep_from; ++b) {
    if (group_ && batches_before_group_ == 0) {
      TANDEM_RETURN_NOT_OK(group_->Hold(*made_.batches[b]));
      continue;
    }
    if (group_) --batches_before_group_;
    TANDEM_RETURN_NOT_OK(emit_(std::move(made_.batches[b])));
  }
  made_.batches.erase(made_.batches.begin(), made_.batches.begin() + static_cast<long>(keep_from));
  return Status::OK();
}

Status OrderedWindowChunks::StartLargeGroup(const std::vector<ColumnPtr>& keys, int64_t row) {
  group_keys_ = keys;
  group_row_ = row;
  group_ = std::make_unique<LargePeerGroup>(window_, ctx_);
  batches_before_group_ = made_.batches.size();
  TANDEM_RETURN_NOT_OK(RunGroupPiece(/*first=*/true));
  while (pending_rows_ >= chunk_rows_) TANDEM_RETURN_NOT_OK(RunGroupPiece(/*first=*/false));
  return Status::OK();
}

Status OrderedWindowChunks::RunGroupPiece(bool first) {
  // At most a chunk of the pending rows (all of the group): the rest waits for the next piece.
  std::vector<BatchPtr> piece;
  int64_t taken = 0;
  size_t b = 0;
  for (; b < pending_.size() && taken < chunk_rows_; ++b) {
    const int64_t rows = pending_[b]->num_rows;
    if (taken + rows <= chunk_rows_) {
      piece.push_back(std::move(pending_[b]));
      taken += rows;
      continue;
    }
    const int64_t head = chunk_rows_ - taken;
    piece.push_back(SliceBatchView(*pending_[b], 0, head));
    pending_[b] = SliceBatchView(*pending_[b], head, rows - head);
    pending_keys_[b].clear();
    taken += head;
    break;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(b));
  pending_keys_.erase(pending_keys_.begin(), pending_keys_.begin() + static_cast<long>(b));
  pending_rows_ -= taken;
  one_group_rows_ = 0;
  const size_t before = made_.batches.size();
  runner_->ContinuePeerGroup(!first);
  TANDEM_RETURN_NOT_OK(runner_->Run(std::move(piece), &made_));
  for (size_t m = before; m < made_.batches.size(); ++m) {
    const Batch& batch = *made_.batches[m];
    if (batch.num_rows == 0) continue;
    if (first) group_->NoteFirstRow(batch, 0);
    first = false;
    group_->NoteLastRow(batch, batch.num_rows - 1);
  }
  return EmitFinal();
}

Status OrderedWindowChunks::ConsumeInLargeGroup(BatchPtr batch) {
  EvalContext eval = ctx_.eval;
  TANDEM_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys, EvaluateColumns(key_exprs_, *batch, eval));
  const int num_keys = static_cast<int>(key_exprs_.size());
  int64_t in_group = 0;  // the batch's first rows that are peers of the group's
  while (in_group < batch->num_rows &&
         CompareSortRows(keys, in_group, group_keys_, group_row_, orders_, 0, num_keys) == 0) {
    ++in_group;
  }
  if (in_group == batch->num_rows) {
    pending_rows_ += batch->num_rows;
    pending_.push_back(std::move(batch));
    pending_keys_.push_back(std::move(keys));
    while (pending_rows_ >= chunk_rows_) TANDEM_RETURN_NOT_OK(RunGroupPiece(/*first=*/false));
    return Status::OK();
  }
  if (in_group > 0) {
    pending_.push_back(SliceBatchView(*batch, 0, in_group));
    pending_keys_.emplace_back();
    pending_rows_ += in_group;
  }
  TANDEM_RETURN_NOT_OK(EndLargeGroup());
  return Consume(SliceBatchView(*batch, in_group, batch->num_rows - in_group));
}

Status OrderedWindowChunks::EndLargeGroup() {
  while (pending_rows_ > 0) TANDEM_RETURN_NOT_OK(RunGroupPiece(/*first=*/false));
  // The group's rows not yet final take its values in place; those on disk go now, before them.
  for (size_t b = batches_before_group_; b < made_.batches.size(); ++b) {
    group_->Patch(made_.batches[b].get());
  }
  TANDEM_RETURN_NOT_OK(group_->EmitHeld(emit_));
  group_.reset();
  group_keys_.clear();
  batches_before_group_ = 0;
  runner_->ContinuePeerGroup(false);  // the next chunk starts with a peer group of its own
  return Status::OK();
}

Status OrderedWindowChunks::Consume(BatchPtr batch) {
  if (!batch || batch->num_rows == 0) return Status::OK();
  if (group_) return ConsumeInLargeGroup(std::move(batch));
  const int num_keys = static_cast<int>(key_exprs_.size());
  pending_rows_ += batch->num_rows;
  pending_.push_back(std::move(batch));
  pending_keys_.emplace_back();
  if (pending_rows_ < chunk_rows_) return Status::OK();
  if (num_keys == 0 || !peers_matter_) {  // no peers to keep together
    pending_keys_.clear();
    pending_rows_ = 0;
    std::vector<BatchPtr> chunk = std::move(pending_);
    pending_.clear();
    return RunChunk(std::move(chunk));
  }
  // The peer group of the last row may go on in the next batch: it waits for the next chunk.
  // Walk back from the last row to where its group starts (not below rows known to be one).
  const size_t last_b = pending_.size() - 1;
  const int64_t last_r = pending_[last_b]->num_rows - 1;
  TANDEM_ASSIGN_OR_RAISE(const std::vector<ColumnPtr>* last_keys, KeysOf(last_b));
  size_t cut_b = last_b;
  int64_t cut_r = last_r;  // the group's first row
  int64_t position = pending_rows_ - 1;
  while (position > 0) {
    size_t b = cut_b;
    int64_t r = cut_r - 1;
    if (r < 0) {
      b = cut_b - 1;
      r = pending_[b]->num_rows - 1;
    }
    TANDEM_ASSIGN_OR_RAISE(const std::vector<ColumnPtr>* keys, KeysOf(b));
    if (CompareSortRows(*keys, r, *last_keys, last_r, orders_, 0, num_keys) != 0) break;
    cut_b = b;
    cut_r = r;
    --position;
    if (position < one_group_rows_) {  // a peer of the rows known to be one group: all are
      cut_b = 0;
      cut_r = 0;
      position = 0;
    }
  }
  if (position == 0) {  // all one peer group so far
    if (splits_groups_) return StartLargeGroup(*last_keys, last_r);
    one_group_rows_ = pending_rows_;
    return Status::OK();
  }
  std::vector<BatchPtr> chunk(pending_.begin(), pending_.begin() + static_cast<long>(cut_b));
  std::vector<BatchPtr> rest;
  std::vector<std::vector<ColumnPtr>> rest_keys;
  if (cut_r > 0) chunk.push_back(SliceBatchView(*pending_[cut_b], 0, cut_r));
  rest.push_back(cut_r > 0
                     ? SliceBatchView(*pending_[cut_b], cut_r, pending_[cut_b]->num_rows - cut_r)
                     : pending_[cut_b]);
  rest_keys.emplace_back();
  for (size_t b = cut_b + 1; b < pending_.size(); ++b) {
    rest.push_back(pending_[b]);
    rest_keys.push_back(std::move(pending_keys_[b]));
  }
  pending_ = std::move(rest);
  pending_keys_ = std::move(rest_keys);
  pending_rows_ -= position;
  one_group_rows_ = pending_rows_;
  return RunChunk(std::move(chunk));
}

Status OrderedWindowChunks::Finish() {
  if (group_) TANDEM_RETURN_NOT_OK(EndLargeGroup());
  if (!pending_.empty()) {
    std::vector<BatchPtr> chunk = std::move(pending_);
    pending_.clear();
    pending_keys_.clear();
    pending_rows_ = 0;
    TANDEM_RETURN_NOT_OK(runner_->Run(std::move(chunk), &made_));
  }
  for (BatchPtr& b : made_.batches) TANDEM_RETURN_NOT_OK(emit_(std::move(b)));
  made_.batches.clear();
  return Status::OK();
}

Result<Table> WindowInOrderedChunks(const PlanNode& window, Table* sorted, int64_t chunk_rows,
                                    ExecContext& ctx) {
  if (!ComputesInOrderedChunks(window)) {
    return Status::Internal("window computed in chunks that cannot be");
  }
  Table out{window.schema, {}};
  OrderedWindowChunks chunks(window, chunk_rows, ctx, [&](BatchPtr b) {
    out.batches.push_back(std::move(b));
    return Status::OK();
  });
  if (NeedsEveryRowFirst(window)) {
    for (const BatchPtr& b : sorted->batches) TANDEM_RETURN_NOT_OK(chunks.PrepareBatch(b));
    TANDEM_RETURN_NOT_OK(chunks.FinishPrepare());
  }
  for (BatchPtr& b : sorted->batches) TANDEM_RETURN_NOT_OK(chunks.Consume(std::move(b)));
  sorted->batches.clear();
  TANDEM_RETURN_NOT_OK(chunks.Finish());
  return out;
}

}  // namespace tandem::cpu
