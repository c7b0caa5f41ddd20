// Result types that depend on constant arguments (see function_constants.h).
#include <algorithm>

#include "tandem/expr/function_constants.h"

namespace tandem {

DataType RoundResultType(const DataType& arg, int d) {
  if (!arg.is_decimal()) return arg;
  const int integral = arg.precision - arg.scale + 1;
  if (d < 0) return DataType::Decimal(std::min(38, integral), 0);
  const int scale = std::min<int>(arg.scale, d);
  return DataType::Decimal(std::min(38, integral + scale), scale);
}

}  // namespace tandem
