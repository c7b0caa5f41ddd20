// The build side of a hash join: the right input's keys, encoded (join_keys.h) and laid out as a
// bucket directory over contiguous entries (bucket b's entries are [start[b], start[b+1])), so a
// probe costs one directory read and a short contiguous scan. Built in parallel: rows are
// radix-partitioned by the top bits of their hash and each partition, which owns a contiguous
// range of buckets, is counting-sorted independently. Entries are numbered densely
// (0..num_entries-1), which right/full joins use to mark matched build rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/memory/grow_array.h"

namespace tandem::cpu {

class JoinHashTable {
 public:
  // key_columns[m] are the key columns of morsels[m] (whole-batch columns; the morsel picks the
  // rows). Rows with a NULL key are not entered; their refs are kept in null_key_refs().
  static Result<JoinHashTable> Build(const KeyLayout& layout, const std::vector<Morsel>& morsels,
                                     const std::vector<std::vector<ColumnPtr>>& key_columns);

  int64_t num_entries() const { return static_cast<int64_t>(entry_ref_.size()); }
  // Packed (batch << 32 | row) reference of an entry's build row.
  const int64_t* entry_refs() const { return entry_ref_.data(); }
  const std::vector<int64_t>& null_key_refs() const { return null_key_refs_; }

  // Calls emit(row, entry) for every match of every non-NULL probe row (only the first match
  // of a row when first_only), in row order. Rows go in groups whose directory slots and first
  // entries are prefetched, hiding most cache misses of a large table.
  template <typename Emit>
  void ProbeAll(const EncodedKeys& probe, bool first_only, Emit&& emit) const {
    ProbeRange(probe, 0, probe.num_rows(), first_only, emit);
  }

  // ProbeAll over the probe rows [begin, end) only.
  template <typename Emit>
  void ProbeRange(const EncodedKeys& probe, int64_t begin, int64_t end, bool first_only,
                  Emit&& emit) const {
    constexpr int64_t kGroup = 16;
    const int64_t n = end;
    int64_t bucket[kGroup];
    for (int64_t g = begin; g < n; g += kGroup) {
      const int64_t m = std::min(kGroup, n - g);
      for (int64_t j = 0; j < m; ++j) {
        bucket[j] = static_cast<int64_t>(probe.hash(g + j) >> shift_);
        __builtin_prefetch(&bucket_start_[bucket[j]]);
      }
      for (int64_t j = 0; j < m; ++j) __builtin_prefetch(&entry_key_[bucket_start_[bucket[j]]]);
      for (int64_t j = 0; j < m; ++j) {
        const int64_t i = g + j;
        if (probe.is_null(i)) continue;
        ForEachMatch(probe, i, [&](int64_t entry) {
          emit(i, entry);
          return !first_only;
        });
      }
    }
  }

  // Calls fn(entry) for every entry whose key equals probe row i (which must not be NULL) until
  // fn returns false.
  template <typename Fn>
  void ForEachMatch(const EncodedKeys& probe, int64_t i, Fn&& fn) const {
    const uint64_t h = probe.hash(i);
    const uint64_t b = h >> shift_;
    int64_t pos = bucket_start_[b];
    const int64_t end = bucket_start_[b + 1];
    if (single_word_) {
      const uint64_t w = probe.word(i);
      for (; pos < end; ++pos) {
        if (entry_key_[pos] == w && !fn(pos)) return;
      }
    } else {
      for (; pos < end; ++pos) {
        if (entry_key_[pos] == h && probe.RowEquals(i, entry_ptr_[pos], entry_len_[pos]) &&
            !fn(pos)) {
          return;
        }
      }
    }
  }

 private:
  bool single_word_ = false;  // entry_key_ holds the key itself, not its hash
  int shift_ = 60;
  std::vector<EncodedKeys> chunks_;  // owns the encoded build keys entry_ptr_ points into
  // Host blocks, not std::vectors: the build writes every element, so none is zero-filled
  // first (a table of tens of millions of entries would be faulted in by one thread's memset).
  GrowArray<int64_t> bucket_start_;
  GrowArray<uint64_t> entry_key_;
  GrowArray<int64_t> entry_ref_;
  GrowArray<const uint8_t*> entry_ptr_;
  GrowArray<int64_t> entry_len_;
  std::vector<int64_t> null_key_refs_;
  HostCharge charge_;  // every vector above and the encoded keys, against the host budget
};

}  // namespace tandem::cpu
