// Shared session options of `tandem sql` and `tandem explain` (session_args.h).
#include "tandem/cli/session_args.h"

#include "tandem/udf/registry.h"

namespace tandem::cli {

bool TakeSessionOption(const std::string& arg, ArgReader& reader, SessionArgs* out,
                       std::string* error) {
  if (arg != "--table" && arg != "--catalog" && arg != "--udf" && arg != "--conf") return false;
  std::string value = reader.inline_value();
  if (!reader.TakeValue(&value)) {
    *error = arg == "--table"     ? "--table needs NAME=PATH"
             : arg == "--catalog" ? "--catalog needs a file name"
             : arg == "--udf"     ? "--udf needs a shared library path"
                                  : "--conf needs KEY=VALUE";
    return true;
  }
  if (arg == "--table") {
    std::pair<std::string, std::string> table;
    if (!ParseTableOption(value, &table)) {
      *error = "--table needs NAME=PATH, got '" + value + "'";
    } else {
      out->tables.push_back(std::move(table));
    }
  } else if (arg == "--catalog") {
    out->catalogs.push_back(value);
  } else if (arg == "--udf") {
    out->udf_libraries.push_back(value);
  } else if (Status st = out->config.SetAssignment(value); !st.ok()) {
    *error = st.message();
  }
  return true;
}

Status ApplySessionArgs(const SessionArgs& args, sql::Session& session) {
  for (const std::string& catalog : args.catalogs) {
    TANDEM_RETURN_NOT_OK(session.catalog().LoadFile(catalog));
  }
  for (const auto& [name, path] : args.tables) {
    TANDEM_RETURN_NOT_OK(session.RegisterTable(name, path));
  }
  for (const std::string& library : args.udf_libraries) {
    TANDEM_RETURN_NOT_OK(udf::RegisterLibrary(library));
  }
  return Status::OK();
}

}  // namespace tandem::cli
