// Aligned table output (see table_printer.h).
#include "tandem/format/table_printer.h"

#include <algorithm>

#include "tandem/format/value_format.h"

namespace tandem::format {
namespace {

// Cuts text to at most `width` code points, the last being "…" when anything was cut.
std::string Truncate(const std::string& text, int64_t width) {
  if (DisplayWidth(text) <= width) return text;
  std::string out;
  int64_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (points == width - 1) break;
      ++points;
    }
    out.push_back(text[i]);
  }
  out.append("\xE2\x80\xA6");  // U+2026 HORIZONTAL ELLIPSIS
  return out;
}

void AppendEscapedControls(std::string_view text, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7F) {
      out->push_back(ch);
    } else if (ch == '\n') {
      out->append("\\n");
    } else if (ch == '\t') {
      out->append("\\t");
    } else if (ch == '\r') {
      out->append("\\r");
    } else {
      out->append("\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
}

}  // namespace

int64_t DisplayWidth(std::string_view text) {
  int64_t points = 0;
  for (char ch : text) points += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return points;
}

TablePrinter::TablePrinter(std::FILE* out, const Schema& schema, TablePrinterOptions options)
    : out_(out), schema_(schema), options_(options) {
  if (options_.max_cell_width < 2) options_.max_cell_width = 2;
  for (const Field& f : schema_.fields) {
    right_align_.push_back(IsNumeric(f.type));
    widths_.push_back(
        static_cast<int>(std::min<int64_t>(DisplayWidth(f.name), options_.max_cell_width)));
  }
}

std::string TablePrinter::CellText(const Column& column, int64_t row) const {
  if (column.IsNull(row)) return "NULL";
  std::string text;
  if (column.type().id == TypeId::kString) {
    AppendEscapedControls(column.GetString(row), &text);
  } else {
    AppendText(column, row, &text);
  }
  if (!IsNumeric(column.type())) text = Truncate(text, options_.max_cell_width);
  return text;
}

void TablePrinter::AddRows(const Batch& batch, int64_t begin, int64_t end) {
  const size_t ncols = schema_.fields.size();
  for (int64_t row = begin; row < end; ++row) {
    for (size_t c = 0; c < ncols; ++c) {
      buffered_.push_back(CellText(*batch.column(static_cast<int>(c)), row));
    }
    ++rows_;
    if (header_printed_ || rows_ >= options_.width_sample_rows) PrintBuffered();
  }
}

void TablePrinter::PrintRow(const std::vector<std::string>& cells, size_t first) {
  line_.clear();
  for (size_t c = 0; c < widths_.size(); ++c) {
    std::string text = cells[first + c];
    const int64_t w = DisplayWidth(text);
    if (w > widths_[c] && !right_align_[c]) text = Truncate(text, widths_[c]);
    const int64_t pad = std::max<int64_t>(0, widths_[c] - DisplayWidth(text));
    line_.append(c == 0 ? " " : " | ");
    if (right_align_[c]) line_.append(static_cast<size_t>(pad), ' ');
    line_.append(text);
    if (!right_align_[c] && c + 1 < widths_.size()) line_.append(static_cast<size_t>(pad), ' ');
  }
  line_.push_back('\n');
  std::fwrite(line_.data(), 1, line_.size(), out_);
}

void TablePrinter::PrintBuffered() {
  const size_t ncols = widths_.size();
  if (!header_printed_) {
    for (size_t i = 0; i < buffered_.size(); ++i) {
      const int c = static_cast<int>(i % ncols);
      widths_[c] = static_cast<int>(std::max<int64_t>(widths_[c], DisplayWidth(buffered_[i])));
    }
    std::vector<std::string> names;
    for (const Field& f : schema_.fields)
      names.push_back(Truncate(f.name, options_.max_cell_width));
    PrintRow(names, 0);
    line_.clear();
    for (size_t c = 0; c < ncols; ++c) {
      line_.append(c == 0 ? "-" : "-+-");
      line_.append(static_cast<size_t>(widths_[c]), '-');
    }
    line_.push_back('\n');
    std::fwrite(line_.data(), 1, line_.size(), out_);
    header_printed_ = true;
  }
  if (ncols > 0) {
    for (size_t first = 0; first < buffered_.size(); first += ncols) PrintRow(buffered_, first);
  }
  buffered_.clear();
}

void TablePrinter::Finish() {
  PrintBuffered();
  std::fprintf(out_, "(%lld row%s)\n", static_cast<long long>(rows_), rows_ == 1 ? "" : "s");
}

}  // namespace tandem::format
