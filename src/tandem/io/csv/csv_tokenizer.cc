// CSV tokenizer: one pass over the bytes, a lookup table to skip plain runs of unquoted fields.
#include "tandem/io/csv/csv_tokenizer.h"

#include <cstring>
#include <limits>

namespace tandem::csv::internal {
namespace {

std::string Printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

Tokenizer::Tokenizer(const Dialect& dialect) : dialect_(dialect) {
  std::memset(special_, 0, sizeof(special_));
  special_[static_cast<unsigned char>(dialect.delimiter)] = true;
  special_[static_cast<unsigned char>('\n')] = true;
  special_[static_cast<unsigned char>('\r')] = true;
  if (dialect.escape != dialect.quote && dialect.escape != '\0') {
    special_[static_cast<unsigned char>(dialect.escape)] = true;
  }
}

Status Tokenizer::Tokenize(const char* data, int64_t size, int64_t pos, bool at_eof,
                           int64_t max_rows, TokenizedRows* out, int64_t* next_pos,
                           int64_t* line) const {
  const char delimiter = dialect_.delimiter;
  const char quote = dialect_.quote;
  const char escape = dialect_.escape;
  const bool backslash_style = escape != quote && escape != '\0';
  int64_t p = pos;
  int64_t cur_line = *line;
  int64_t rows_added = 0;
  std::vector<FieldRef>& fields = out->fields;

  while (rows_added < max_rows && p < size) {
    const int64_t row_start = p;
    const int64_t row_line = cur_line;
    const size_t fields_before = fields.size();
    bool incomplete = false;

    // Empty lines are skipped, except in one-column files where they are empty (null) values.
    if (out->num_fields != 1 && (data[p] == '\n' || data[p] == '\r')) {
      if (data[p] == '\r' && p + 1 >= size && !at_eof) break;  // maybe CRLF split across blocks
      p += (data[p] == '\r' && p + 1 < size && data[p + 1] == '\n') ? 2 : 1;
      ++cur_line;
      continue;
    }

    while (true) {  // one field per iteration
      FieldRef field{p, 0, 0};
      if (quote != '\0' && data[p] == quote) {
        field.flags = kFieldQuoted;
        ++p;
        field.begin = p;
        bool closed = false;
        while (p < size) {
          const char c = data[p];
          if (backslash_style && c == escape) {
            if (p + 1 >= size) break;
            if (data[p + 1] == '\n') ++cur_line;
            field.flags |= kFieldEscaped;
            p += 2;
            continue;
          }
          if (c == quote) {
            if (escape == quote) {
              if (p + 1 >= size && !at_eof) break;  // a doubled quote may straddle the blocks
              if (p + 1 < size && data[p + 1] == quote) {
                field.flags |= kFieldEscaped;
                p += 2;
                continue;
              }
            }
            closed = true;
            break;
          }
          if (c == '\n') ++cur_line;
          ++p;
        }
        if (!closed) {
          if (at_eof) {
            return Status::Invalid("line " + std::to_string(row_line) +
                                   ": quoted field not closed before the end of the file");
          }
          incomplete = true;
          break;
        }
        const int64_t length = p - field.begin;
        ++p;  // the closing quote
        if (p < size && data[p] != delimiter && data[p] != '\n' && data[p] != '\r') {
          return Status::Invalid("line " + std::to_string(cur_line) + ", column " +
                                 std::to_string(fields.size() - fields_before + 1) + ": " +
                                 Printable(data[p]) + " after the closing quote of a field");
        }
        if (length > std::numeric_limits<uint32_t>::max()) {
          return Status::Invalid("line " + std::to_string(row_line) + ": field longer than 4 GiB");
        }
        field.size = static_cast<uint32_t>(length);
      } else {
        while (p < size) {
          const auto c = static_cast<unsigned char>(data[p]);
          if (!special_[c]) {
            ++p;
            continue;
          }
          if (backslash_style && data[p] == escape) {
            if (p + 1 >= size) {
              if (!at_eof) incomplete = true;
              ++p;  // a lone escape at the very end of the file stands for itself
              break;
            }
            if (data[p + 1] == '\n') ++cur_line;
            field.flags |= kFieldEscaped;
            p += 2;
            continue;
          }
          break;
        }
        if (incomplete) break;
        const int64_t length = p - field.begin;
        if (length > std::numeric_limits<uint32_t>::max()) {
          return Status::Invalid("line " + std::to_string(row_line) + ": field longer than 4 GiB");
        }
        field.size = static_cast<uint32_t>(length);
      }
      fields.push_back(field);

      if (p >= size) {
        if (!at_eof) incomplete = true;
        break;  // the file ends the row
      }
      const char c = data[p];
      if (c == delimiter) {
        ++p;
        if (p >= size && at_eof) {
          fields.push_back(FieldRef{p, 0, 0});  // "a,b," ends with an empty field
          break;
        }
        if (p >= size) {
          incomplete = true;
          break;
        }
        continue;
      }
      if (c == '\n') {
        ++p;
      } else {  // '\r'
        if (p + 1 >= size && !at_eof) {
          incomplete = true;
          break;
        }
        p += (p + 1 < size && data[p + 1] == '\n') ? 2 : 1;
      }
      ++cur_line;
      break;
    }

    if (incomplete) {
      fields.resize(fields_before);
      p = row_start;
      cur_line = row_line;
      break;
    }
    const int64_t found = static_cast<int64_t>(fields.size() - fields_before);
    if (out->num_fields < 0) {
      if (found > std::numeric_limits<int>::max()) {
        return Status::Invalid("line " + std::to_string(row_line) + ": too many fields");
      }
      out->num_fields = static_cast<int>(found);
    } else if (found != out->num_fields) {
      return Status::Invalid("line " + std::to_string(row_line) + ": expected " +
                             std::to_string(out->num_fields) + " fields, found " +
                             std::to_string(found));
    }
    out->lines.push_back(row_line);
    ++rows_added;
  }
  *next_pos = p;
  *line = cur_line;
  return Status::OK();
}

std::string_view FieldText(const char* block, const FieldRef& field, const Dialect& dialect,
                           std::string* scratch) {
  const char* s = block + field.begin;
  if (!(field.flags & kFieldEscaped)) return std::string_view(s, field.size);
  scratch->clear();
  const char escape = dialect.escape;
  for (uint32_t i = 0; i < field.size; ++i) {
    // Doubled quotes ("") and backslash pairs (\x) both stand for their second character.
    if (s[i] == escape && i + 1 < field.size) ++i;
    scratch->push_back(s[i]);
  }
  return *scratch;
}

}  // namespace tandem::csv::internal
