// Fused aggregate kernels: for a GPU aggregate whose aggregates are counts and sums (sum, avg;
// exact over integers and decimals, in doubles over floats), one kernel generated at run time
// runs the filter's program (when the kernel applies it), each argument's program and the
// accumulation in one pass over the batch, with no selection, gathered copy or argument column in
// between (fused_aggregate_rows.cuh is its device side). The programs are the GPU evaluator's
// (expr/gpu/program.h), emitted as kernel_gen.h emits them, so values, NULLs and errors are the
// evaluator's; an error on any row sets a flag and the aggregate runs again unfused, which reports
// it in the CPU's words. Plain C++: the source is generated (and tested) in every build.
#pragma once

#include <string>
#include <vector>

#include "tandem/expr/gpu/program.h"

namespace tandem::gpu::fused {

enum class AccKind { kCount, kNarrowSum, kWideSum, kDoubleSum };

// 64-bit words of a partial of this kind (fused_aggregate_rows.cuh).
int AccWords(AccKind kind);

struct AggregateSlot {
  AccKind kind = AccKind::kCount;
  int program = -1;         // the argument's program in Shape::programs; -1: count(*)
  bool float32 = false;     // a double sum of float32 values (rounded to float, as stored)
  bool unsigned64 = false;  // an exact sum of uint64 values (held as their bit pattern)
};

struct Shape {
  // The programs, by index; with `filter_program`, programs[0] is the filter (a selection
  // program: TRUE or FALSE per row) and rows it does not keep are left out.
  std::vector<const internal::Program*> programs;
  bool filter_program = false;
  std::vector<AggregateSlot> slots;  // one per aggregate, in the node's order
};

// "" when the kernel can be generated for `shape`, else why not (too many programs).
std::string ShapeUnsupported(const Shape& shape);

// The kernel's source; its entry point is internal::kGeneratedKernelName, taking fused::Params.
std::string FusedAggregateSource(const Shape& shape);

// Bytes of one group's partial (all aggregates).
int AccBytes(const Shape& shape);

}  // namespace tandem::gpu::fused
