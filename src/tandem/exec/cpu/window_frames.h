// Window layout and frames. A WindowLayout is one sorted order of the input rows (by PARTITION
// BY then ORDER BY) with, for every sorted position, its partition's and its peer group's
// bounds. Frame bounds [start, end) per position follow ROWS (row offsets) or RANGE (peer groups
// for CURRENT ROW; value offsets over a single numeric ORDER BY key, where a NULL or NaN key's
// frame is its peer group) semantics, clamped to the partition; an empty frame has start == end.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/expr/aggregate.h"

namespace tandem::cpu {

class SortKeyEncoder;
struct KeyChanges;  // sort_runs.h

struct WindowLayout {
  std::vector<int64_t> refs;  // packed input row refs in sorted order
  std::vector<int64_t> part_start, part_end;
  std::vector<int64_t> peer_start, peer_end;
  int64_t size() const { return static_cast<int64_t>(refs.size()); }
};

// Fills the partition and peer bounds of a layout whose refs are sorted by the encoder's keys:
// keys [0, num_partition_keys) are the PARTITION BY keys, the rest the ORDER BY keys. Where the
// keys change comes from `changes` when the sort filled it, else from the rows.
void ComputeWindowBounds(const SortKeyEncoder& encoder, int num_partition_keys,
                         const KeyChanges* changes, WindowLayout* layout);

// The ORDER BY key of a RANGE frame with an offset as doubles, negated for DESC so the non-NULL
// values ascend in sorted order (NULL rows: 0); decimals unscaled. Numbers and dates only: any
// other type fails as soon as it has a non-NULL key.
Result<std::vector<double>> RangeKeyValues(const Column& key, bool ascending);
// What a frame's offset is multiplied by to compare with those values: 10^scale for decimals.
double RangeOffsetScale(const DataType& key_type);

// Frame bounds for every sorted position. order_key: the single ORDER BY key in sorted order
// (needed only for RANGE frames with value offsets; may be null otherwise); ascending: its
// direction.
Status ComputeFrames(const WindowFrame& frame, const WindowLayout& layout, const Column* order_key,
                     bool ascending, std::vector<int64_t>* start, std::vector<int64_t>* end);

}  // namespace tandem::cpu
