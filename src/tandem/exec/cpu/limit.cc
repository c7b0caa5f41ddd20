// Limit (kLimit): skips `offset` rows and keeps the next `limit` (all when limit < 0), across
// batches in order; only the batches at the two edges are copied.
#include <algorithm>

#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {

Result<Table> Limit(const PlanNode& node, const Table& input, ExecContext& ctx) {
  if (node.offset < 0) return Status::Invalid("OFFSET must not be negative");
  Table out;
  out.schema = node.schema;
  int64_t skip = node.offset;
  int64_t left = node.limit < 0 ? INT64_MAX : node.limit;
  for (const auto& b : input.batches) {
    if (left == 0) break;
    if (skip >= b->num_rows) {
      skip -= b->num_rows;
      continue;
    }
    const int64_t take = std::min(left, b->num_rows - skip);
    if (skip == 0 && take == b->num_rows) {
      auto same = std::make_shared<Batch>(*b);
      same->schema = node.schema;
      out.batches.push_back(std::move(same));
    } else if (take > 0) {
      auto part = opx::SliceBatch(*b, skip, take);
      part->schema = node.schema;
      out.batches.push_back(std::move(part));
    }
    left -= take;
    skip = 0;
  }
  return out;
}

}  // namespace tandem::cpu
