// A SEMI or ANTI join whose left input is much smaller than its right one, built on the left:
// the left rows go into the hash table, and the right rows probe it batch by batch, from any
// number of threads, flagging every left row they match (once the residual condition, if any,
// holds for the pair). The right input therefore never has to be whole in memory: it can stream
// from its pipeline straight into this sink (TPC-H Q21's two 60M-row lineitem sides at SF10,
// Q04's and Q22's large sides). After Finish, Emit gives the left rows flagged (SEMI) or not
// (ANTI), in left input order; a left row with a NULL key never matches (an ANTI join keeps it).
// Not for a null-aware ANTI join (NOT IN), whose answer depends on the whole right side.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "tandem/exec/cpu/join_hash_table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// The join with its inputs' roles swapped (right ++ left): its residual condition's columns
// renumbered for a probe by the right input into a table of the left one.
PlanNode JoinWithSidesSwapped(const PlanNode& join, int num_left, int num_right);

class FlippedSemiAntiSink final : public PipelineSink {
 public:
  // A SEMI or ANTI join with keys, not null-aware.
  static bool Applies(const PlanNode& join);
  // Builds the hash table over `left` (kept: the output is taken from it); the right input has
  // `right_columns` columns.
  static Result<std::unique_ptr<FlippedSemiAntiSink>> Build(const PlanNode& join, Table left,
                                                            int right_columns, ExecContext& ctx);

  Status Consume(const Batch& right_batch, EvalContext& eval) override;  // thread-safe
  // Ends the right input (no rows: the sink's output is Emit's, with the join's schema).
  Result<Table> Finish() override { return Table(); }
  Result<Table> Emit() const;

 private:
  FlippedSemiAntiSink(const PlanNode& join, Table left, std::vector<DataType> types,
                      ExecContext& ctx);

  const PlanNode& node_;
  PlanNode swapped_;  // the join with its inputs' roles swapped, for the residual condition
  Table left_;
  KeyLayout layout_;
  ExecContext& ctx_;
  std::vector<Morsel> build_morsels_;
  JoinHashTable table_;
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;  // per hash table entry
};

}  // namespace tandem::cpu
