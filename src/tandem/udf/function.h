// UdfFunction: the engine's view of one loaded scalar UDF (udf.h's TandemUdf after validation):
// its SQL name, signature in Tandem types, determinism, declared cost and entry points. Shared
// by bound expressions (Expr::udf), so a plan keeps the function alive after DROP FUNCTION; the
// library itself stays loaded for the life of the process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/types/data_type.h"
#include "tandem/udf/udf.h"

namespace tandem {

struct UdfFunction {
  std::string name;    // SQL name it is registered under (lower case)
  std::string path;    // the library file
  std::string symbol;  // the entry point that returned the descriptor
  std::vector<DataType> arg_types;
  DataType result_type;
  bool deterministic = true;
  double cost_ns_per_row = 0;  // declared; 0 = unknown
  TandemUdfCpuFn cpu = nullptr;
  TandemUdfGpuFn gpu = nullptr;  // null: CPU only

  bool has_gpu() const { return gpu != nullptr; }
  // "name(float64, float64) -> float64"
  std::string Signature() const;
};

using UdfFunctionPtr = std::shared_ptr<const UdfFunction>;

// Tandem type of an ABI type; false when the ABI type is not valid (unknown id, decimal
// precision/scale out of range, non-zero fields a type does not use).
bool FromUdfType(const TandemUdfType& t, DataType* out);
TandemUdfType ToUdfType(const DataType& t);

}  // namespace tandem
