// Internal to the CPU evaluator: calls of user-defined functions (Expr::udf set). The UDF gets
// whole argument columns of the batch (scalar operands broadcast) through udf::CallCpu, which
// checks everything it returns; its errors come back naming the call and its SQL position.
#pragma once

#include <vector>

#include "tandem/expr/cpu/datum.h"

namespace tandem::cpu::internal {

Result<Datum> EvaluateUdfCall(const Expr& e, const std::vector<Datum>& args, int64_t rows);

}  // namespace tandem::cpu::internal
