// Sort: multi-key ORDER BY over normalized key words (sort_keys.h), parallel run sort + merge
// (sort_runs.h), stable; the output rows are gathered in parallel.
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {

Result<Table> Sort(const PlanNode& node, const Table& input, ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(SortKeyEncoder encoder,
                         MakeSortKeyEncoder(node.sort_keys, input.batches, ctx.eval));
  TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> refs, SortedRowRefs(input.batches, encoder));
  return GatherTable(input, node.schema, refs, 0, static_cast<int64_t>(refs.size()));
}

}  // namespace tandem::cpu
