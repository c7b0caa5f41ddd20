// Restores integer constants that libpg_query's JSON output drops (it omits every value <= 0),
// from the protobuf output of the same parse. See parse_tree_integers.cc.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tandem/common/status.h"

namespace tandem::sql {

// `text` is what libpg_query parsed, `raw_json` its JSON output and `tree` that JSON parsed.
// Afterwards every A_Const integer in `tree` holds the parser's value.
Status RestoreLostIntegers(const std::string& text, const char* raw_json, nlohmann::json* tree);

}  // namespace tandem::sql
