// Project (kProject): evaluates the expressions on every batch in parallel (column references
// pass through without copying); keeps batch order.
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

Result<Table> Project(const PlanNode& node, const Table& input, ExecContext& ctx) {
  const int threads = opx::OperatorThreads(ctx);
  const std::vector<BatchPtr> batches = opx::Morsels(input, threads);
  std::vector<BatchPtr> results(batches.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(batches.size()),
      [&](int64_t i) -> Status {
        if (batches[i]->num_rows == 0) return Status::OK();
        EvalContext eval = ctx.eval;
        TANDEM_ASSIGN_OR_RAISE(results[i],
                               opx::ProjectBatch(node.exprs, node.schema, *batches[i], eval));
        return Status::OK();
      },
      threads + 1));
  Table out;
  out.schema = node.schema;
  for (auto& b : results) {
    if (b) out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace tandem::cpu
