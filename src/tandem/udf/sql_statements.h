// The SQL statements that manage UDFs, run by the session (sql/session.cc):
//   CREATE [OR REPLACE] FUNCTION name(type, ...) RETURNS type [VOLATILE|STABLE|IMMUTABLE]
//       LANGUAGE C AS 'path/lib.so', 'symbol'
//   DROP FUNCTION [IF EXISTS] name [, ...]
// CREATE loads the library, checks that the declared SQL signature is exactly the one the
// descriptor exports (positioned error otherwise) and registers the function (udf/registry.h).
// VOLATILE makes a deterministic function non-deterministic; STABLE/IMMUTABLE on a
// non-deterministic one is an error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tandem/catalog/catalog.h"
#include "tandem/common/status.h"

namespace tandem::udf {

// `node` is the CreateFunctionStmt / DropStmt content; `script` the whole text (positions);
// `statement` the byte offset of the statement (for errors without a closer position).
// Both return the one-line message the statement prints.
Result<std::string> CreateFunctionStatement(const nlohmann::json& node, const std::string& script,
                                            int statement, Catalog& catalog);
Result<std::string> DropFunctionStatement(const nlohmann::json& node, const std::string& script,
                                          int statement);

}  // namespace tandem::udf
