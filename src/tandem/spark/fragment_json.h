// Reading the pieces of a Spark plan fragment (docs/spark_fragment.md): types, fields, schemas
// and literal values. Every error names the JSON path of what is wrong ("root.child.exprs[2]:
// unknown type id 'interval'"), since a fragment that does not parse is a plugin bug to find.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tandem/common/status.h"
#include "tandem/types/data_type.h"
#include "tandem/types/value.h"

namespace tandem::spark {

using Json = nlohmann::json;

// Spark's type of a fragment TYPE: {"id": "decimal", "precision": 15, "scale": 2}, ...
Result<DataType> TypeFromJson(const Json& j, const std::string& where);
// The fragment TYPE of a Tandem type (the inverse, for tests and explain).
Json TypeToJson(const DataType& type);
// A FIELD: {"name", "type", "nullable"}.
Result<Field> FieldFromJson(const Json& j, const std::string& where);
// A list of FIELDs.
Result<Schema> SchemaFromJson(const Json& j, const std::string& where);
// A literal value of `type` from its JSON form (null, bool, integer, float64 or "NaN",
// unscaled decimal string, days, microseconds, string).
Result<Value> ValueFromJson(const Json& j, const DataType& type, const std::string& where);

// Required members, with errors naming `where`.
Result<const Json*> Member(const Json& j, const char* key, const std::string& where);
Result<std::string> StringMember(const Json& j, const char* key, const std::string& where);
Result<int64_t> IntMember(const Json& j, const char* key, const std::string& where);

}  // namespace tandem::spark
