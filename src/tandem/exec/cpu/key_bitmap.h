// A bitmap of one of a hash join's build keys, when that key is an integer (or a date) whose build
// values lie in a range not much wider than their count, or than the probe side's rows
// (plan/key_bitmap_span.h: 128 values of the range per build row, or 2^24 values in any case,
// up to 2^27 for a probe side of at least one row per 8 values, never more than 2^33). A probe
// tests each row's key against it and drops the rows that cannot match before their keys are
// encoded and hashed (a small filtered dimension probed by a large fact table keeps few rows:
// TPC-H's orders of one year probed by lineitem). With several keys it is over one of them: a row
// whose key is not in the table cannot match, whatever its other keys. The bitmap counts against
// the host budget; where the budget refuses it, the join goes without. Used by JoinProbe
// (join_probe.h) and by the flipped SEMI and ANTI sink (flipped_join.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/memory/host_charge.h"

namespace tandem::cpu {

class KeyBitmap {
 public:
  // From key column `key` of each build batch (build_keys[batch][key]); null when the key is not
  // an integer or date, has no non-NULL value, spans too wide a range, or the budget has no room
  // for the bits.
  // `max_span`: a tighter bound on the span, in values (bits); `probe_rows`: the probe side's
  // expected rows (0: unknown).
  static std::unique_ptr<KeyBitmap> Build(const DataType& type,
                                          const std::vector<std::vector<ColumnPtr>>& build_keys,
                                          size_t key = 0, uint64_t max_span = UINT64_MAX,
                                          double probe_rows = 0);
  // Of `types` (a join's key types), the key whose bitmap has the fewest of its span's values
  // set, so drops the most probe rows whose keys spread over the span: with (ps_suppkey,
  // ps_partkey) of TPC-H Q09's green parts, the part key (5 % set), not the supplier (all set).
  // Null when no key gets a bitmap; *key is the key chosen. Once one key has a bitmap, the others
  // are tried only where theirs is at most 64 MiB, so that two large bitmaps are never held.
  static std::unique_ptr<KeyBitmap> BuildSparsest(
      const std::vector<DataType>& types, const std::vector<std::vector<ColumnPtr>>& build_keys,
      size_t* key, double probe_rows = 0);
  // The fraction of the span's values present.
  double fill() const { return fill_; }

  // Without branches (a probe's keys pass or fail in no pattern a predictor learns): a key
  // outside the span reads word 0 and is masked out.
  bool Has(int64_t v) const {
    const uint64_t d = static_cast<uint64_t>(v) - static_cast<uint64_t>(lo_);
    const bool inside = d < span_;
    const uint64_t word = bits_[inside ? d >> 6 : 0];
    return inside & static_cast<bool>(word >> (d & 63) & 1);
  }

  // Of the rows `selection` (ascending; null: every row) of `key`, those whose key is not NULL
  // and may be in the table.
  std::vector<int32_t> RowsThatMayMatch(const Column& key,
                                        const std::vector<int32_t>* selection) const;

  // Whether a probe batch should still be tested: after 16 batches of which nine in ten kept
  // more than half their candidate rows, the bitmap is no longer worth a pass over the keys (the
  // probe side's keys are mostly in the table). Record each tested batch's outcome.
  bool StillPays() const;
  void Record(int64_t kept, int64_t candidates) const;

 private:
  KeyBitmap() = default;

  int64_t lo_ = 0;
  uint64_t span_ = 0;
  double fill_ = 0;
  std::vector<uint64_t> bits_;
  HostCharge charge_;
  mutable std::atomic<int64_t> batches_{0};
  mutable std::atomic<int64_t> unselective_{0};
};

}  // namespace tandem::cpu
