// Status and Result<T>: errors are values. A Status carries a code and a one-line message that
// already names what and where (file, column, line:column); no exception crosses a public API.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace tandem {

enum class StatusCode : int {
  kOk = 0,
  kInvalid,      // bad input: malformed file, bad option, bad SQL
  kUnsupported,  // valid input the engine cannot handle yet ("not supported yet: ...")
  kOutOfMemory,
  kIOError,   // the operating system refused (open, read, write, rename)
  kInternal,  // a bug in Tandem
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status Invalid(std::string msg) { return Status(StatusCode::kInvalid, std::move(msg)); }
  static Status Unsupported(std::string msg) {
    return Status(StatusCode::kUnsupported, "not supported yet: " + std::move(msg));
  }
  static Status OutOfMemory(std::string msg) {
    return Status(StatusCode::kOutOfMemory, std::move(msg));
  }
  static Status IOError(std::string msg) { return Status(StatusCode::kIOError, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "message" for user errors; "internal error: message" for bugs.
  std::string ToString() const;

  // Adds context in front of the message: "file x.parquet, column c: <message>".
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T ValueOrDie() && {
    if (!ok()) std::abort();
    return std::move(*value_);
  }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tandem

#define TANDEM_CONCAT_INNER(a, b) a##b
#define TANDEM_CONCAT(a, b) TANDEM_CONCAT_INNER(a, b)

// Returns the status from the enclosing function if it is not OK.
#define TANDEM_RETURN_NOT_OK(expr) \
  do {                             \
    ::tandem::Status _st = (expr); \
    if (!_st.ok()) return _st;     \
  } while (0)

#define TANDEM_ASSIGN_OR_RAISE_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

// TANDEM_ASSIGN_OR_RAISE(auto x, MakeX()); returns the error status if MakeX fails.
#define TANDEM_ASSIGN_OR_RAISE(lhs, rexpr) \
  TANDEM_ASSIGN_OR_RAISE_IMPL(TANDEM_CONCAT(_res_, __LINE__), lhs, rexpr)
