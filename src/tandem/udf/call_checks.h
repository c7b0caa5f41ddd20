// The checks CallCpu (call_cpu.h) and CallGpu (call_gpu.h) share between the engine and a UDF it
// cannot trust: the arguments match the declaration, an exception thrown through the entry point
// is caught at the boundary, and the outcome the host can see without reading data (status,
// type, length, which buffers, the null count's range) is what the declaration promises. Each
// failure is an Invalid status naming the function, in the same words for both devices.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/udf/function.h"

namespace tandem::udf {

// One argument as the caller passes it.
struct ArgumentShape {
  bool present = false;
  DataType type;
  int64_t length = 0;
};

// Internal error when the caller's arguments do not match f's declaration or the batch length.
Status CheckArguments(const UdfFunction& f, const std::vector<ArgumentShape>& args, int64_t rows);

// Runs `call` (the entry point); a C++ exception becomes "UDF f threw: <what>".
template <typename Call>
Result<int32_t> CallCatching(const UdfFunction& f, Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    return Status::Invalid("UDF " + f.name + " threw: " + e.what());
  } catch (...) {
    return Status::Invalid("UDF " + f.name + " threw an exception");
  }
}

// What a call returned, as far as the host sees it without reading the result's data.
struct CallOutcome {
  int32_t rc = TANDEM_UDF_ERROR;
  const std::string* error = nullptr;  // the message set with ctx->set_error, if any
  TandemUdfType type{};
  int64_t length = 0;
  int64_t null_count = 0;
  bool has_values = false;
  bool has_validity = false;
  bool has_data = false;
};

// The outcome of a call that filled `out` (TandemUdfOutput or TandemUdfDeviceOutput).
template <typename Output>
CallOutcome OutcomeOf(int32_t rc, bool error_set, const std::string& error, const Output& out) {
  return CallOutcome{rc,
                     error_set ? &error : nullptr,
                     out.type,
                     out.length,
                     out.null_count,
                     out.values != nullptr,
                     out.validity != nullptr,
                     out.data != nullptr};
}

// The status (and the UDF's message), the declared type, one value per row, a values buffer, a
// data buffer only for strings, and a null count in [0, rows] with a bitmap when above 0.
// Returns the result type.
Result<DataType> CheckOutcome(const UdfFunction& f, int64_t rows, const CallOutcome& o);

}  // namespace tandem::udf
