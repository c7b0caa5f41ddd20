// HashJoin: every join type. With equi keys the right input is built into a JoinHashTable
// (parallel, partitioned) and the left input is probed morsel by morsel in parallel; without keys
// it is a nested-loop join (CROSS JOIN, non-equi conditions). The join-type logic (residual
// condition, outer rows, semi/anti) lives in join_emit.cc; mark joins in join_mark.cc. A SEMI or
// ANTI join whose left input is much smaller than its right flips the roles
// (FlippedSemiAntiJoin): the small left side is built and the large right side probes, setting
// a matched flag per left row (after the residual condition, when there is one, holds for the
// pair). A LEFT join so shaped runs as the RIGHT join with the roles swapped (FlippedLeftJoin).
// Output order is not specified.
#include <algorithm>
#include <atomic>
#include <memory>

#include "tandem/column/take.h"
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/flipped_join.h"
#include "tandem/exec/cpu/join_emit.h"
#include "tandem/exec/cpu/join_hash_table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/join_mark.h"
#include "tandem/exec/cpu/join_probe.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/row_gather.h"

namespace tandem::cpu {
namespace {

Table CollectOutput(const Schema& schema, std::vector<BatchPtr>& batches) {
  Table out;
  out.schema = schema;
  for (auto& b : batches) {
    if (b && b->num_rows > 0) out.batches.push_back(std::move(b));
  }
  return out;
}

Table CollectOutput(const Schema& schema, std::vector<std::vector<BatchPtr>>& batches) {
  std::vector<BatchPtr> flat;
  for (auto& part : batches) {
    for (auto& b : part) flat.push_back(std::move(b));
  }
  return CollectOutput(schema, flat);
}

Result<Table> EquiJoin(const PlanNode& node, const Table& left, const Table& right,
                       ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<JoinProbe> probe, JoinProbe::Build(node, right, ctx));
  if (probe->no_output()) {
    Table empty;
    empty.schema = node.schema;
    return empty;
  }
  const JoinHashTable& table = probe->table();
  TANDEM_ASSIGN_OR_RAISE(auto left_keys,
                         EvaluateColumnsPerBatch(node.left_keys, left.batches, ctx.eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(left_keys, probe->layout().types(), "hash join"));
  JoinEmitter emitter(node, left, right, table.entry_refs(), table.num_entries());
  const std::vector<Morsel> morsels = MakeMorsels(left.batches);
  std::vector<std::vector<BatchPtr>> outputs(morsels.size() + 1);
  OutputBudget budget(node, ctx);
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(morsels.size()), [&](int64_t mi) -> Status {
        const Morsel& m = morsels[mi];
        EvalContext eval = ctx.eval;
        return probe->ProbeMorsel(left_keys[m.batch], m, emitter, budget, eval, &outputs[mi]);
      }));
  if (node.join_type == JoinType::kRight || node.join_type == JoinType::kFull) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr unmatched, emitter.EmitUnmatchedBuild(table.null_key_refs()));
    outputs.back().push_back(std::move(unmatched));
  }
  return CollectOutput(node.schema, outputs);
}

// Flip SEMI/ANTI when the left input is this many times smaller than the right one.
constexpr int64_t kFlipRatio = 4;

bool ShouldFlipSemiAnti(const PlanNode& node, const Table& left, const Table& right) {
  return FlippedSemiAntiSink::Applies(node) && left.num_rows() * kFlipRatio < right.num_rows();
}

// SEMI/ANTI join with the hash table on the left keys (FlippedSemiAntiSink): the right rows
// probe in parallel and flag the left rows they match; then the left rows whose flag is set
// (SEMI) or clear (ANTI) are emitted in left input order.
Result<Table> FlippedSemiAntiJoin(const PlanNode& node, const Table& left, const Table& right,
                                  ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<FlippedSemiAntiSink> sink,
                         FlippedSemiAntiSink::Build(node, left, right.schema.num_fields(), ctx));
  const std::vector<BatchPtr> morsels = opx::Morsels(right, opx::OperatorThreads(ctx));
  TANDEM_RETURN_NOT_OK(opx::ForEachMorsel(
      static_cast<int64_t>(morsels.size()), opx::OperatorThreads(ctx), ctx.eval,
      [&](int64_t m, EvalContext& eval) { return sink->Consume(*morsels[m], eval); }));
  TANDEM_RETURN_NOT_OK(sink->Finish().status());
  return sink->Emit();
}

bool ShouldFlipLeft(const PlanNode& node, const Table& left, const Table& right) {
  return FlippedLeftSink::Applies(node) && left.num_rows() * kFlipRatio < right.num_rows();
}

// LEFT join with the hash table on the (small) left input (FlippedLeftSink): the right rows
// probe in parallel, their matches are output rows, and the left rows no right row matched come
// last with NULLs.
Result<Table> FlippedLeftJoin(const PlanNode& node, const Table& left, const Table& right,
                              ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<FlippedLeftSink> sink,
                         FlippedLeftSink::Build(node, left, right.schema, nullptr, ctx));
  const std::vector<BatchPtr> morsels = opx::Morsels(right, opx::OperatorThreads(ctx));
  TANDEM_RETURN_NOT_OK(opx::ForEachMorsel(
      static_cast<int64_t>(morsels.size()), opx::OperatorThreads(ctx), ctx.eval,
      [&](int64_t m, EvalContext& eval) { return sink->Consume(*morsels[m], eval); }));
  EvalContext eval = ctx.eval;
  return sink->Emit(eval);
}

Result<Table> NestedLoopJoin(const PlanNode& node, const Table& left, const Table& right,
                             ExecContext& ctx) {
  std::vector<int64_t> build_refs;
  for (size_t b = 0; b < right.batches.size(); ++b) {
    for (int64_t r = 0; r < right.batches[b]->num_rows; ++r) {
      build_refs.push_back(PackRowRef(static_cast<int64_t>(b), r));
    }
  }
  const int64_t num_build = static_cast<int64_t>(build_refs.size());
  JoinEmitter emitter(node, left, right, build_refs.data(), num_build);
  const bool first_only = emitter.first_match_only();
  const int64_t rows_per_morsel = std::clamp<int64_t>(
      kDefaultMorselRows / std::max<int64_t>(num_build, 1), 1, kDefaultMorselRows);
  const std::vector<Morsel> morsels = MakeMorsels(left.batches, rows_per_morsel);
  std::vector<BatchPtr> outputs(morsels.size() + 1);
  OutputBudget budget(node, ctx);
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(morsels.size()), [&](int64_t mi) -> Status {
        if (budget.exhausted()) return Status::OK();
        if (ctx.Cancelled()) return ExecContext::CancelledError();
        const Morsel& m = morsels[mi];
        JoinCandidates c;
        const int64_t per_row = first_only ? std::min<int64_t>(num_build, 1) : num_build;
        const int64_t pairs = std::min((m.end - m.begin) * per_row, budget.CandidateCap());
        c.probe.reserve(static_cast<size_t>(pairs));
        c.build.reserve(c.probe.capacity());
        for (int64_t row = m.begin; row < m.end && static_cast<int64_t>(c.probe.size()) < pairs;
             ++row) {
          for (int64_t id = 0; id < per_row && static_cast<int64_t>(c.probe.size()) < pairs; ++id) {
            c.probe.push_back(row);
            c.build.push_back(id);
          }
        }
        EvalContext eval = ctx.eval;
        TANDEM_ASSIGN_OR_RAISE(outputs[mi], emitter.EmitMorsel(m, &c, nullptr, eval));
        budget.Add(outputs[mi]);
        return Status::OK();
      }));
  if (node.join_type == JoinType::kRight || node.join_type == JoinType::kFull) {
    TANDEM_ASSIGN_OR_RAISE(outputs.back(), emitter.EmitUnmatchedBuild({}));
  }
  return CollectOutput(node.schema, outputs);
}

}  // namespace

Result<Table> HashJoin(const PlanNode& node, const Table& left, const Table& right,
                       ExecContext& ctx) {
  if (node.join_type == JoinType::kMark) return MarkJoin(node, left, right, ctx);
  if (node.left_keys.empty()) return NestedLoopJoin(node, left, right, ctx);
  if (ShouldFlipSemiAnti(node, left, right)) return FlippedSemiAntiJoin(node, left, right, ctx);
  if (ShouldFlipLeft(node, left, right)) return FlippedLeftJoin(node, left, right, ctx);
  return EquiJoin(node, left, right, ctx);
}

}  // namespace tandem::cpu
