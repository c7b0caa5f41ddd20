// The scalar function registry: every function the SQL layer can call, by name and argument
// types, with its result type. The binder resolves calls here (choosing an overload and the
// implicit casts its arguments need); the evaluators (expr/cpu, later expr/gpu) run the chosen
// overload by name. One registry, so what the binder accepts is exactly what can run.
//
// Operator names used by the binder: add, subtract, multiply, divide, modulo, negate,
// eq, ne, lt, le, gt, ge, and, or, not, is_null, is_not_null, is_distinct_from,
// is_not_distinct_from, like, ilike, concat (also ||), and the SQL functions by their lower-case
// names (substring, upper, lower, trim, ltrim, rtrim, length, replace, strpos (position),
// starts_with, lpad, rpad, split_part, extract_<field> (year, month, day, quarter, week,
// dayofweek, dayofyear, hour, minute, second), date_trunc, date_add, date_sub, datediff,
// add_interval_<unit>, to_date, current_date, abs, round, floor, ceil, power, sqrt, ln, exp,
// mod, coalesce, nullif, ...).
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/types/data_type.h"

namespace tandem {

struct ResolvedFunction {
  std::string name;                 // the registry name the evaluator dispatches on
  std::vector<DataType> arg_types;  // the binder casts each argument to this type
  DataType result_type;
  // NULL in -> NULL out for every argument (most functions); false for coalesce, is_null, and,
  // or, concat_ws ...: the binder then derives nullability itself.
  bool null_propagating = true;
};

// Chooses the overload of `name` for these argument types, following Spark SQL's implicit
// casting and decimal precision/scale rules (precision capped at 38). Errors (no position; the
// binder adds it): "unknown function foo", "function substring takes 2 or 3 arguments, got 1",
// "cannot apply lt to date32 and string".
Result<ResolvedFunction> ResolveScalarFunction(const std::string& name,
                                               const std::vector<DataType>& arg_types);

bool IsKnownScalarFunction(const std::string& name);
// Every function name, for "did you mean" hints.
std::vector<std::string> ScalarFunctionNames();

// The common type two values are brought to for comparison, CASE branches, UNION columns,
// IN lists and COALESCE (Spark's rules: int widening, int+decimal -> decimal, decimal+double ->
// double, date vs timestamp -> timestamp, string vs date -> date ...). Error if none exists.
Result<DataType> CommonSuperType(const DataType& a, const DataType& b);

// Whether a cast from `from` to `to` is allowed (explicit CAST); implicit casts are decided by
// ResolveScalarFunction / CommonSuperType.
bool CanCast(const DataType& from, const DataType& to);

}  // namespace tandem
