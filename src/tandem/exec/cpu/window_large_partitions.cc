// Window partitions larger than memory (see window_large_partitions.h): the rows sorted through
// disk by their partition, then walked in that order.
#include "tandem/exec/cpu/window_large_partitions.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "tandem/column/slice.h"
#include "tandem/exec/cpu/external_sort.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/ordered_window.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/spilling_pipeline.h"
#include "tandem/exec/cpu/window_spill.h"

namespace tandem::cpu {
namespace {

// Whether `keys` are the expressions of `shared`, in any order.
bool SameKeys(const std::vector<ExprPtr>& keys, const std::vector<ExprPtr>& shared) {
  if (keys.size() != shared.size()) return false;
  for (const ExprPtr& key : keys) {
    bool found = false;
    for (const ExprPtr& s : shared) found = found || SameExpr(*key, *s);
    if (!found) return false;
  }
  return true;
}

// The window's calls over one of its partitions (their PARTITION BY dropped), computed in ordered
// chunks; null when some call has other keys than `shared` or cannot be computed so.
PlanPtr OnePartitionWindow(const PlanNode& window, const std::vector<ExprPtr>& shared) {
  for (const WindowCall& call : window.windows) {
    if (!SameKeys(call.partition_by, shared)) return nullptr;
  }
  auto one = std::make_shared<PlanNode>(window);
  for (WindowCall& call : one->windows) call.partition_by.clear();
  return ComputesInOrderedChunks(*one) ? one : nullptr;
}

class SortedPartitionWalk {
 public:
  SortedPartitionWalk(const PlanNode& window, ExecContext& ctx,
                      const std::function<Status(Table)>& emit)
      : window_(window), ctx_(ctx), emit_(emit) {
    for (const Expr* key : SharedPartitionKeys(window)) {
      for (const ExprPtr& k : window.windows[0].partition_by) {
        if (k.get() == key) keys_.push_back(k);
      }
    }
    orders_.assign(keys_.size(), SortOrder{});
    one_ = OnePartitionWindow(window, keys_);
  }

  int large_partitions() const { return large_partitions_; }
  int64_t spilled_bytes() const { return spilled_bytes_; }

  Status Run(const SpillFile& rows) {
    const int64_t row_bytes =
        rows.rows() > 0 ? std::max<int64_t>(1, rows.bytes() / rows.rows()) : 1;
    // Groups of whole partitions, and a partition that goes to chunks, past an eighth of what
    // the budget has free; the chunks themselves as a window over one partition sizes them.
    group_rows_limit_ = std::max<int64_t>(4096, SpillBudget() / 8 / row_bytes);
    chunk_rows_ = one_ ? ChunkRows(*one_, row_bytes) : group_rows_limit_;
    TANDEM_RETURN_NOT_OK(Sort(rows));
    for (next_block_ = 0; next_block_ < sorted_->num_blocks();) {
      if (ctx_.Cancelled()) return ExecContext::CancelledError();
      TANDEM_ASSIGN_OR_RAISE(BatchPtr batch,
                             sorted_->ReadBlock(next_block_++, window_.children[0]->schema));
      TANDEM_RETURN_NOT_OK(Take(batch));
    }
    TANDEM_RETURN_NOT_OK(EndPartition());
    return FlushGroup();
  }

 private:
  // The rows in order of the shared PARTITION BY keys (then the calls' ORDER BY when a large
  // partition can be computed in chunks), into sorted_.
  Status Sort(const SpillFile& rows) {
    std::vector<SortKey> keys;
    for (const ExprPtr& k : keys_) keys.push_back(SortKey{k, true, false});
    if (one_) {
      for (const SortKey& k : ChunkOrder(*one_)) keys.push_back(k);
    }
    const PlanPtr sort = MakeSort(window_.children[0], std::move(keys));
    SortRunSink runs(*sort, SpillBudget() / 4, ctx_);
    EvalContext eval = ctx_.eval;
    for (int64_t i = 0; i < rows.num_blocks(); ++i) {
      TANDEM_ASSIGN_OR_RAISE(BatchPtr b, rows.ReadBlock(i, window_.children[0]->schema));
      TANDEM_RETURN_NOT_OK(runs.Consume(*b, eval));
    }
    TANDEM_RETURN_NOT_OK(runs.Finish().status());
    TANDEM_ASSIGN_OR_RAISE(sorted_, SpillFile::Create(ctx_.spill_dir));
    TANDEM_RETURN_NOT_OK(
        runs.MergeInto(SpillBudget() / 2, [&](BatchPtr b) { return sorted_->Append(*b); }));
    TANDEM_RETURN_NOT_OK(sorted_->FinishWriting());
    spilled_bytes_ = runs.spilled_bytes() + sorted_->bytes();
    return Status::OK();
  }

  Result<std::vector<ColumnPtr>> KeysOf(const Batch& batch) {
    EvalContext eval = ctx_.eval;
    return EvaluateColumns(keys_, batch, eval);
  }

  // The next sorted rows: cut where the partition changes.
  Status Take(const BatchPtr& batch) {
    TANDEM_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys, KeysOf(*batch));
    const int n = static_cast<int>(keys_.size());
    int64_t from = 0;
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      const bool starts =
          r > 0 ? CompareSortRows(keys, r - 1, keys, r, orders_, 0, n) != 0
                : !last_keys_.empty() &&
                      CompareSortRows(last_keys_, last_row_, keys, 0, orders_, 0, n) != 0;
      if (!starts) continue;
      if (r > from) TANDEM_RETURN_NOT_OK(Append(SliceBatchView(*batch, from, r - from)));
      TANDEM_RETURN_NOT_OK(EndPartition());
      from = r;
    }
    if (batch->num_rows > from) {
      TANDEM_RETURN_NOT_OK(
          Append(from == 0 ? batch : SliceBatchView(*batch, from, batch->num_rows - from)));
    }
    last_keys_ = std::move(keys);
    last_row_ = batch->num_rows - 1;
    if (!chunks_ && current_rows_ > group_rows_limit_) return StartLarge();
    return Status::OK();
  }

  Status Append(BatchPtr rows) {
    if (chunks_) return chunks_->Consume(std::move(rows));
    current_rows_ += rows->num_rows;
    current_.push_back(std::move(rows));
    return Status::OK();
  }

  // The partition taken so far is whole: into the group (computed once it is large enough), or
  // the last of a large partition's chunks.
  Status EndPartition() {
    if (chunks_) {
      TANDEM_RETURN_NOT_OK(chunks_->Finish());
      chunks_.reset();
      ++large_partitions_;
      return Status::OK();
    }
    for (BatchPtr& b : current_) group_.push_back(std::move(b));
    group_rows_ += current_rows_;
    current_.clear();
    current_rows_ = 0;
    return group_rows_ >= group_rows_limit_ ? FlushGroup() : Status::OK();
  }

  Status FlushGroup() {
    if (group_.empty()) return Status::OK();
    Table rows{window_.children[0]->schema, std::move(group_)};
    group_.clear();
    group_rows_ = 0;
    TANDEM_ASSIGN_OR_RAISE(Table out, Window(window_, rows, ctx_));
    rows = Table();
    return emit_(std::move(out));
  }

  // The partition being taken outgrew a group: computed in ordered chunks from here on.
  Status StartLarge() {
    TANDEM_RETURN_NOT_OK(FlushGroup());
    if (!one_) {
      return Status::OutOfMemory(
          "host memory limit reached: a window partition larger than tandem.memory.host.limit "
          "allows, whose calls cannot be computed a chunk at a time (raise the limit)");
    }
    chunks_.emplace(*one_, chunk_rows_, ctx_, [this](BatchPtr b) {
      return emit_(Table{window_.schema, {std::move(b)}});
    });
    if (NeedsEveryRowFirst(*one_)) {
      // Every row of the partition first: those taken, then the file's until its key changes.
      for (const BatchPtr& b : current_) TANDEM_RETURN_NOT_OK(chunks_->PrepareBatch(b));
      TANDEM_RETURN_NOT_OK(PrepareAhead());
      TANDEM_RETURN_NOT_OK(chunks_->FinishPrepare());
    }
    std::vector<BatchPtr> taken = std::move(current_);
    current_.clear();
    current_rows_ = 0;
    for (BatchPtr& b : taken) TANDEM_RETURN_NOT_OK(chunks_->Consume(std::move(b)));
    return Status::OK();
  }

  // The partition's rows in the blocks not yet taken, to PrepareBatch (they are read again).
  Status PrepareAhead() {
    const int n = static_cast<int>(keys_.size());
    for (int64_t i = next_block_; i < sorted_->num_blocks(); ++i) {
      TANDEM_ASSIGN_OR_RAISE(BatchPtr b, sorted_->ReadBlock(i, window_.children[0]->schema));
      TANDEM_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys, KeysOf(*b));
      int64_t end = 0;
      while (end < b->num_rows &&
             CompareSortRows(last_keys_, last_row_, keys, end, orders_, 0, n) == 0) {
        ++end;
      }
      if (end > 0) {
        TANDEM_RETURN_NOT_OK(
            chunks_->PrepareBatch(end == b->num_rows ? b : SliceBatchView(*b, 0, end)));
      }
      if (end < b->num_rows) break;
    }
    return Status::OK();
  }

  const PlanNode& window_;
  ExecContext& ctx_;
  const std::function<Status(Table)>& emit_;
  std::vector<ExprPtr> keys_;  // the shared PARTITION BY keys
  std::vector<SortOrder> orders_;
  PlanPtr one_;  // the calls over one partition (null: they cannot run in chunks)
  int64_t group_rows_limit_ = 0;
  int64_t chunk_rows_ = 0;
  std::unique_ptr<SpillFile> sorted_;
  int64_t next_block_ = 0;
  std::vector<ColumnPtr> last_keys_;  // of the last row taken
  int64_t last_row_ = 0;
  std::vector<BatchPtr> current_;  // the partition being taken (unless it went to chunks_)
  int64_t current_rows_ = 0;
  std::vector<BatchPtr> group_;  // whole partitions not yet computed
  int64_t group_rows_ = 0;
  std::optional<OrderedWindowChunks> chunks_;  // the large partition being taken
  int large_partitions_ = 0;
  int64_t spilled_bytes_ = 0;
};

}  // namespace

Status WindowOverSortedRows(const PlanNode& window, const SpillFile& rows, ExecContext& ctx,
                            const std::function<Status(Table)>& emit, int* large_partitions,
                            int64_t* spilled_bytes) {
  SortedPartitionWalk walk(window, ctx, emit);
  TANDEM_RETURN_NOT_OK(walk.Run(rows));
  *large_partitions = walk.large_partitions();
  *spilled_bytes = walk.spilled_bytes();
  return Status::OK();
}

}  // namespace tandem::cpu
