// How wide a span of key values a hash join's build key bitmap may cover (exec/cpu/key_bitmap.h),
// in one place for the executor that builds it and the join enumeration that prices it: 128
// values per build row, or 2^24 (2 MiB) in any case, or, where the probe side is expected to
// bring at least one row per 8 values, up to 2^27 (16 MiB: TPC-H SF100's 20M part keys for Q17's
// 20K parts, probed by 600M lineitem rows), never more than 2^33 (1 GiB). A small probe side
// never pays for clearing a wide bitmap.
#pragma once

#include <algorithm>
#include <cmath>

namespace tandem::plan {

// build_rows: the build side's rows with a key; probe_rows: the probe side's expected rows (0 or
// less when unknown).
inline double MaxKeyBitmapSpan(double build_rows, double probe_rows) {
  const double for_probe = std::min(std::ldexp(1.0, 27), 8 * std::max(probe_rows, 0.0));
  return std::min(std::ldexp(1.0, 33),
                  std::max({std::ldexp(1.0, 24), 128 * build_rows, for_probe}));
}

}  // namespace tandem::plan
