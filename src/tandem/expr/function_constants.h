// Result types that depend on a constant argument's value, which ResolveScalarFunction (types
// only) cannot see. The binder calls these when the argument is a literal; otherwise the
// registry's value-independent type stands (and the evaluator honours whichever type the bound
// expression carries).
#pragma once

#include "tandem/types/data_type.h"

namespace tandem {

// round(decimal(p,s), d) with constant d, Spark's rule: d >= 0 -> decimal(min(38, p-s+1+min(s,d)),
// min(s,d)); d < 0 -> decimal(min(38, p-s+1), 0). Non-decimal types are returned unchanged.
DataType RoundResultType(const DataType& arg, int d);

}  // namespace tandem
