// GPU Filter and Project, twins of exec/cpu/filter.cc and project.cc. Filter selects the rows
// where the predicate is TRUE (SelectTrue) and gathers them (Gather), passing the input's
// columns through when every row is kept; Project evaluates each expression, sharing the input
// column for a plain column reference (no copy), as the CPU does.
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/gpu/step_timer.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> Filter(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  if (!node.predicate) return Status::Internal("filter without a predicate");
  if (ctx.stream == nullptr) return Status::Internal("GPU filter without a stream");
  const Stream& stream = *ctx.stream;
  StepTimer timer("filter", stream);
  TANDEM_ASSIGN_OR_RAISE(Selection sel, SelectTrue(*node.predicate, input, ctx.eval, stream));
  timer.Mark([&] { return "selection of " + std::to_string(input.num_rows) + " rows"; });
  if (sel.count == input.num_rows) {
    auto same = std::make_shared<DeviceBatch>(input);  // shares the columns
    same->schema = node.schema;
    return same;
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr out,
                         Gather(input, sel.indices.data_as<int64_t>(), sel.count, stream));
  out->schema = node.schema;
  out->num_rows = sel.count;
  timer.Mark([&] {
    return "gather of " + std::to_string(sel.count) + " rows, " +
           std::to_string(input.columns.size()) + " columns";
  });
  return out;
}

Result<DeviceBatchPtr> Project(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  if (ctx.stream == nullptr) return Status::Internal("GPU project without a stream");
  auto out = std::make_shared<DeviceBatch>();
  out->schema = node.schema;
  out->num_rows = input.num_rows;
  StepTimer timer("project", *ctx.stream);
  for (const auto& e : node.exprs) {
    TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr col, Evaluate(*e, input, ctx.eval, *ctx.stream));
    timer.Mark([&] { return e->ToString(); });
    if (col->length != input.num_rows) {
      return Status::Internal("expression " + e->ToString() + " gave " +
                              std::to_string(col->length) + " values for " +
                              std::to_string(input.num_rows) + " rows");
    }
    out->columns.push_back(std::move(col));
  }
  return out;
}

}  // namespace tandem::gpu
