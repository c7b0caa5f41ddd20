// Decimal helpers shared by the function registry, the evaluators and the aggregates:
//   - Spark SQL's result precision/scale rules (precision capped at 38 by adjustPrecisionScale,
//     keeping at least min(scale, 6) fractional digits),
//   - powers of ten and precision checks on 128-bit unscaled values,
//   - rescaling with HALF_UP rounding (away from zero on a tie), overflow-checked,
//   - exact multiply/divide helpers that fall back to 256-bit intermediates when needed,
//   - parsing decimal text (with HALF_UP rounding to the target scale) and printing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tandem/types/data_type.h"

namespace tandem::decimal {

// 10^k for k in [0, 38].
int128_t Pow10(int k);
// Largest unscaled magnitude a decimal of this precision holds: 10^p - 1.
inline int128_t MaxUnscaled(int precision) { return Pow10(precision) - 1; }
inline bool FitsPrecision(int128_t v, int precision) {
  const int128_t m = MaxUnscaled(precision);
  return v <= m && v >= -m;
}

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

// Rescales an unscaled value from scale `from` to scale `to` with HALF_UP rounding when digits
// are dropped. False on 128-bit overflow (scaling up).
bool Rescale(int128_t v, int from, int to, int128_t* out);
// Divides by 10^k with HALF_UP rounding (k in [0, 38]; k > 38 gives 0).
int128_t DivPow10Round(int128_t v, int k);

// a (scale sa) plus b (scale sb), or minus it, rounded HALF_UP to scale rs where rs is below
// max(sa, sb) (Spark's precision loss on decimal(38, s) arithmetic), computed exactly: each
// operand is split into its digits at scale rs and the rest, so the full-scale sum, which may
// need more than 128 bits, is never formed. False when the digits at scale rs pass 128 bits.
bool AddRescaled(int128_t a, int sa, int128_t b, int sb, bool subtract, int rs, int128_t* out);
// a * b with the product's scale reduced by `drop` digits (HALF_UP); false on overflow.
bool MultiplyRescaled(int128_t a, int128_t b, int drop, int128_t* out);
// round(a * 10^up / b, HALF_UP) for b != 0; false when the quotient does not fit 128 bits.
bool DivideScaled(int128_t a, int up, int128_t b, int128_t* out);

// Parses [+-]digits[.digits][e[+-]digits] (surrounding spaces allowed) into an unscaled value at
// `scale`, rounding HALF_UP; false on bad text or when it does not fit `precision`.
bool Parse(std::string_view text, int precision, int scale, int128_t* out);
// Exact text with `scale` fractional digits: "-12.30".
std::string ToString(int128_t unscaled, int scale);
// Nearest double of an unscaled value.
double ToDouble(int128_t unscaled, int scale);
// Converts a double to an unscaled decimal at `scale` (HALF_UP); false for NaN/inf/overflow.
bool FromDouble(double v, int precision, int scale, int128_t* out);

}  // namespace tandem::decimal
