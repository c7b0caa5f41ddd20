// Expand (kExpand): every input row once per projection, as Spark's ExpandExec does for grouping
// sets. Morsels are expanded in parallel; each morsel gives one output batch per projection (the
// rows of a projection stay in input order, projections follow each other within a morsel).
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

Result<Table> Expand(const PlanNode& node, const Table& input, ExecContext& ctx) {
  const int threads = opx::OperatorThreads(ctx);
  const std::vector<BatchPtr> batches = opx::Morsels(input, threads);
  const size_t sets = node.projections.size();
  std::vector<BatchPtr> results(batches.size() * sets);
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(batches.size()),
      [&](int64_t i) -> Status {
        if (batches[i]->num_rows == 0) return Status::OK();
        EvalContext eval = ctx.eval;
        for (size_t p = 0; p < sets; ++p) {
          TANDEM_ASSIGN_OR_RAISE(
              results[static_cast<size_t>(i) * sets + p],
              opx::ProjectBatch(node.projections[p], node.schema, *batches[i], eval));
        }
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
