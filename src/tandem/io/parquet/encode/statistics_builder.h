// StatisticsBuilder: running min/max of a column chunk or page in the column's Parquet sort order
// (Ops::Less; values Ops::Skip says to ignore, i.e. NaN, never count) and its conversion to the
// Thrift Statistics struct. Min/max longer than kMaxStatisticsBytes are left out, as other
// writers do, rather than bloating every page header.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

constexpr size_t kMaxStatisticsBytes = 4096;

template <typename Ops>
class StatisticsBuilder {
 public:
  using Value = typename Ops::Value;

  explicit StatisticsBuilder(const Ops& ops) : ops_(ops) {}

  void Update(const Value* values, int64_t n) {
    for (int64_t i = 0; i < n; ++i) Add(values[i]);
  }
  void Merge(const StatisticsBuilder& other) {
    if (!other.has_min_max_) return;
    Add(other.min_);
    Add(other.max_);
  }

  Statistics ToThrift(int64_t null_count) const {
    Statistics s;
    s.null_count = null_count;
    if (has_min_max_) {
      std::string min, max;
      ops_.AppendStat(min_, true, &min);
      ops_.AppendStat(max_, false, &max);
      if (min.size() <= kMaxStatisticsBytes && max.size() <= kMaxStatisticsBytes) {
        if (Ops::kLegacyStats) {
          s.min = min;
          s.max = max;
        }
        s.min_value = std::move(min);
        s.max_value = std::move(max);
      }
    }
    return s;
  }

 private:
  void Add(const Value& v) {
    if (ops_.Skip(v)) return;
    if (!has_min_max_) {
      min_ = max_ = v;
      has_min_max_ = true;
      return;
    }
    if (ops_.Less(v, min_)) min_ = v;
    if (ops_.Less(max_, v)) max_ = v;
  }

  Ops ops_;
  bool has_min_max_ = false;
  Value min_{};
  Value max_{};
};

}  // namespace tandem::parquet
