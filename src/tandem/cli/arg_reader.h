// ArgReader: walks a subcommand's arguments, splitting "--flag=value" and taking a flag's value
// from the next argument otherwise, so every subcommand parses options the same way. An
// argument is an option when it starts with '-' and has no whitespace: a query that begins
// with an SQL comment ("-- Q14 ...\nSELECT ...") is a positional argument, never split at '='.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tandem::cli {

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  // Moves to the next argument; false when none is left.
  bool Next() {
    if (next_ >= args_.size()) return false;
    arg_ = args_[next_++];
    value_.clear();
    has_inline_value_ = false;
    is_option_ =
        arg_.size() > 1 && arg_[0] == '-' && arg_.find_first_of(" \t\n\r") == std::string::npos;
    const size_t eq = arg_.find('=');
    if (is_option_ && arg_.rfind("--", 0) == 0 && eq != std::string::npos) {
      value_ = arg_.substr(eq + 1);
      arg_.resize(eq);
      has_inline_value_ = true;
    }
    return true;
  }
  // The argument, without an inline "=value".
  const std::string& arg() const { return arg_; }
  // Whether the argument is an option ("-x", "--name[=value]") rather than a positional one.
  bool is_option() const { return is_option_; }
  bool has_inline_value() const { return has_inline_value_; }
  const std::string& inline_value() const { return value_; }
  // The flag's value: the inline one, else the next argument (consumed); false if none.
  bool TakeValue(std::string* value) {
    if (has_inline_value_) {
      *value = value_;
      return true;
    }
    if (next_ >= args_.size()) return false;
    *value = args_[next_++];
    return true;
  }

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0;
  std::string arg_;
  std::string value_;
  bool has_inline_value_ = false;
  bool is_option_ = false;
};

// Splits a --table value "NAME=PATH"; false when either side is empty or '=' is missing.
inline bool ParseTableOption(const std::string& value, std::pair<std::string, std::string>* out) {
  const size_t sep = value.find('=');
  if (sep == std::string::npos || sep == 0 || sep + 1 == value.size()) return false;
  *out = {value.substr(0, sep), value.substr(sep + 1)};
  return true;
}

}  // namespace tandem::cli
