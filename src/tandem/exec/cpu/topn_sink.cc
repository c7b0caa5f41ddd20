// TopNSink (topn_sink.h).
#include "tandem/exec/cpu/topn_sink.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {

namespace {

// Packed refs (sort_runs.h) of rows [begin, end) of batch 0.
std::vector<int64_t> RowRange(int64_t begin, int64_t end) {
  std::vector<int64_t> refs;
  refs.reserve(static_cast<size_t>(end - begin));
  for (int64_t r = begin; r < end; ++r) refs.push_back(PackRowRef(0, r));
  return refs;
}

int64_t RowsOf(const std::vector<BatchPtr>& batches) {
  int64_t rows = 0;
  for (const BatchPtr& b : batches) rows += b->num_rows;
  return rows;
}

}  // namespace

TopNSink::TopNSink(const PlanNode& limit, const PlanNode& sort, ExecContext& ctx)
    : limit_(limit), sort_(sort), ctx_(ctx) {
  const int64_t offset = std::max<int64_t>(limit.offset, 0);
  const int64_t n = std::max<int64_t>(limit.limit, 0);
  keep_ = n > std::numeric_limits<int64_t>::max() - offset ? std::numeric_limits<int64_t>::max()
                                                           : n + offset;
  const int64_t floor = int64_t{1} << 17;
  compact_at_ = keep_ > std::numeric_limits<int64_t>::max() / 4
                    ? std::numeric_limits<int64_t>::max()
                    : std::max(4 * keep_, floor);
}

Result<std::vector<BatchPtr>> TopNSink::FirstRows(std::vector<BatchPtr> rows,
                                                  EvalContext& eval) const {
  if (RowsOf(rows) <= keep_) return rows;
  TANDEM_ASSIGN_OR_RAISE(SortKeyEncoder encoder, MakeSortKeyEncoder(sort_.sort_keys, rows, eval));
  TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> refs, SortedRowRefs(rows, encoder, keep_));
  const Table input{sort_.schema, std::move(rows)};
  TANDEM_ASSIGN_OR_RAISE(
      Table first, GatherTable(input, sort_.schema, refs, 0, static_cast<int64_t>(refs.size())));
  return std::move(first.batches);
}

Status TopNSink::Consume(const Batch& batch, EvalContext& eval) {
  if (batch.num_rows == 0 || keep_ == 0) return Status::OK();
  const auto start = std::chrono::steady_clock::now();
  struct AddTime {
    std::atomic<int64_t>* nanos;
    std::chrono::steady_clock::time_point start;
    ~AddTime() {
      nanos->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count(),
                       std::memory_order_relaxed);
    }
  } add_time{&consume_nanos_, start};
  TANDEM_ASSIGN_OR_RAISE(std::vector<BatchPtr> first,
                         FirstRows({std::make_shared<Batch>(batch)}, eval));
  std::vector<BatchPtr> to_cut;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (BatchPtr& b : first) {
      candidate_rows_ += b->num_rows;
      candidates_.push_back(std::move(b));
    }
    if (candidate_rows_ < compact_at_) return Status::OK();
    to_cut.swap(candidates_);
    candidate_rows_ = 0;
  }
  // Cut back outside the lock: other threads go on adding candidates meanwhile.
  TANDEM_ASSIGN_OR_RAISE(std::vector<BatchPtr> kept, FirstRows(std::move(to_cut), eval));
  std::lock_guard<std::mutex> lock(mu_);
  for (BatchPtr& b : kept) {
    candidate_rows_ += b->num_rows;
    candidates_.push_back(std::move(b));
  }
  return Status::OK();
}

Result<Table> TopNSink::Finish() {
  std::vector<BatchPtr> rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rows.swap(candidates_);
    candidate_rows_ = 0;
  }
  return TopN(limit_, sort_, Table{sort_.schema, std::move(rows)}, ctx_);
}

Status TopNSink::Restart() {
  std::lock_guard<std::mutex> lock(mu_);
  consume_nanos_ = 0;
  candidates_.clear();
  candidate_rows_ = 0;
  return Status::OK();
}

Status RowRangeSink::Consume(const Batch& batch, EvalContext& /*eval*/) {
  int64_t begin = std::min(offset_, batch.num_rows);
  offset_ -= begin;
  const int64_t take = std::min(limit_, batch.num_rows - begin);
  if (take <= 0) return Status::OK();
  limit_ -= take;
  // A copy, not a view: the merge's block is freed as the next one comes.
  TANDEM_ASSIGN_OR_RAISE(Table rows, GatherTable(Table{schema_, {std::make_shared<Batch>(batch)}},
                                                 schema_, RowRange(begin, begin + take), 0, take));
  for (BatchPtr& b : rows.batches) kept_.push_back(std::move(b));
  return Status::OK();
}

}  // namespace tandem::cpu
