// The options `tandem sql` and `tandem explain` share to set up a session: --table NAME=PATH,
// --catalog FILE, --udf LIB.so and --conf KEY=VALUE. Each command parses its own options and
// hands these over, then applies them to its session in one place.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/common/config.h"
#include "tandem/sql/session.h"

namespace tandem::cli {

struct SessionArgs {
  std::vector<std::pair<std::string, std::string>> tables;
  std::vector<std::string> catalogs;
  std::vector<std::string> udf_libraries;  // every function they list is registered
  Config config;
};

// When `arg` is one of the shared options, consumes its value from `reader` into *out and returns
// true, with *error set to a usage message if the option is malformed; returns false otherwise.
bool TakeSessionOption(const std::string& arg, ArgReader& reader, SessionArgs* out,
                       std::string* error);

// Loads the catalogs, registers the tables and the UDF libraries, in that order.
Status ApplySessionArgs(const SessionArgs& args, sql::Session& session);

}  // namespace tandem::cli
