// Identity functions of the example UDF library, for the fallback-matrix benchmark
// (docs/benchmarks.md): CPU-only, deterministic, cheap, so what a query pays for them is the
// cost of leaving the GPU, not the function's own work.
//   identity_double(double) -> double          its argument
//   identity_double_4/_8/_12(double x N) -> double
//                                              the first argument; NULL where any argument is
//                                              NULL (every argument is read, so all N columns
//                                              must reach the function)
#pragma once

#include "tandem/udf/udf.h"

namespace tandem_example {

extern const TandemUdf kIdentityDouble;
extern const TandemUdf kIdentityDouble4;
extern const TandemUdf kIdentityDouble8;
extern const TandemUdf kIdentityDouble12;

}  // namespace tandem_example
