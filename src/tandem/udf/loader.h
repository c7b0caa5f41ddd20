// Loading scalar UDFs from shared libraries (see udf.h for the ABI): dlopen the library
// (RTLD_NOW | RTLD_LOCAL, never closed: functions stay valid for the life of the process), look
// up an entry point, and validate the descriptor it returns before anything calls it. Errors are
// one line naming the library and symbol:
//   "cannot load UDF library lib.so: <dlerror>", "symbol f not found in lib.so",
//   "UDF f in lib.so: ABI version 7, expected 1".
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/udf/function.h"

namespace tandem::udf {

// The function whose descriptor `symbol` (a TandemUdfEntryFn) returns.
Result<UdfFunctionPtr> LoadFunction(const std::string& path, const std::string& symbol);

// Every function the library lists through tandem_udf_list.
Result<std::vector<UdfFunctionPtr>> LoadLibraryFunctions(const std::string& path);

// Checks a descriptor and converts it; `where` names it in errors ("lib.so", "symbol f").
Result<UdfFunctionPtr> FromDescriptor(const TandemUdf* descriptor, const std::string& path,
                                      const std::string& symbol);

}  // namespace tandem::udf
