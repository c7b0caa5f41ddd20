// GPU Limit (gpu_operators.h), the twin of exec/cpu/limit.cc: skips `offset` rows and keeps the
// next `limit` (all when limit < 0). No kernels of its own: a row range is a SliceRows, and a
// limit that keeps every row shares the input's columns.
#include <algorithm>

#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> Limit(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  if (node.offset < 0) return Status::Invalid("OFFSET must not be negative");
  const int64_t n = input.num_rows;
  const int64_t begin = std::min(node.offset, n);
  const int64_t count = node.limit < 0 ? n - begin : std::min(node.limit, n - begin);
  if (begin == 0 && count == n) {
    auto same = std::make_shared<DeviceBatch>(input);  // shares the device columns
    same->schema = node.schema;
    return same;
  }
  TANDEM_ASSIGN_OR_RAISE(auto out, SliceRows(input, begin, count, *ctx.stream));
  out->schema = node.schema;
  return out;
}

}  // namespace tandem::gpu
