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
#include <mutex>
#include <vector>

#include "tandem/exec/cpu/join_hash_table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/key_bitmap.h"
#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// The join with its inputs' roles swapped (right ++ left): its residual condition's columns
// renumbered for a probe by the right input into a table of the left one.
PlanNode JoinWithSidesSwapped(const PlanNode& join, int num_left, int num_right);

// What both flipped sinks hold: the left input, its hash table on the left keys, and a matched
// flag per entry that the right rows set from any thread.
class FlippedJoinTable {
 protected:
  FlippedJoinTable(const PlanNode& join, Table left, std::vector<DataType> key_types,
                   ExecContext& ctx);
  // With key_bitmap, also the bitmap of the first left key (key_bitmap.h), when it applies.
  Status BuildTable(bool key_bitmap = false);
  // One right batch as a table of its own, and its key columns.
  Result<std::vector<std::vector<ColumnPtr>>> RightKeys(const Batch& right_batch, EvalContext& eval,
                                                        Table* right) const;
  void Mark(int64_t entry) const {
    // Read before writing so that hot entries are not written over and over.
    if (!matched_[entry].load(std::memory_order_relaxed)) {
      matched_[entry].store(1, std::memory_order_relaxed);
    }
  }

  const PlanNode& node_;
  Table left_;
  KeyLayout layout_;
  ExecContext& ctx_;
  std::vector<Morsel> build_morsels_;
  JoinHashTable table_;
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;  // per hash table entry
  std::unique_ptr<KeyBitmap> bitmap_;                // or null
};

class FlippedSemiAntiSink final : public PipelineSink, private FlippedJoinTable {
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

  // Right rows consumed, and those the left keys' bitmap dropped before hashing (EXPLAIN ANALYZE).
  int64_t right_rows() const { return right_rows_.load(); }
  int64_t bitmap_dropped() const { return bitmap_dropped_.load(); }

 private:
  using FlippedJoinTable::FlippedJoinTable;

  std::atomic<int64_t> right_rows_{0};
  std::atomic<int64_t> bitmap_dropped_{0};

  PlanNode swapped_;  // the join with its inputs' roles swapped, for the residual condition
};

// A LEFT join built on its small left side: the right rows probe the left side's table as they
// stream, each match an output row (left ++ right columns) as soon as it is found, and after the
// last right row, Emit gives the left rows no right row matched, with NULL right columns. The
// rows go on to `downstream` (the sink above: the aggregation over the join, TPC-H Q13's 15M
// customer-order pairs) as they are made, or are collected for Emit to return.
class FlippedLeftSink final : public PipelineSink, private FlippedJoinTable {
 public:
  // A LEFT join with keys.
  static bool Applies(const PlanNode& join);
  static Result<std::unique_ptr<FlippedLeftSink>> Build(const PlanNode& join, Table left,
                                                        const Schema& right_schema,
                                                        PipelineSink* downstream, ExecContext& ctx);

  Status Consume(const Batch& right_batch, EvalContext& eval) override;  // thread-safe
  Result<Table> Finish() override { return Table(); }
  // The unmatched left rows (to downstream), then the collected rows (none with a downstream).
  Result<Table> Emit(EvalContext& eval);
  int64_t rows_made() const { return rows_made_.load(); }

 private:
  using FlippedJoinTable::FlippedJoinTable;
  // Puts a batch of the swapped join (right ++ left) in the join's order and hands it on.
  Status Deliver(const BatchPtr& swapped_batch, EvalContext& eval);

  PlanNode swapped_;  // the RIGHT join of right and left, built on left
  Schema right_schema_;
  PipelineSink* downstream_ = nullptr;
  std::atomic<int64_t> rows_made_{0};
  std::mutex collected_mutex_;
  std::vector<BatchPtr> collected_;
};

}  // namespace tandem::cpu
