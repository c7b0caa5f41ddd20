// Internal to the GPU window operator (window.cu, window_aggregates.cu): the device twin of
// cpu::WindowLayout and frame bounds, and the result-column helpers both files use. Every array
// is int64 in device memory with one entry per sorted position; every result column is in the
// layout's sorted order (window.cu puts it into the output order).
#pragma once

#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu::window {

// One sorted order of the input rows (PARTITION BY keys ascending NULLS FIRST, then the ORDER BY
// keys, stable: the CPU's order) with each position's partition and peer-group bounds [start,
// end), as cpu::ComputeWindowBounds computes them.
struct Layout {
  int64_t n = 0;
  DeviceColumnPtr order;  // int64: sorted position -> input row
  DeviceBuffer part_start, part_end, peer_start, peer_end;
  DeviceBuffer peer_number;  // 1-based number of each position's peer group, over all positions

  const int64_t* perm() const { return order->values.data_as<const int64_t>(); }
};

// Frame bounds [start, end) per sorted position (cpu::ComputeFrames); start == end: empty.
struct Frames {
  DeviceBuffer start, end;
};

// A fixed-width result column owning `values`; `valid` (one byte per row, 0 = NULL, device
// memory) may be null for a column without NULLs.
Result<DeviceColumnPtr> FixedResult(const DataType& type, DeviceBuffer values, const uint8_t* valid,
                                    int64_t n, const Stream& stream);

// Integer results (ranks, counts: int64 in `values`) as the result type, the way the CPU's
// WindowIntColumn writes them: int64 as is, int32 truncated, float64 converted.
Result<DeviceColumnPtr> CountResult(const DataType& type, DeviceBuffer values, int64_t n,
                                    const Stream& stream);

// COUNT(*), COUNT, SUM, AVG, MIN and MAX over the frames (window_aggregates.cu).
Result<DeviceColumnPtr> Aggregate(const WindowCall& call, const Layout& layout,
                                  const Frames& frames, const DeviceBatch& input, GpuContext& ctx);

}  // namespace tandem::gpu::window
