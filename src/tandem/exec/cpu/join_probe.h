// The probe side of an equi hash join, shared by the whole-table HashJoin (hash_join.cc) and by
// pipelines (exec/cpu/pipeline.h), where each batch of the left input is probed as it arrives
// and never waits for the rest of its table. The right input is built once into a
// JoinHashTable; probing is read-only and runs on any number of threads at once.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "tandem/exec/cpu/join_emit.h"
#include "tandem/exec/cpu/join_hash_table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/key_bitmap.h"
#include "tandem/exec/exec_context.h"
#include "tandem/memory/host_charge.h"

namespace tandem::cpu {

// The rows a LIMIT above still wants (ExecContext::RowBudget): morsels not yet started are
// skipped once the output holds that many, and an inner join without a residual condition stops
// making candidate pairs at the count. RIGHT and FULL joins, whose unmatched build rows come
// last, never stop early.
class OutputBudget {
 public:
  OutputBudget(const PlanNode& node, const ExecContext& ctx);
  bool active() const { return limit_ >= 0; }
  bool exhausted() const { return active() && produced_.load() >= limit_; }
  // Candidate pairs worth making in a morsel: every one, or (inner, no condition) the rest.
  int64_t CandidateCap() const {
    if (!active() || !exact_) return INT64_MAX;
    return std::max<int64_t>(0, limit_ - produced_.load());
  }
  void Add(const BatchPtr& out) {
    if (active() && out) produced_.fetch_add(out->num_rows);
  }

 private:
  int64_t limit_;
  bool exact_;  // every candidate pair is an output row
  std::atomic<int64_t> produced_{0};
};

class JoinProbe {
 public:
  // Builds the hash table over `right` (its batches are kept: output rows point into them).
  static Result<std::unique_ptr<JoinProbe>> Build(const PlanNode& node, Table right,
                                                  ExecContext& ctx);

  // x NOT IN (..., NULL, ...) is never TRUE: a null-aware ANTI join has no output at all.
  bool no_output() const { return no_output_; }
  const JoinHashTable& table() const { return table_; }
  const Table& right() const { return right_; }
  const KeyLayout& layout() const { return layout_; }

  // Probes morsel `m` of the emitter's left input (`keys`: the key columns of its batch) and
  // appends the output batches (each about kSlicePairs pairs at most) to *out.
  Status ProbeMorsel(const std::vector<ColumnPtr>& keys, const Morsel& m, JoinEmitter& emitter,
                     OutputBudget& budget, EvalContext& eval, std::vector<BatchPtr>* out) const;

  // Pipelines: probes the whole of one left batch (INNER, LEFT, SEMI and ANTI joins only: the
  // others need every probe row before they can finish); only its rows `selection` (ascending;
  // null: all), those a fused Filter let through.
  Status ProbeBatch(const BatchPtr& batch, const std::vector<int32_t>* selection,
                    OutputBudget& budget, EvalContext& eval, std::vector<BatchPtr>* out) const;
  static bool StreamsProbeSide(const PlanNode& node);

 private:
  JoinProbe(const PlanNode& node, Table right, std::vector<DataType> types, ExecContext& ctx)
      : node_(node), right_(std::move(right)), layout_(types, /*nulls_equal=*/false), ctx_(ctx) {}

  const PlanNode& node_;
  Table right_;
  std::vector<GatherSource> right_sources_;  // right_'s columns set up for the emitters' gathers
  KeyLayout layout_;
  JoinHashTable table_;
  std::unique_ptr<KeyBitmap> bitmap_;  // INNER and SEMI joins on an integer key
  size_t bitmap_key_ = 0;              // which key the bitmap is over
  bool no_output_ = false;
  bool null_aware_ = false;
  ExecContext& ctx_;
};

}  // namespace tandem::cpu
