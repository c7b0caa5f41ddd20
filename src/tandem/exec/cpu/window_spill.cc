// Window functions partition by partition from disk (see window_spill.h).
#include "tandem/exec/cpu/window_spill.h"

#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

std::vector<const Expr*> SharedPartitionKeys(const PlanNode& window) {
  std::vector<const Expr*> shared;
  if (window.windows.empty()) return shared;
  for (const ExprPtr& key : window.windows[0].partition_by) {
    bool everywhere = true;
    for (size_t w = 1; w < window.windows.size() && everywhere; ++w) {
      bool found = false;
      for (const ExprPtr& other : window.windows[w].partition_by) {
        found = found || SameExpr(*key, *other);
      }
      everywhere = found;
    }
    if (everywhere) shared.push_back(key.get());
  }
  return shared;
}

Result<Table> WindowOverPartitions(const PlanNode& window, SpillPartitions& parts, ExecContext& ctx,
                                   const HostRetry& retry) {
  const Schema& input_schema = window.children[0]->schema;
  Table out{window.schema, {}};
  for (int p = 0; p < parts.count(); ++p) {
    if (parts.file(p).rows() == 0) continue;
    TANDEM_ASSIGN_OR_RAISE(Table part, retry(window, [&]() -> Result<Table> {
                             TANDEM_ASSIGN_OR_RAISE(Table rows,
                                                    parts.file(p).ReadAll(input_schema));
                             return Window(window, rows, ctx);
                           }));
    for (BatchPtr& b : part.batches) out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace tandem::cpu
