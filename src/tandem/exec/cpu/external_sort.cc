// Sorted runs on disk and their k-way merge (see external_sort.h).
#include "tandem/exec/cpu/external_sort.h"

#include <algorithm>
#include <functional>

#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {
namespace {

std::vector<ExprPtr> KeyExprs(const PlanNode& sort) {
  std::vector<ExprPtr> exprs;
  for (const SortKey& k : sort.sort_keys) exprs.push_back(k.expr);
  return exprs;
}

std::vector<SortOrder> KeyOrders(const PlanNode& sort) {
  std::vector<SortOrder> orders;
  for (const SortKey& k : sort.sort_keys) orders.push_back({k.ascending, k.nulls_first});
  return orders;
}

// Where one run stands in a merge: its current block, that block's key columns and the next row.
struct RunCursor {
  const SpillFile* file = nullptr;
  int64_t next_block = 0;
  BatchPtr block;  // null once the run is used up
  std::vector<ColumnPtr> keys;
  int64_t row = 0;
  int64_t slot = 0;  // the block's index among the blocks the pending output rows point into
};

}  // namespace

SortRunSink::SortRunSink(const PlanNode& sort, int64_t run_bytes, ExecContext& ctx)
    : sort_(sort), run_bytes_(std::max<int64_t>(run_bytes, 1)), ctx_(ctx) {}

SortRunSink::~SortRunSink() = default;

Status SortRunSink::Consume(const Batch& batch, EvalContext& eval) {
  if (batch.num_rows == 0) return Status::OK();
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::make_shared<Batch>(batch));
    pending_bytes_ += opx::BatchBytes(batch);
    if (pending_bytes_ < run_bytes_) return Status::OK();
  }
  // Past the run size: one thread at a time takes what is held and writes it as a run; threads
  // arriving meanwhile wait here with their batch already handed over.
  std::lock_guard<std::mutex> writing(write_mu_);
  std::vector<BatchPtr> run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_bytes_ < run_bytes_) return Status::OK();  // another thread took it
    run.swap(pending_);
    pending_bytes_ = 0;
  }
  return WriteRun(std::move(run), eval);
}

Status SortRunSink::WriteRun(std::vector<BatchPtr> batches, EvalContext& eval) {
  std::vector<int64_t> refs;
  {
    TANDEM_ASSIGN_OR_RAISE(SortKeyEncoder encoder,
                           MakeSortKeyEncoder(sort_.sort_keys, batches, eval));
    TANDEM_ASSIGN_OR_RAISE(refs, SortedRowRefs(batches, encoder));
  }
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillFile> file, SpillFile::Create(ctx_.spill_dir));
  const int64_t n = static_cast<int64_t>(refs.size());
  for (int64_t from = 0; from < n; from += kRunBlockRows) {
    const int64_t len = std::min(kRunBlockRows, n - from);
    TANDEM_ASSIGN_OR_RAISE(BatchPtr block,
                           GatherBatch(batches, sort_.schema, refs.data() + from, len));
    TANDEM_RETURN_NOT_OK(file->Append(*block));
  }
  TANDEM_RETURN_NOT_OK(file->FinishWriting());
  spilled_bytes_ += file->bytes();
  ++runs_written_;
  runs_.push_back(std::move(file));
  return Status::OK();
}

Result<Table> SortRunSink::Finish() {
  std::lock_guard<std::mutex> writing(write_mu_);
  if (runs_.empty() || pending_.empty()) return Table{sort_.schema, {}};
  std::vector<BatchPtr> run;
  run.swap(pending_);
  pending_bytes_ = 0;
  EvalContext eval = ctx_.eval;
  TANDEM_RETURN_NOT_OK(WriteRun(std::move(run), eval));
  return Table{sort_.schema, {}};
}

Result<Table> SortRunSink::Merge(int64_t merge_budget) {
  Table out{sort_.schema, {}};
  TANDEM_RETURN_NOT_OK(MergeInto(merge_budget, [&](BatchPtr b) {
    out.batches.push_back(std::move(b));
    return Status::OK();
  }));
  return out;
}

Status SortRunSink::MergeInto(int64_t merge_budget, const std::function<Status(BatchPtr)>& emit) {
  std::lock_guard<std::mutex> writing(write_mu_);
  if (runs_.empty()) {
    // Everything fitted in one run: the in-memory sort.
    Table input{sort_.schema, std::move(pending_)};
    pending_.clear();
    pending_bytes_ = 0;
    TANDEM_ASSIGN_OR_RAISE(SortKeyEncoder encoder,
                           MakeSortKeyEncoder(sort_.sort_keys, input.batches, ctx_.eval));
    TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> refs, SortedRowRefs(input.batches, encoder));
    TANDEM_ASSIGN_OR_RAISE(
        Table sorted, GatherTable(input, sort_.schema, refs, 0, static_cast<int64_t>(refs.size())));
    for (BatchPtr& b : sorted.batches) TANDEM_RETURN_NOT_OK(emit(std::move(b)));
    return Status::OK();
  }
  // Runs merged at once: one block each (and the output rows pointing into them) within budget.
  int64_t blocks = 0;
  int64_t bytes = 0;
  int64_t rows = 0;
  for (const auto& r : runs_) {
    blocks += r->num_blocks();
    bytes += r->bytes();
    rows += r->rows();
  }
  // The last merge's output blocks, copies of the rows: a third of the budget at most (at a
  // small budget a block of a morsel's rows was larger than the runs' blocks together).
  const int64_t row_bytes = std::max<int64_t>(1, bytes / std::max<int64_t>(rows, 1));
  const int64_t out_rows =
      std::clamp<int64_t>(merge_budget / (3 * row_bytes), 1024, kDefaultMorselRows);
  const int64_t block_bytes = std::max<int64_t>(1, bytes / std::max<int64_t>(blocks, 1));
  const size_t fan_in =
      static_cast<size_t>(std::clamp<int64_t>(merge_budget / (3 * block_bytes), 2, 64));
  while (runs_.size() > fan_in) {
    std::vector<std::unique_ptr<SpillFile>> longer;
    for (size_t i = 0; i < runs_.size(); i += fan_in) {
      const size_t end = std::min(runs_.size(), i + fan_in);
      if (end - i == 1) {
        longer.push_back(std::move(runs_[i]));
        continue;
      }
      std::vector<std::unique_ptr<SpillFile>> group;
      for (size_t j = i; j < end; ++j) group.push_back(std::move(runs_[j]));
      TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillFile> file, SpillFile::Create(ctx_.spill_dir));
      TANDEM_RETURN_NOT_OK(MergeGroup(std::move(group), kRunBlockRows,
                                      [&](BatchPtr b) { return file->Append(*b); }));
      TANDEM_RETURN_NOT_OK(file->FinishWriting());
      spilled_bytes_ += file->bytes();
      ++runs_written_;
      longer.push_back(std::move(file));
    }
    runs_ = std::move(longer);
    ++merge_passes_;
  }
  TANDEM_RETURN_NOT_OK(MergeGroup(std::move(runs_), out_rows, emit));
  runs_.clear();
  ++merge_passes_;
  return Status::OK();
}

Status SortRunSink::MergeGroup(std::vector<std::unique_ptr<SpillFile>> group, int64_t out_rows,
                               const std::function<Status(BatchPtr)>& emit) {
  const std::vector<ExprPtr> exprs = KeyExprs(sort_);
  const std::vector<SortOrder> orders = KeyOrders(sort_);
  const int num_keys = static_cast<int>(orders.size());
  EvalContext eval = ctx_.eval;
  std::vector<RunCursor> cursors(group.size());
  std::vector<BatchPtr> loaded;  // the blocks pending output rows point into
  std::vector<int64_t> refs;     // pending output rows (slot << 32 | row)
  refs.reserve(static_cast<size_t>(out_rows));

  // The cursor's next non-empty block (its block becomes null at the run's end).
  auto advance = [&](RunCursor& c) -> Status {
    c.block.reset();
    c.keys.clear();
    while (c.next_block < c.file->num_blocks()) {
      TANDEM_ASSIGN_OR_RAISE(BatchPtr block, c.file->ReadBlock(c.next_block++, sort_.schema));
      if (block->num_rows == 0) continue;
      TANDEM_ASSIGN_OR_RAISE(c.keys, EvaluateColumns(exprs, *block, eval));
      c.block = std::move(block);
      c.row = 0;
      c.slot = static_cast<int64_t>(loaded.size());
      loaded.push_back(c.block);
      break;
    }
    return Status::OK();
  };
  auto flush = [&]() -> Status {
    if (refs.empty()) return Status::OK();
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, GatherBatch(loaded, sort_.schema, refs.data(),
                                                       static_cast<int64_t>(refs.size())));
    refs.clear();
    loaded.clear();
    for (RunCursor& c : cursors) {
      if (!c.block) continue;
      c.slot = static_cast<int64_t>(loaded.size());
      loaded.push_back(c.block);
    }
    return emit(std::move(batch));
  };
  // A min-heap of cursor indexes: the smallest current row on top, ties to the earlier run.
  auto after = [&](size_t a, size_t b) {
    const RunCursor& x = cursors[a];
    const RunCursor& y = cursors[b];
    const int c = CompareSortRows(x.keys, x.row, y.keys, y.row, orders, 0, num_keys);
    return c != 0 ? c > 0 : a > b;
  };
  std::vector<size_t> heap;
  for (size_t i = 0; i < group.size(); ++i) {
    cursors[i].file = group[i].get();
    TANDEM_RETURN_NOT_OK(advance(cursors[i]));
    if (cursors[i].block) heap.push_back(i);
  }
  std::make_heap(heap.begin(), heap.end(), after);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), after);
    const size_t i = heap.back();
    RunCursor& c = cursors[i];
    refs.push_back(PackRowRef(c.slot, c.row));
    if (++c.row == c.block->num_rows) {
      TANDEM_RETURN_NOT_OK(advance(c));
    }
    if (c.block) {
      std::push_heap(heap.begin(), heap.end(), after);
    } else {
      heap.pop_back();
      group[i].reset();  // the run is used up: its file goes
    }
    if (static_cast<int64_t>(refs.size()) >= out_rows) TANDEM_RETURN_NOT_OK(flush());
  }
  return flush();
}

}  // namespace tandem::cpu
