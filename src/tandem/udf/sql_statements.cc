// CREATE FUNCTION and DROP FUNCTION (see sql_statements.h). Type names are bound by the SQL
// binder's own rules (BindTypeName), so `double`, `varchar`, `decimal(15,2)` mean here what
// they mean in CAST.
#include "tandem/udf/sql_statements.h"

#include "tandem/sql/binder_internal.h"
#include "tandem/sql/parser.h"
#include "tandem/udf/loader.h"
#include "tandem/udf/registry.h"

namespace tandem::udf {
namespace {

using Json = nlohmann::json;
using sql::binder::Binder;

int LocationOf(const Json& node, int fallback) {
  auto it = node.find("location");
  return it != node.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::string StringOf(const Json& item) {
  if (!item.is_object() || !item.contains("String")) return "";
  return item["String"].value("sval", std::string());
}

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& item : list) out.push_back(StringOf(item));
  return out;
}

struct FunctionOptions {
  std::string language;
  std::vector<std::string> as;
  std::string volatility;
  int as_location = -1;
  int volatility_location = -1;
};

Result<FunctionOptions> ReadOptions(const Binder& b, const Json& node, int stmt) {
  FunctionOptions o;
  for (const Json& item : node.value("options", Json::array())) {
    if (!item.contains("DefElem")) continue;
    const Json& d = item["DefElem"];
    const std::string name = d.value("defname", std::string());
    const int loc = LocationOf(d, stmt);
    const Json& arg = d.contains("arg") ? d["arg"] : Json();
    if (name == "language") {
      o.language = StringOf(arg);
    } else if (name == "as") {
      o.as = Strings(arg.contains("List") ? arg["List"].value("items", Json::array()) : Json());
      o.as_location = loc;
    } else if (name == "volatility") {
      o.volatility = StringOf(arg);
      o.volatility_location = loc;
    } else {
      return b.Unsupported("CREATE FUNCTION option " + name, loc);
    }
  }
  if (o.language != "c") {
    return b.Error("CREATE FUNCTION needs LANGUAGE C (a function in a shared library)", stmt);
  }
  if (o.as.size() != 2 || o.as[0].empty() || o.as[1].empty()) {
    return b.Error("CREATE FUNCTION needs AS 'path/lib.so', 'symbol'",
                   o.as_location >= 0 ? o.as_location : stmt);
  }
  return o;
}

}  // namespace

Result<std::string> CreateFunctionStatement(const Json& node, const std::string& script, int stmt,
                                            Catalog& catalog) {
  Binder b(script, catalog, sql::BindOptions{});
  if (node.value("is_procedure", false)) return b.Unsupported("CREATE PROCEDURE", stmt);
  const std::vector<std::string> names = Strings(node.value("funcname", Json::array()));
  if (names.size() != 1 || names[0].empty()) {
    return b.Unsupported("schema-qualified function names", stmt);
  }
  const std::string& name = names[0];
  if (!node.contains("returnType")) return b.Error("CREATE FUNCTION needs RETURNS type", stmt);
  const Json& ret = node["returnType"];
  if (ret.value("setof", false)) return b.Unsupported("RETURNS SETOF", LocationOf(ret, stmt));
  TANDEM_ASSIGN_OR_RAISE(FunctionOptions options, ReadOptions(b, node, stmt));

  std::vector<DataType> args;
  std::vector<int> arg_locations;
  for (const Json& p : node.value("parameters", Json::array())) {
    const Json& fp = p.contains("FunctionParameter") ? p["FunctionParameter"] : p;
    const Json& type_name = fp.contains("argType") ? fp["argType"] : Json();
    const int loc = LocationOf(type_name, stmt);
    const std::string mode = fp.value("mode", std::string("FUNC_PARAM_DEFAULT"));
    if (mode != "FUNC_PARAM_DEFAULT" && mode != "FUNC_PARAM_IN") {
      return b.Unsupported("OUT, INOUT and VARIADIC parameters", loc);
    }
    if (fp.contains("defexpr")) return b.Unsupported("parameter defaults", loc);
    TANDEM_ASSIGN_OR_RAISE(DataType t, b.BindTypeName(type_name));
    args.push_back(t);
    arg_locations.push_back(loc);
  }
  TANDEM_ASSIGN_OR_RAISE(DataType result, b.BindTypeName(ret));

  const std::string& path = options.as[0];
  const std::string& symbol = options.as[1];
  Result<UdfFunctionPtr> loaded = LoadFunction(path, symbol);
  if (!loaded.ok()) return b.Error(loaded.status().message(), options.as_location);
  const UdfFunction& exported = **loaded;

  // The declared signature must be the exported one, type for type.
  std::string declared = name + "(";
  for (size_t i = 0; i < args.size(); ++i) declared += (i ? ", " : "") + args[i].ToString();
  declared += ") -> " + result.ToString();
  int mismatch = -1;
  if (args.size() != exported.arg_types.size()) {
    mismatch = stmt;
  } else {
    for (size_t i = 0; i < args.size() && mismatch < 0; ++i) {
      if (args[i] != exported.arg_types[i]) mismatch = arg_locations[i];
    }
    if (mismatch < 0 && result != exported.result_type) mismatch = LocationOf(ret, stmt);
  }
  if (mismatch >= 0) {
    return b.Error("function " + declared + " does not match " + exported.Signature() +
                       " exported by " + symbol + " in " + path,
                   mismatch);
  }

  auto f = std::make_shared<UdfFunction>(exported);
  if (options.volatility == "volatile") {
    f->deterministic = false;
  } else if (!options.volatility.empty() && !f->deterministic) {
    return b.Error(
        "function " + name + " is not deterministic; it cannot be declared " + options.volatility,
        options.volatility_location);
  }
  if (Status st = RegisterFunction(name, f, node.value("replace", false)); !st.ok()) {
    return b.Error(st.message(), stmt);
  }
  UdfFunction shown = *f;
  shown.name = name;
  return "created function " + shown.Signature() + (f->has_gpu() ? " (CPU and GPU)" : " (CPU)");
}

Result<std::string> DropFunctionStatement(const Json& node, const std::string& script, int stmt) {
  const bool if_exists = node.value("missing_ok", false);
  std::string dropped;
  for (const Json& object : node.value("objects", Json::array())) {
    const Json& owa = object.contains("ObjectWithArgs") ? object["ObjectWithArgs"] : object;
    const std::vector<std::string> parts = Strings(owa.value("objname", Json::array()));
    if (parts.size() != 1) {
      return Status::Unsupported("schema-qualified names in DROP FUNCTION (line " +
                                 sql::PositionOf(script, stmt).ToString() + ")");
    }
    if (!DropFunction(parts[0])) {
      if (if_exists) continue;
      std::string msg = "no function named " + parts[0];
      if (IsBuiltinFunctionName(parts[0])) msg = parts[0] + " is a built-in function";
      return Status::Invalid(msg + " (line " + sql::PositionOf(script, stmt).ToString() + ")");
    }
    dropped += (dropped.empty() ? "" : ", ") + parts[0];
  }
  return dropped.empty() ? std::string("nothing dropped") : "dropped function " + dropped;
}

}  // namespace tandem::udf
