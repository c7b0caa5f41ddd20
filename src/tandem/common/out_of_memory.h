// Out-of-memory failures that say why: a memory budget that refuses an allocation throws
// MemoryLimitExceeded (a std::bad_alloc carrying its message), and every place that turns a
// caught std::bad_alloc into an error uses OutOfMemoryText, so the message reaches the user.
#pragma once

#include <new>
#include <string>

namespace tandem {

class MemoryLimitExceeded : public std::bad_alloc {
 public:
  explicit MemoryLimitExceeded(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// The budget's message for a MemoryLimitExceeded, else "out of memory".
inline std::string OutOfMemoryText(const std::bad_alloc& e) {
  if (dynamic_cast<const MemoryLimitExceeded*>(&e)) return e.what();
  return "out of memory";
}

}  // namespace tandem
