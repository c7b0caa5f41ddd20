// The UDF call checks both devices share (see call_checks.h).
#include "tandem/udf/call_checks.h"

namespace tandem::udf {

Status CheckArguments(const UdfFunction& f, const std::vector<ArgumentShape>& args, int64_t rows) {
  if (args.size() != f.arg_types.size()) {
    return Status::Internal("UDF " + f.name + " called with " + std::to_string(args.size()) +
                            " arguments, declared " + std::to_string(f.arg_types.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].present || args[i].length != rows || args[i].type != f.arg_types[i]) {
      return Status::Internal("UDF " + f.name + ": argument " + std::to_string(i + 1) +
                              " does not match the declared type or the batch length");
    }
  }
  return Status::OK();
}

Result<DataType> CheckOutcome(const UdfFunction& f, int64_t rows, const CallOutcome& o) {
  if (o.rc != TANDEM_UDF_OK) {
    const std::string why = o.error && !o.error->empty()
                                ? *o.error
                                : "error code " + std::to_string(o.rc) + " without a message";
    return Status::Invalid("UDF " + f.name + " failed: " + why);
  }
  DataType type;
  if (!FromUdfType(o.type, &type) || type != f.result_type) {
    const std::string got =
        FromUdfType(o.type, &type) ? type.ToString() : "type id " + std::to_string(o.type.id);
    return Status::Invalid("UDF " + f.name + " returned " + got +
                           ", but it is declared to return " + f.result_type.ToString());
  }
  if (o.length != rows) {
    return Status::Invalid("UDF " + f.name + " returned " + std::to_string(o.length) +
                           " rows for a batch of " + std::to_string(rows));
  }
  if (!o.has_values) return Status::Invalid("UDF " + f.name + " returned no values buffer");
  if (!type.is_string_like() && o.has_data) {
    return Status::Invalid("UDF " + f.name + " returned a data buffer for a " + type.ToString() +
                           " result");
  }
  if (o.null_count < 0 || o.null_count > rows) {
    return Status::Invalid("UDF " + f.name + " returned a null count of " +
                           std::to_string(o.null_count) + " for " + std::to_string(rows) + " rows");
  }
  if (!o.has_validity && o.null_count != 0) {
    return Status::Invalid("UDF " + f.name + " reported " + std::to_string(o.null_count) +
                           " nulls but returned no validity bitmap");
  }
  return type;
}

}  // namespace tandem::udf
