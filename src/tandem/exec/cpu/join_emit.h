// The join-type logic shared by the hash join and the nested-loop join: given the candidate
// pairs of one probe morsel (key-equal pairs, or all pairs without keys), applies the residual
// condition and produces that morsel's output for INNER, LEFT, RIGHT, FULL, SEMI and ANTI joins;
// right and full joins mark matched build rows so the unmatched ones can be emitted at the end.
// MARK joins (join_mark.cc) filter candidates here and assemble their output with EmitMark.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// Candidate pairs of one morsel, grouped by probe row (rows in ascending order): probe rows are
// row numbers in the left batch; build ids are dense build numbers (see build_refs).
struct JoinCandidates {
  std::vector<int64_t> probe;
  std::vector<int64_t> build;
};

class JoinEmitter {
 public:
  // build_refs[id] is the packed (batch << 32 | row) reference of dense build id `id` in the
  // right input's batches; num_build_ids ids exist.
  // RIGHT and FULL joins flag matched build ids in `shared_build_matched` (num_build_ids flags,
  // cleared) when given, so that emitters of separate probe batches share them; else in their
  // own. `right_sources` (may be null: the emitter sets its own up) are the right input's
  // columns set up for gathering, shared by emitters of separate probe batches.
  JoinEmitter(const PlanNode& node, const Table& left, const Table& right,
              const int64_t* build_refs, int64_t num_build_ids,
              std::atomic<uint8_t>* shared_build_matched = nullptr,
              const std::vector<GatherSource>* right_sources = nullptr);
  // right_sources_ may point at own_sources_.
  JoinEmitter(const JoinEmitter&) = delete;
  JoinEmitter& operator=(const JoinEmitter&) = delete;

  // Output for one morsel. excluded (may be null): per morsel row, 1 = the row never appears in
  // an ANTI join's output (null-aware NOT IN with a NULL key).
  Result<BatchPtr> EmitMorsel(const Morsel& m, JoinCandidates* c, const uint8_t* excluded,
                              EvalContext& ctx);

  // RIGHT/FULL joins: the build rows never matched (plus extra_refs, build rows with NULL keys),
  // with NULL left columns. Null when there are none.
  Result<BatchPtr> EmitUnmatchedBuild(const std::vector<int64_t>& extra_refs);

  bool first_match_only() const;  // SEMI/ANTI/MARK without a condition: one candidate per row
                                  // is enough

  // Keeps the candidate pairs whose residual condition is TRUE (all of them without one).
  Status FilterCandidates(const Morsel& m, JoinCandidates* c, EvalContext& ctx) const;

  // MARK join output for one morsel: its left rows and the mark, from state[i] of morsel row i
  // (0 = FALSE, 1 = TRUE, 2 = NULL).
  BatchPtr EmitMark(const Morsel& m, const std::vector<uint8_t>& state) const;

 private:
  Status ApplyCondition(const Batch& left_batch, JoinCandidates* c, EvalContext& ctx) const;
  BatchPtr Assemble(const Batch& left_batch, const std::vector<int64_t>& probe,
                    const std::vector<int64_t>& build_refs) const;

  const PlanNode& node_;
  const Table& left_;
  const Table& right_;
  std::vector<GatherSource> own_sources_;           // when none were given
  const std::vector<GatherSource>* right_sources_;  // per right column
  const int64_t* build_refs_;
  int64_t num_build_ids_;
  ExprPtr condition_;                // remapped onto cond_left_cols_ ++ cond_right_cols_
  std::vector<int> cond_left_cols_;  // left columns the condition reads
  std::vector<int> cond_right_cols_;
  std::unique_ptr<std::atomic<uint8_t>[]> own_build_matched_;
  std::atomic<uint8_t>* build_matched_ = nullptr;  // own_build_matched_ or shared ones
};

}  // namespace tandem::cpu
