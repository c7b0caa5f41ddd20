// C++ UDF libraries inside Spark (see spark_udfs.h).
#include "tandem/spark/spark_udfs.h"

#include <mutex>

#include "tandem/column/take.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/spark/unsafe_rows.h"
#include "tandem/udf/loader.h"
#include "tandem/udf/registry.h"

namespace tandem::spark {
namespace {

std::mutex g_register_mutex;

}  // namespace

Status RegisterUdfLibraries(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(g_register_mutex);
  for (const std::string& path : paths) {
    TANDEM_ASSIGN_OR_RAISE(std::vector<UdfFunctionPtr> functions, udf::LoadLibraryFunctions(path));
    for (const UdfFunctionPtr& f : functions) {
      if (UdfFunctionPtr known = udf::FindFunction(f->name)) {
        if (known->path == f->path && known->symbol == f->symbol) continue;
        return Status::Invalid("spark.tandem.udf.libraries: function " + f->name + " of " + path +
                               " is already registered from " + known->path);
      }
      Status st = udf::RegisterFunction(f->name, f, /*replace=*/false);
      if (!st.ok()) return Status::Invalid("spark.tandem.udf.libraries: " + st.message());
    }
  }
  return Status::OK();
}

Result<Json> UdfSignatures(const std::vector<std::string>& paths) {
  TANDEM_RETURN_NOT_OK(RegisterUdfLibraries(paths));
  Json out = Json::array();
  for (const std::string& path : paths) {
    TANDEM_ASSIGN_OR_RAISE(std::vector<UdfFunctionPtr> functions, udf::LoadLibraryFunctions(path));
    for (const UdfFunctionPtr& f : functions) {
      Json args = Json::array();
      for (const DataType& t : f->arg_types) args.push_back(TypeToJson(t));
      out.push_back({{"name", f->name},
                     {"args", args},
                     {"result", TypeToJson(f->result_type)},
                     {"deterministic", f->deterministic}});
    }
  }
  return out;
}

Result<ExprPtr> UdfCall(const std::string& name, std::vector<ExprPtr> args, const DataType& type) {
  UdfFunctionPtr f = udf::FindFunction(name);
  if (!f) {
    return Status::Unsupported("UDF " + name +
                               " is not loaded in this executor (spark.tandem.udf.libraries)");
  }
  if (args.size() != f->arg_types.size()) {
    return Status::Invalid("UDF " + f->Signature() + " called with " + std::to_string(args.size()) +
                           " arguments");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->type != f->arg_types[i]) {
      return Status::Unsupported("UDF " + f->Signature() + " given " + args[i]->type.ToString() +
                                 " for argument " + std::to_string(i + 1));
    }
  }
  if (type != f->result_type) {
    return Status::Unsupported("Spark types UDF " + name + " as " + type.ToString() +
                               ", the library as " + f->result_type.ToString());
  }
  auto e = MakeCall(f->name, std::move(args), f->result_type, /*nullable=*/true);
  e->udf = f;
  return e;
}

Result<std::string> EvalUdfRow(const std::string& name, const uint8_t* row, int64_t bytes) {
  UdfFunctionPtr f = udf::FindFunction(name);
  if (!f) return Status::Invalid("UDF " + name + " is not loaded (spark.tandem.udf.libraries)");
  Schema args;
  std::vector<ExprPtr> refs;
  for (size_t i = 0; i < f->arg_types.size(); ++i) {
    args.fields.push_back({"a" + std::to_string(i), f->arg_types[i], true});
    refs.push_back(MakeColumnRef(static_cast<int>(i), f->arg_types[i], true));
  }
  TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, DecodeUnsafeRows(args, row, bytes, 1));
  TANDEM_ASSIGN_OR_RAISE(ExprPtr call, UdfCall(name, std::move(refs), f->result_type));
  EvalContext eval;
  TANDEM_ASSIGN_OR_RAISE(ColumnPtr out, cpu::Evaluate(*call, *batch, eval));
  if (out->length() != 1) return Status::Internal("UDF " + name + " gave no row");
  const Schema result{{{"r", f->result_type, true}}};
  return EncodeUnsafeRows(result, {{GetValue(*out, 0)}});
}

}  // namespace tandem::spark
