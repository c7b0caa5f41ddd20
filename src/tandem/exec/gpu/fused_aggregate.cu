// Fused aggregate kernels for the GPU hash aggregate (fused_aggregate.cuh).
#include <cuda_runtime.h>

#include <algorithm>

#include "tandem/exec/gpu/aggregate_few_groups.cuh"
#include "tandem/exec/gpu/aggregate_tuning.h"
#include "tandem/exec/gpu/fused_aggregate.cuh"
#include "tandem/exec/gpu/row_keys.cuh"
#include "tandem/expr/gpu/generated_kernels.h"

namespace tandem::gpu::fused {
namespace {

bool PlainColumn(const Expr& e) { return e.kind == ExprKind::kColumnRef && e.outer_depth == 0; }

// How a fused kernel folds `a`, or "" in *why.
AggregateSlot SlotOf(const AggregateCall& a, std::string* why) {
  AggregateSlot slot;
  if (a.distinct) *why = "DISTINCT " + a.name;
  if (a.filter) *why = "FILTER clause of " + a.name;
  switch (a.kind) {
    case AggregateKind::kCountStar:
      slot.kind = AccKind::kCount;
      return slot;
    case AggregateKind::kCount:
      slot.kind = AccKind::kCount;
      return slot;
    case AggregateKind::kSum:
    case AggregateKind::kAvg: {
      const DataType& t = a.arg ? a.arg->type : a.type;
      if (t.is_floating()) {
        slot.kind = AccKind::kDoubleSum;
        slot.float32 = t.id == TypeId::kFloat32;
      } else if (t.is_integer() || t.is_decimal()) {
        slot.kind = t.is_wide_decimal() ? AccKind::kWideSum : AccKind::kNarrowSum;
        slot.unsigned64 = t.id == TypeId::kUInt64;
      } else {
        *why = a.name + " of type " + t.ToString();
      }
      return slot;
    }
    default:
      *why = std::string(AggregateKindName(a.kind)) + " is not fused";
      return slot;
  }
}

}  // namespace

std::string NodeUnsupported(const PlanNode& node) {
  if (!node.grouping_sets.empty()) return "grouping sets";
  if (node.aggregates.empty()) return "no aggregates";
  if (static_cast<int>(node.aggregates.size()) > kMaxAggregates) return "too many aggregates";
  for (const auto& k : node.group_keys) {
    if (!PlainColumn(*k)) return "a computed group key";
  }
  for (const AggregateCall& a : node.aggregates) {
    std::string why;
    SlotOf(a, &why);
    if (!why.empty()) return why;
    if (a.kind != AggregateKind::kCountStar && !a.arg) return a.name + " without an argument";
    if (a.arg && internal::FindUdfCall(*a.arg)) return "a UDF call in " + a.name;
  }
  return "";
}

Result<std::unique_ptr<Prepared>> Prepare(const PlanNode& node, const Expr* filter,
                                          const DeviceBatch& input, const EvalContext& eval,
                                          const Stream& stream) {
  if (eval.gpu_kernels == GpuKernels::kInterpret) return std::unique_ptr<Prepared>();
  if (filter && internal::FindUdfCall(*filter)) return std::unique_ptr<Prepared>();
  auto p = std::make_unique<Prepared>();
  p->launches = eval.gpu_launches;
  if (filter) {
    TANDEM_ASSIGN_OR_RAISE(auto dp, internal::PrepareProgram(*filter, true, input, eval, stream));
    p->programs.push_back(std::move(dp));
    p->shape.filter_program = true;
  }
  for (const AggregateCall& a : node.aggregates) {
    std::string why;
    AggregateSlot slot = SlotOf(a, &why);
    if (!why.empty()) return std::unique_ptr<Prepared>();
    if (a.kind != AggregateKind::kCountStar) {
      TANDEM_ASSIGN_OR_RAISE(auto dp, internal::PrepareProgram(*a.arg, false, input, eval, stream));
      slot.program = static_cast<int>(p->programs.size());
      p->programs.push_back(std::move(dp));
    }
    p->shape.slots.push_back(slot);
  }
  for (const auto& dp : p->programs) p->shape.programs.push_back(&dp.program);
  if (!ShapeUnsupported(p->shape).empty()) return std::unique_ptr<Prepared>();
  p->kernel = internal::GeneratedKernelForSource(FusedAggregateSource(p->shape), eval);
  if (p->kernel == nullptr) return std::unique_ptr<Prepared>();
  return std::move(p);
}

Status Launch(const Prepared& p, const std::vector<State>& states, const int64_t* gid, int64_t n,
              int64_t groups, int* error, const Stream& stream) {
  if (n == 0) return Status::OK();
  if (states.size() != p.shape.slots.size() || states.size() > kMaxAggregates ||
      p.programs.size() > kMaxPrograms) {
    return Status::Internal("fused aggregate launched with mismatched states");
  }
  Params params;
  for (size_t i = 0; i < p.programs.size(); ++i) params.prog[i] = p.programs[i].params;
  for (size_t j = 0; j < states.size(); ++j) params.state[j] = states[j];
  params.gid = gid;
  params.n = n;
  params.groups = groups;
  params.error = error;
  const int64_t shared = few::FewGroupsSharedBytes(groups, AccBytes(p.shape));
  params.few = shared >= 0 ? 1 : 0;
  const unsigned grid = params.few ? few::FewGroupsGrid(n) : keys::GridFor(n);
  void* args[] = {&params};
  if (params.few) NoteAggregateFewGroupsFold();
  if (p.launches) ++p.launches->fused;
  return keys::CudaStatus(
      cudaLaunchKernel(p.kernel, dim3(grid), dim3(keys::kThreads), args,
                       params.few ? static_cast<size_t>(shared) : 0, keys::Raw(stream)),
      "fused aggregate kernel launch");
}

}  // namespace tandem::gpu::fused
