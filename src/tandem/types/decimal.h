// Decimal helpers shared by the function registry, the evaluators and the aggregates:
//   - Spark SQL's result precision/scale rules (precision capped at 38 by adjustPrecisionScale,
//     keeping at least min(scale, 6) fractional digits),
//   - parsing decimal text (with HALF_UP rounding to the target scale), printing, and
//     conversion from double;
//   - through types/decimal_core.h (compiled for the host and the GPU): powers of ten, precision
//     checks, rescaling with HALF_UP rounding, exact add/multiply/divide with 256-bit fallbacks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tandem/types/data_type.h"
#include "tandem/types/decimal_core.h"  // the arithmetic, shared with the GPU

namespace tandem::decimal {

// Spark's DecimalType.adjustPrecisionScale (allowPrecisionLoss = true).
DataType AdjustPrecisionScale(int precision, int scale);
// Result types of binary arithmetic on decimal(p1,s1) and decimal(p2,s2) (Spark SQL).
DataType AddType(const DataType& a, const DataType& b);  // also subtract
DataType MultiplyType(const DataType& a, const DataType& b);
DataType DivideType(const DataType& a, const DataType& b);
DataType ModuloType(const DataType& a, const DataType& b);
// The decimal an integer type converts to exactly: int8 -> (3,0), int32 -> (10,0), int64 ->
// (20,0) capped at 38 ... ; decimals map to themselves.
DataType ForInteger(const DataType& integer_type);
// The narrowest decimal holding both exactly (Spark's widerDecimalType, bounded at 38).
DataType Wider(const DataType& a, const DataType& b);

// Parses [+-]digits[.digits][e[+-]digits] (surrounding spaces allowed) into an unscaled value at
// `scale`, rounding HALF_UP; false on bad text or when it does not fit `precision`.
bool Parse(std::string_view text, int precision, int scale, int128_t* out);
// Exact text with `scale` fractional digits: "-12.30".
std::string ToString(int128_t unscaled, int scale);
// Converts a double to an unscaled decimal at `scale` (HALF_UP); false for NaN/inf/overflow.
bool FromDouble(double v, int precision, int scale, int128_t* out);

}  // namespace tandem::decimal
