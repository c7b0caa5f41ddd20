// GPU Expand (gpu_operators_more.h), the twin of exec/cpu/expand.cc, composed of other GPU
// operators rather than kernels of its own: each projection is a GPU Project of the input, and
// the projections' outputs are concatenated as a UNION ALL would (in projection order, where the
// CPU interleaves them by morsel; Expand's consumers, aggregates, do not depend on row order).
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {
namespace {

PlanNode ProjectionNode(const PlanNode& expand, size_t p) {
  PlanNode project;
  project.kind = PlanKind::kProject;
  project.children = expand.children;
  project.schema = expand.schema;
  project.exprs = expand.projections[p];
  return project;
}

}  // namespace

std::string ExpandUnsupported(const PlanNode& node) {
  for (size_t p = 0; p < node.projections.size(); ++p) {
    const std::string why = ProjectUnsupported(ProjectionNode(node, p));
    if (!why.empty()) return "Expand projection " + std::to_string(p + 1) + ": " + why;
  }
  return "";
}

Result<DeviceBatchPtr> Expand(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  if (node.projections.empty()) return Status::Internal("an Expand without projections");
  PlanNode union_all;
  union_all.kind = PlanKind::kSetOp;
  union_all.set_op = SetOpKind::kUnion;
  union_all.set_all = true;
  union_all.schema = node.schema;
  DeviceBatchPtr out;
  for (size_t p = 0; p < node.projections.size(); ++p) {
    TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr part, Project(ProjectionNode(node, p), input, ctx));
    if (!out) {
      out = std::move(part);
    } else {
      TANDEM_ASSIGN_OR_RAISE(out, SetOperation(union_all, *out, *part, ctx));
    }
  }
  return out;
}

}  // namespace tandem::gpu
