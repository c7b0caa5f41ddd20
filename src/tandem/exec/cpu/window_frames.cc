// Partition, peer and frame bounds of window functions (see window_frames.h).
#include "tandem/exec/cpu/window_frames.h"

#include <algorithm>
#include <cmath>

#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/sort_runs.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {

double RangeOffsetScale(const DataType& key_type) {
  return key_type.is_decimal() ? std::pow(10.0, key_type.scale) : 1;
}

Result<std::vector<double>> RangeKeyValues(const Column& key, bool ascending) {
  const DataType& t = key.type();
  const int64_t n = key.length();
  std::vector<double> v(static_cast<size_t>(n), 0);
  const bool numeric =
      t.is_integer() || t.is_floating() || t.is_decimal() || t.id == TypeId::kDate32;
  if (!numeric) {
    for (int64_t i = 0; i < n; ++i) {
      if (key.IsValid(i)) {
        return Status::Unsupported("RANGE frame with an offset over a " + t.ToString() +
                                   " ORDER BY key");
      }
    }
    return v;
  }
  // Decimals stay unscaled (their offsets are scaled up instead, RangeOffsetScale): a value and
  // value +- offset are then exact doubles (up to 2^53), as a boundary row needs.
  auto convert = Overloaded{[&]<typename T>(Tag<T>) {
                              for (int64_t i = 0; i < n; ++i) {
                                if (key.IsNull(i)) continue;
                                const double x = static_cast<double>(key.Value<T>(i));
                                v[i] = ascending ? x : -x;
                              }
                            },
                            [](auto) {}};  // booleans and strings: refused above
  VisitStorage(t, convert);
  return v;
}

void ComputeWindowBounds(const SortKeyEncoder& encoder, int num_partition_keys,
                         const KeyChanges* changes, WindowLayout* layout) {
  const int64_t n = layout->size();
  const int num_keys = encoder.num_keys();
  layout->part_start.resize(n);
  layout->part_end.resize(n);
  layout->peer_start.resize(n);
  layout->peer_end.resize(n);
  // Where a partition starts, and where a peer group starts (a partition's start too).
  std::vector<uint8_t> part_change, peer_change;
  if (changes && changes->filled) {
    part_change = changes->prefix_changed;
    peer_change = changes->any_changed;
  } else {
    part_change.assign(static_cast<size_t>(n), 0);
    encoder.MarkKeyChanges(layout->refs, 0, num_partition_keys, &part_change);
    peer_change = part_change;
    encoder.MarkKeyChanges(layout->refs, num_partition_keys, num_keys, &peer_change);
  }
  int64_t ps = 0, qs = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (part_change[i]) ps = i;
    if (peer_change[i]) qs = i;
    layout->part_start[i] = ps;
    layout->peer_start[i] = qs;
  }
  int64_t pe = n, qe = n;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (i + 1 < n) {
      if (layout->part_start[i + 1] != layout->part_start[i])
        pe = qe = i + 1;
      else if (layout->peer_start[i + 1] != layout->peer_start[i])
        qe = i + 1;
    }
    layout->part_end[i] = pe;
    layout->peer_end[i] = qe;
  }
}

Status ComputeFrames(const WindowFrame& frame, const WindowLayout& layout, const Column* order_key,
                     bool ascending, std::vector<int64_t>* start, std::vector<int64_t>* end) {
  using B = WindowFrame::BoundKind;
  const int64_t n = layout.size();
  start->resize(n);
  end->resize(n);
  const bool rows = frame.unit == WindowFrame::Unit::kRows;
  const bool value_offsets =
      !rows && (frame.start == B::kPreceding || frame.start == B::kFollowing ||
                frame.end == B::kPreceding || frame.end == B::kFollowing);
  std::vector<double> keys;
  const double offset_scale = order_key ? RangeOffsetScale(order_key->type()) : 1;
  if (value_offsets) {
    if (!order_key) {
      return Status::Invalid("RANGE frame with an offset needs exactly one ORDER BY key");
    }
    TANDEM_ASSIGN_OR_RAISE(keys, RangeKeyValues(*order_key, ascending));
  }
  const bool key_nulls = order_key && order_key->null_count() > 0;
  // NULL and NaN keys have no numeric neighbours: their frame is their peer group (NaN +- k is
  // NaN, which equals only NaN). Both sort at one end of the partition (NaN is the largest value).
  auto is_null = [&](int64_t i) {
    return (key_nulls && order_key->IsNull(i)) || (value_offsets && std::isnan(keys[i]));
  };
  // Numeric (non-NULL, non-NaN) key range of the partition of position i.
  auto non_null_range = [&](int64_t i, int64_t* lo, int64_t* hi) {
    *lo = layout.part_start[i];
    *hi = layout.part_end[i];
    while (*lo < *hi && is_null(*lo)) *lo = layout.peer_end[*lo];
    while (*hi > *lo && is_null(*hi - 1)) *hi = layout.peer_start[*hi - 1];
  };
  auto bound = [&](B kind, int64_t offset, int64_t i, bool is_start) -> int64_t {
    const int64_t ps = layout.part_start[i], pe = layout.part_end[i];
    switch (kind) {
      case B::kUnboundedPreceding:
        return ps;
      case B::kUnboundedFollowing:
        return pe;
      case B::kCurrentRow:
        if (rows) return is_start ? i : i + 1;
        return is_start ? layout.peer_start[i] : layout.peer_end[i];
      case B::kPreceding:
      case B::kFollowing: {
        const int64_t delta = kind == B::kPreceding ? -offset : offset;
        if (rows) {
          const int64_t at = i + delta + (is_start ? 0 : 1);
          return std::clamp<int64_t>(at, ps, pe);
        }
        if (is_null(i)) return is_start ? layout.peer_start[i] : layout.peer_end[i];
        int64_t lo, hi;
        non_null_range(i, &lo, &hi);
        const double target = keys[i] + static_cast<double>(delta) * offset_scale;
        const double* k = keys.data();
        if (is_start) return std::lower_bound(k + lo, k + hi, target) - k;
        return std::upper_bound(k + lo, k + hi, target) - k;
      }
    }
    return ps;
  };
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = bound(frame.start, frame.start_offset, i, true);
    int64_t e = bound(frame.end, frame.end_offset, i, false);
    if (e < s) e = s;
    (*start)[i] = s;
    (*end)[i] = e;
  }
  return Status::OK();
}

}  // namespace tandem::cpu
