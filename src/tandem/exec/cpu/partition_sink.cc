// PartitionSink (see partition_sink.h).
#include "tandem/exec/cpu/partition_sink.h"

#include "tandem/exec/cpu/group_table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/operator_util.h"

namespace tandem::cpu {

Status PartitionSink::Consume(const Batch& batch, EvalContext& eval) {
  BatchPtr kept;
  const Batch* in = &batch;
  if (predicate_) {
    TANDEM_ASSIGN_OR_RAISE(kept, opx::FilterBatch(*predicate_, batch, schema_, eval));
    if (!kept) return Status::OK();
    in = kept.get();
  }
  const int64_t n = in->num_rows;
  selected_.fetch_add(n, std::memory_order_relaxed);
  std::vector<ColumnPtr> owned;
  std::vector<const Column*> cols;
  for (const Expr* k : keys_) {
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, opx::EvaluateOrReference(*k, *in, eval));
    cols.push_back(c.get());
    owned.push_back(std::move(c));
  }
  std::vector<uint64_t> hashes(static_cast<size_t>(n));
  agg::HashKeys(agg::KeyView::FromColumns(cols), n, hashes.data());
  int bits = 0;
  while ((1 << bits) < parts_.count()) ++bits;
  std::vector<uint32_t> partition(static_cast<size_t>(n), 0);
  if (bits > 0) {
    // Mixed again: the hash's own top bits pick the buckets of the tables built per partition.
    for (int64_t r = 0; r < n; ++r) {
      partition[r] = static_cast<uint32_t>(MixHash64(hashes[r] ^ (0x9e3779b97f4a7c15ULL + seed_)) >>
                                           (64 - bits));
    }
  }
  return parts_.Append(*in, partition.data());
}

int SpillPartitionCount(int64_t bytes, int64_t budget) {
  // At most 128: each partition is an open file (two per grace join, one per aggregation).
  int count = 4;
  while (count < 128 && bytes / count > budget) count *= 2;
  return count;
}

}  // namespace tandem::cpu
