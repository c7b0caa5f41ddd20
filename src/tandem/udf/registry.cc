// The UDF registry (see registry.h).
#include "tandem/udf/registry.h"

#include <map>
#include <mutex>
#include <shared_mutex>

#include "tandem/expr/aggregate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/udf/loader.h"

namespace tandem::udf {
namespace {

struct Registry {
  std::shared_mutex mu;
  std::map<std::string, UdfFunctionPtr> functions;
};

Registry& TheRegistry() {
  static Registry* r = new Registry();  // never destroyed: plans may outlive static teardown
  return *r;
}

}  // namespace

bool IsBuiltinFunctionName(const std::string& name) {
  // Spellings the binder maps to built-ins itself (synonyms, special forms, window functions).
  static const char* const kReserved[] = {
      "btrim",      "ceiling",  "pow",          "char_length",  "character_length",
      "substr",     "position", "log",          "extract",      "date_part",
      "row_number", "rank",     "dense_rank",   "percent_rank", "cume_dist",
      "ntile",      "lag",      "lead",         "first_value",  "last_value",
      "nth_value",  "grouping", "read_parquet", "read_csv"};
  for (const char* r : kReserved) {
    if (name == r) return true;
  }
  AggregateKind kind;
  return IsKnownScalarFunction(name) || IsKnownScalarFunction("extract_" + name) ||
         LookupAggregate(name, &kind);
}

Status RegisterFunction(const std::string& name, const UdfFunctionPtr& f, bool replace) {
  if (!f) return Status::Internal("RegisterFunction without a function");
  if (IsBuiltinFunctionName(name)) {
    return Status::Invalid("function " + name + " is a built-in function; choose another name");
  }
  auto copy = std::make_shared<UdfFunction>(*f);
  copy->name = name;
  Registry& r = TheRegistry();
  std::unique_lock lock(r.mu);
  auto it = r.functions.find(name);
  if (it != r.functions.end() && !replace) {
    return Status::Invalid("function " + name + " already exists (" + it->second->Signature() +
                           " from " + it->second->path + ")");
  }
  r.functions[name] = std::move(copy);
  return Status::OK();
}

bool DropFunction(const std::string& name) {
  Registry& r = TheRegistry();
  std::unique_lock lock(r.mu);
  return r.functions.erase(name) > 0;
}

UdfFunctionPtr FindFunction(const std::string& name) {
  Registry& r = TheRegistry();
  std::shared_lock lock(r.mu);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second;
}

std::vector<std::string> FunctionNames() {
  Registry& r = TheRegistry();
  std::shared_lock lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.functions) names.push_back(name);
  return names;
}

Status RegisterLibrary(const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<UdfFunctionPtr> functions, LoadLibraryFunctions(path));
  for (const UdfFunctionPtr& f : functions) {
    TANDEM_RETURN_NOT_OK(RegisterFunction(f->name, f, false).WithContext("--udf " + path));
  }
  return Status::OK();
}

}  // namespace tandem::udf
