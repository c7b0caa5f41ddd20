// Filter (kFilter): evaluates the predicate on every batch in parallel and keeps the rows where it
// is TRUE; batches that keep every row pass through uncopied, empty ones are dropped, order stays.
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

Result<Table> Filter(const PlanNode& node, const Table& input, ExecContext& ctx) {
  if (!node.predicate) return Status::Internal("filter without a predicate");
  const int threads = opx::OperatorThreads(ctx);
  const std::vector<BatchPtr> batches = opx::Morsels(input, threads);
  std::vector<BatchPtr> results(batches.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(batches.size()),
      [&](int64_t i) -> Status {
        const Batch& batch = *batches[i];
        if (batch.num_rows == 0) return Status::OK();
        EvalContext eval = ctx.eval;
        TANDEM_ASSIGN_OR_RAISE(results[i],
                               opx::FilterBatch(*node.predicate, batch, node.schema, eval));
        return Status::OK();
      },
      threads + 1));
  Table out;
  out.schema = node.schema;
  for (auto& b : results) {
    if (!b) continue;
    out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace tandem::cpu
