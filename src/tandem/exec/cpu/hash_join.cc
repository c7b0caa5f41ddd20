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
  if (node.join_type != JoinType::kSemi && node.join_type != JoinType::kAnti) return false;
  if (node.null_aware || node.left_keys.empty()) return false;
  return left.num_rows() * kFlipRatio < right.num_rows();
}

// The join with its inputs' roles swapped for the flipped SEMI/ANTI join: the right input probes
// and the left one is built, so the residual condition's columns are renumbered to right ++ left.
PlanNode SwappedForFlip(const PlanNode& node, int num_left, int num_right) {
  PlanNode swapped = node;
  if (node.condition) {
    std::vector<int> mapping(static_cast<size_t>(num_left + num_right));
    for (int c = 0; c < num_left; ++c) mapping[c] = num_right + c;
    for (int c = 0; c < num_right; ++c) mapping[num_left + c] = c;
    swapped.condition = RemapColumns(node.condition, mapping);
  }
  return swapped;
}

// SEMI/ANTI join with the hash table on the left keys: the right rows probe in parallel and flag
// every left row they match (a candidate pair counts once the residual condition is TRUE for
// it; pairs whose left row is already flagged are skipped); then the left rows whose flag is set
// (SEMI) or clear (ANTI) are emitted in left input order. NULL keys never match (an ANTI join
// keeps such left rows).
Result<Table> FlippedSemiAntiJoin(const PlanNode& node, const Table& left, const Table& right,
                                  ExecContext& ctx) {
  ThreadPool& pool = ThreadPool::Default();
  TANDEM_ASSIGN_OR_RAISE(std::vector<DataType> types, JoinKeyTypes(node, "hash join"));
  const KeyLayout layout(types, /*nulls_equal=*/false);

  TANDEM_ASSIGN_OR_RAISE(auto left_keys,
                         EvaluateColumnsPerBatch(node.left_keys, left.batches, ctx.eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(left_keys, types, "hash join"));
  const std::vector<Morsel> build_morsels = MakeMorsels(left.batches);
  std::vector<std::vector<ColumnPtr>> build_key_cols;
  build_key_cols.reserve(build_morsels.size());
  for (const Morsel& m : build_morsels) build_key_cols.push_back(left_keys[m.batch]);
  TANDEM_ASSIGN_OR_RAISE(JoinHashTable table,
                         JoinHashTable::Build(layout, build_morsels, build_key_cols));

  const int64_t num_entries = table.num_entries();
  auto entry_matched = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(num_entries));
  for (int64_t e = 0; e < num_entries; ++e) entry_matched[e].store(0, std::memory_order_relaxed);
  if (num_entries > 0) {
    TANDEM_ASSIGN_OR_RAISE(auto right_keys,
                           EvaluateColumnsPerBatch(node.right_keys, right.batches, ctx.eval));
    TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(right_keys, types, "hash join"));
    const std::vector<Morsel> probe_morsels = MakeMorsels(right.batches);
    const PlanNode swapped =
        SwappedForFlip(node, left.schema.num_fields(), right.schema.num_fields());
    // With a residual condition, the candidate pairs (probe row in the right batch, left entry)
    // go through the join emitter's condition filter, roles swapped.
    std::unique_ptr<JoinEmitter> emitter;
    if (node.condition) {
      emitter =
          std::make_unique<JoinEmitter>(swapped, right, left, table.entry_refs(), num_entries);
    }
    TANDEM_RETURN_NOT_OK(
        pool.ParallelFor(static_cast<int64_t>(probe_morsels.size()), [&](int64_t mi) -> Status {
          const Morsel& m = probe_morsels[mi];
          EncodedKeys keys(layout, right_keys[m.batch], m.begin, m.end);
          if (!emitter) {
            table.ProbeAll(keys, /*first_only=*/false, [&](int64_t, int64_t entry) {
              // Read before writing so hot entries are not written over and over.
              if (!entry_matched[entry].load(std::memory_order_relaxed)) {
                entry_matched[entry].store(1, std::memory_order_relaxed);
              }
            });
            return Status::OK();
          }
          JoinCandidates c;
          table.ProbeAll(keys, /*first_only=*/false, [&](int64_t i, int64_t entry) {
            if (entry_matched[entry].load(std::memory_order_relaxed)) return;
            c.probe.push_back(m.begin + i);
            c.build.push_back(entry);
          });
          EvalContext eval = ctx.eval;
          TANDEM_RETURN_NOT_OK(emitter->FilterCandidates(m, &c, eval));
          for (int64_t entry : c.build) {
            if (!entry_matched[entry].load(std::memory_order_relaxed)) {
              entry_matched[entry].store(1, std::memory_order_relaxed);
            }
          }
          return Status::OK();
        }));
  }

  // Per-left-row flags, batch by batch; rows with NULL keys have no entry and stay clear.
  std::vector<std::vector<uint8_t>> row_matched(left.batches.size());
  for (size_t b = 0; b < left.batches.size(); ++b) {
    row_matched[b].assign(static_cast<size_t>(left.batches[b]->num_rows), 0);
  }
  const int64_t* refs = table.entry_refs();
  for (int64_t e = 0; e < num_entries; ++e) {
    if (entry_matched[e].load(std::memory_order_relaxed)) {
      row_matched[RefBatch(refs[e])][RefRow(refs[e])] = 1;
    }
  }

  const uint8_t want = node.join_type == JoinType::kSemi ? 1 : 0;
  std::vector<BatchPtr> outputs(build_morsels.size());
  TANDEM_RETURN_NOT_OK(
      pool.ParallelFor(static_cast<int64_t>(build_morsels.size()), [&](int64_t mi) -> Status {
        const Morsel& m = build_morsels[mi];
        const Batch& lb = *left.batches[m.batch];
        const uint8_t* flags = row_matched[m.batch].data();
        std::vector<int64_t> keep;
        keep.reserve(static_cast<size_t>(m.end - m.begin));
        for (int64_t r = m.begin; r < m.end; ++r) {
          if (flags[r] == want) keep.push_back(r);
        }
        if (keep.empty()) return Status::OK();
        const int64_t n = static_cast<int64_t>(keep.size());
        auto out = std::make_shared<Batch>();
        out->schema = node.schema;
        out->num_rows = n;
        if (n == lb.num_rows) {
          out->columns = lb.columns;  // the whole batch survives: no copy
        } else {
          for (const auto& col : lb.columns) out->columns.push_back(Take(*col, keep.data(), n));
        }
        outputs[mi] = std::move(out);
        return Status::OK();
      }));
  return CollectOutput(node.schema, outputs);
}

bool ShouldFlipLeft(const PlanNode& node, const Table& left, const Table& right) {
  if (node.join_type != JoinType::kLeft || node.left_keys.empty()) return false;
  return left.num_rows() * kFlipRatio < right.num_rows();
}

// LEFT join with the hash table on the (small) left input: the RIGHT join of right and left,
// whose unmatched build rows (left rows no right row matched) come last with NULLs, then the
// columns put back in the left ++ right order.
Result<Table> FlippedLeftJoin(const PlanNode& node, const Table& left, const Table& right,
                              ExecContext& ctx) {
  const int nl = left.schema.num_fields(), nr = right.schema.num_fields();
  PlanNode swapped = SwappedForFlip(node, nl, nr);
  swapped.join_type = JoinType::kRight;
  swapped.left_keys = node.right_keys;
  swapped.right_keys = node.left_keys;
  swapped.schema.fields.clear();
  for (int c = 0; c < nr; ++c) swapped.schema.fields.push_back(node.schema.field(nl + c));
  for (int c = 0; c < nl; ++c) swapped.schema.fields.push_back(node.schema.field(c));
  TANDEM_ASSIGN_OR_RAISE(Table joined, EquiJoin(swapped, right, left, ctx));
  std::vector<int> order;
  for (int c = 0; c < nl; ++c) order.push_back(nr + c);
  for (int c = 0; c < nr; ++c) order.push_back(c);
  return opx::SelectColumns(joined, order, node.schema);
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
