// The UDF loader (see loader.h).
#include "tandem/udf/loader.h"

#include <dlfcn.h>

#include <cmath>
#include <exception>
#include <mutex>

namespace tandem::udf {
namespace {

constexpr int32_t kMaxArgs = 64;

// dlopen once per path; handles are never closed (plans and registries point into them).
Result<void*> OpenLibrary(const std::string& path) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return Status::Invalid("cannot load UDF library " + path + ": " +
                           (why ? std::string(why) : std::string("unknown error")));
  }
  return handle;
}

Result<void*> FindSymbol(void* handle, const std::string& path, const std::string& symbol) {
  dlerror();
  void* p = dlsym(handle, symbol.c_str());
  if (!p || dlerror() != nullptr) {
    return Status::Invalid("symbol " + symbol + " not found in " + path);
  }
  return p;
}

bool IsSqlName(const char* s) {
  if (!s || !*s) return false;
  for (const char* c = s; *c; ++c) {
    const bool ok = (*c >= 'a' && *c <= 'z') || *c == '_' || (c != s && *c >= '0' && *c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<UdfFunctionPtr> FromDescriptor(const TandemUdf* d, const std::string& path,
                                      const std::string& symbol) {
  const std::string where = "UDF " + symbol + " in " + path;
  if (!d) return Status::Invalid(where + ": the entry point returned no descriptor");
  if (d->abi_version != TANDEM_UDF_ABI_VERSION) {
    return Status::Invalid(where + ": ABI version " + std::to_string(d->abi_version) +
                           ", expected " + std::to_string(TANDEM_UDF_ABI_VERSION));
  }
  if (!IsSqlName(d->name)) {
    return Status::Invalid(where +
                           ": the descriptor's name must be lower-case letters, digits and _");
  }
  auto f = std::make_shared<UdfFunction>();
  f->name = d->name;
  f->path = path;
  f->symbol = symbol;
  const std::string named = "UDF " + f->name + " (" + symbol + " in " + path + ")";
  if (d->num_args < 0 || d->num_args > kMaxArgs) {
    return Status::Invalid(named + ": " + std::to_string(d->num_args) +
                           " arguments (0 to 64 allowed)");
  }
  if (d->num_args > 0 && !d->arg_types) return Status::Invalid(named + ": arg_types is null");
  for (int32_t i = 0; i < d->num_args; ++i) {
    DataType t;
    if (!FromUdfType(d->arg_types[i], &t)) {
      return Status::Invalid(named + ": argument " + std::to_string(i + 1) +
                             " has an invalid type (id " + std::to_string(d->arg_types[i].id) +
                             ")");
    }
    f->arg_types.push_back(t);
  }
  if (!FromUdfType(d->result_type, &f->result_type)) {
    return Status::Invalid(named + ": invalid result type (id " +
                           std::to_string(d->result_type.id) + ")");
  }
  if (!d->cpu) return Status::Invalid(named + ": no CPU implementation (cpu is null)");
  if (!std::isfinite(d->cost_ns_per_row) || d->cost_ns_per_row < 0) {
    return Status::Invalid(named + ": cost_ns_per_row must be a finite number >= 0");
  }
  f->deterministic = d->deterministic != 0;
  f->cost_ns_per_row = d->cost_ns_per_row;
  f->cpu = d->cpu;
  f->gpu = d->gpu;
  return UdfFunctionPtr(std::move(f));
}

Result<UdfFunctionPtr> LoadFunction(const std::string& path, const std::string& symbol) {
  TANDEM_ASSIGN_OR_RAISE(void* handle, OpenLibrary(path));
  TANDEM_ASSIGN_OR_RAISE(void* entry, FindSymbol(handle, path, symbol));
  const TandemUdf* d = nullptr;
  try {
    d = reinterpret_cast<TandemUdfEntryFn>(entry)();
  } catch (const std::exception& e) {
    return Status::Invalid("UDF entry point " + symbol + " in " + path + " threw: " + e.what());
  } catch (...) {
    return Status::Invalid("UDF entry point " + symbol + " in " + path + " threw an exception");
  }
  return FromDescriptor(d, path, symbol);
}

Result<std::vector<UdfFunctionPtr>> LoadLibraryFunctions(const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(void* handle, OpenLibrary(path));
  TANDEM_ASSIGN_OR_RAISE(void* entry, FindSymbol(handle, path, TANDEM_UDF_LIST_SYMBOL));
  int32_t count = -1;
  const TandemUdf* const* list = nullptr;
  try {
    list = reinterpret_cast<TandemUdfListFn>(entry)(&count);
  } catch (...) {
    return Status::Invalid(std::string(TANDEM_UDF_LIST_SYMBOL) + " in " + path +
                           " threw an exception");
  }
  if (count < 0 || (count > 0 && !list)) {
    return Status::Invalid(std::string(TANDEM_UDF_LIST_SYMBOL) + " in " + path +
                           " returned no list (count " + std::to_string(count) + ")");
  }
  std::vector<UdfFunctionPtr> out;
  for (int32_t i = 0; i < count; ++i) {
    const std::string where = std::string(TANDEM_UDF_LIST_SYMBOL) + "[" + std::to_string(i) + "]";
    TANDEM_ASSIGN_OR_RAISE(UdfFunctionPtr f, FromDescriptor(list[i], path, where));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tandem::udf
