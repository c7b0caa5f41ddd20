// CSV tokenizer (internal): splits a block of bytes into rows of fields without copying. Fields are
// ranges into the block; quoted fields keep their raw inner bytes and a flag saying they contain
// escapes, which Unescape() resolves when the value is converted. Understands RFC 4180 quoting,
// doubled-quote or backslash escapes, LF / CRLF / CR line ends and newlines inside quotes, and
// counts physical lines so errors can name them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::csv::internal {

enum FieldFlags : uint8_t {
  kFieldQuoted = 1,   // the field was enclosed in quotes (never a null marker)
  kFieldEscaped = 2,  // contains escape sequences: call Unescape
};

struct FieldRef {
  int64_t begin;  // offset into the block
  uint32_t size;
  uint8_t flags;
};

// Complete rows tokenized from one block, row-major: fields[row * num_fields + column].
struct TokenizedRows {
  int num_fields = -1;  // -1 until the first row fixes it
  std::vector<FieldRef> fields;
  std::vector<int64_t> lines;  // physical line (1-based) where each row starts
  int64_t num_rows() const { return static_cast<int64_t>(lines.size()); }
};

struct Dialect {
  char delimiter = ',';
  char quote = '"';   // '\0': no quoting
  char escape = '"';  // == quote: doubled quotes; otherwise this character escapes the next one
};

class Tokenizer {
 public:
  explicit Tokenizer(const Dialect& dialect);

  // Tokenizes complete rows of data[pos, size) into `out` until max_rows rows were added or the
  // data runs out. at_eof: the data ends the file, so a last row without a line end counts.
  // *next_pos receives where tokenizing stopped (the start of the first row not taken);
  // *line is the physical line at pos on entry and at *next_pos on exit. Errors say
  // "line L: ..." (the caller adds the file).
  Status Tokenize(const char* data, int64_t size, int64_t pos, bool at_eof, int64_t max_rows,
                  TokenizedRows* out, int64_t* next_pos, int64_t* line) const;

 private:
  Dialect dialect_;
  bool special_[256];  // bytes that end an unquoted run: delimiter, CR, LF, escape
};

// The field's text with escapes resolved (in `scratch` when anything had to change).
std::string_view FieldText(const char* block, const FieldRef& field, const Dialect& dialect,
                           std::string* scratch);

}  // namespace tandem::csv::internal
