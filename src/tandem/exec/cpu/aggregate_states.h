// Aggregate state kernels for hash aggregation: one AggState per aggregate call holds the states
// of every group column-wise (sums, counts, min/max values ...). Update folds a batch's argument
// column into the states of the rows' groups, Merge folds another table's states in (per-thread
// partial aggregation), Finalize produces the result column. Each call is one typed loop over the
// rows; the virtual call is per batch, never per row.
//
// Semantics (Spark SQL result types, as AggregateCall.type carries them): sums of integers and
// decimals accumulate exactly in 128 bits and fail on overflow of the result type; sums of floats
// in double; decimal averages are the exact sum / count rounded HALF_UP to the result scale;
// variance and standard deviation use Welford's update and Chan's merge in double; min/max order
// NaN above every number and strings bytewise; empty groups give NULL (counts give 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "tandem/column/column.h"
#include "tandem/expr/aggregate.h"
#include "tandem/memory/grow_array.h"
#include "tandem/memory/host_charge.h"

namespace tandem::cpu::agg {

class AggState {
 public:
  virtual ~AggState() = default;
  // Makes room for groups [0, groups); new groups start empty.
  virtual void Resize(int64_t groups) = 0;
  // For k in [0, n): row r = rows ? rows[k] : k; folds arg[r] (count(*): no arg) into group
  // gids[r].
  virtual Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows,
                        int64_t n) = 0;
  // For k in [0, n): folds src's group (src_groups ? src_groups[k] : k) into group dst[k].
  // `src` is a state of the same call.
  virtual void Merge(const AggState& src, const uint32_t* src_groups, const uint32_t* dst,
                     int64_t n) = 0;
  // The result column for groups [0, groups). May hand the state's arrays to the column without a
  // copy: the state is spent afterwards.
  virtual Result<ColumnPtr> Finalize(int64_t groups) = 0;

 protected:
  // Counts the states' heap bytes against the host budget (throws MemoryLimitExceeded).
  void Charge(int64_t bytes) { charge_.Set(bytes); }
  // Hands `array` (one of the charged ones) to a Buffer without a copy where it is large,
  // leaving the charge first so that the buffer's own count does not briefly double it (the
  // charge can lag the arrays' growth: never below zero).
  template <typename T>
  std::shared_ptr<Buffer> TakeArray(GrowArray<T>& array) {
    charge_.Set(std::max<int64_t>(0, charge_.bytes() - array.heap_bytes()));
    return array.TakeBuffer();
  }

 private:
  HostCharge charge_;
};

// The state for one call; `arg_type` is the argument's type (ignored for count(*)).
Result<std::unique_ptr<AggState>> MakeAggState(const AggregateCall& call, const DataType& arg_type);

}  // namespace tandem::cpu::agg
