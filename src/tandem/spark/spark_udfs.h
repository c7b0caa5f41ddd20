// Tandem's C++ UDF libraries inside Spark (spark.tandem.udf.libraries). The driver registers
// every function of the libraries into each Spark session under its own name (the plugin's
// TandemUdfs, from the signatures listed here); a call is a TandemUdfExpression in Spark's plan,
// a "udf" EXPR in a fragment (run by Tandem's evaluators, on the GPU when the function has a GPU
// entry), and, where its operator stays in Spark, one row at a time through EvalUdfRow. The
// libraries load once per process; registering the same function again is a no-op, another
// function under a name already taken is an error naming both libraries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/expr/expr.h"
#include "tandem/spark/fragment_json.h"

namespace tandem::spark {

// Loads and registers every function of each library.
Status RegisterUdfLibraries(const std::vector<std::string>& paths);

// Registers the libraries, then lists their functions: [{"name", "args": [TYPE], "result": TYPE,
// "deterministic"}], in the fragment's TYPE form.
Result<Json> UdfSignatures(const std::vector<std::string>& paths);

// A "udf" EXPR: {"kind": "udf", "name", "args", "type"} over arguments already built; the
// function must be registered in this process and its signature must be the arguments' types.
Result<ExprPtr> UdfCall(const std::string& name, std::vector<ExprPtr> args, const DataType& type);

// Calls the UDF on one row packed as the plugin packs rows (unsafe_rows.h) in the schema of its
// argument types; the result comes back as one packed row of one field.
Result<std::string> EvalUdfRow(const std::string& name, const uint8_t* row, int64_t bytes);

}  // namespace tandem::spark
