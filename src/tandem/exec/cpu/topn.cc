// TopN: ORDER BY ... LIMIT n OFFSET m without a full sort: each run keeps only its first
// n + m rows (partial sort) and merges stop at n + m (sort_runs.h); the offset rows are skipped.
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {

Result<Table> TopN(const PlanNode& limit_node, const PlanNode& sort_node, const Table& input,
                   ExecContext& ctx) {
  const int64_t offset = std::max<int64_t>(limit_node.offset, 0);
  int64_t keep = -1;
  if (limit_node.limit >= 0) {
    keep = limit_node.limit > INT64_MAX - offset ? INT64_MAX : limit_node.limit + offset;
  }
  TANDEM_ASSIGN_OR_RAISE(SortKeyEncoder encoder,
                         MakeSortKeyEncoder(sort_node.sort_keys, input.batches, ctx.eval));
  TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> refs, SortedRowRefs(input.batches, encoder, keep));
  return GatherTable(input, limit_node.schema, refs, offset, static_cast<int64_t>(refs.size()));
}

}  // namespace tandem::cpu
