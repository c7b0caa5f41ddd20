// The process-wide registry of scalar UDFs the binder can call, by SQL name. CREATE FUNCTION and
// `tandem sql --udf` add to it, DROP FUNCTION removes from it; the libraries stay loaded (bound
// plans hold their UdfFunction). Names never shadow built-in functions: registering one that a
// built-in scalar, aggregate or window function (or a synonym the binder knows) already uses is
// an error. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/udf/function.h"

namespace tandem::udf {

// Registers `f` under `name` (lower case); the stored copy carries that name. Without `replace`,
// an existing UDF of that name is an error ("function f already exists").
Status RegisterFunction(const std::string& name, const UdfFunctionPtr& f, bool replace);

// Removes a UDF; false when none has that name.
bool DropFunction(const std::string& name);

// Loads every function a library lists (tandem_udf_list) and registers each under its own name
// (`tandem sql --udf` and `tandem explain --udf`); errors name the library.
Status RegisterLibrary(const std::string& path);

// The UDF registered under `name`, or null.
UdfFunctionPtr FindFunction(const std::string& name);

// Registered names, sorted (for "did you mean" hints).
std::vector<std::string> FunctionNames();

// Whether `name` belongs to a built-in function (or a synonym or special form of one).
bool IsBuiltinFunctionName(const std::string& name);

}  // namespace tandem::udf
