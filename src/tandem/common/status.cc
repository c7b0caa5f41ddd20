// Status helpers: code names and context prefixes.
#include "tandem/common/status.h"

namespace tandem {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalid:
      return "invalid input";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kOutOfMemory:
      return "out of memory";
    case StatusCode::kIOError:
      return "I/O error";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  if (code_ == StatusCode::kInternal) return "internal error: " + message_;
  return message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok() || context.empty()) return *this;
  // "not supported yet: X" stays first so users recognise the class of error.
  static const std::string kUnsupportedPrefix = "not supported yet: ";
  if (code_ == StatusCode::kUnsupported && message_.rfind(kUnsupportedPrefix, 0) == 0) {
    return Status(code_, kUnsupportedPrefix + message_.substr(kUnsupportedPrefix.size()) + " (" +
                             context + ")");
  }
  return Status(code_, context + ": " + message_);
}

}  // namespace tandem
