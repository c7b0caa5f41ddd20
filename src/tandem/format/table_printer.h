// TablePrinter: aligned, human-readable table output (psql style) that streams. Column widths come
// from the header and the first `width_sample_rows` rows; later rows reuse them (a wider string is
// truncated with an ellipsis, a wider number overflows rather than lie). Numbers are
// right-aligned, NULL shows as "NULL", control characters in strings are shown escaped (\n, \t,
// \x01) and strings longer than max_cell_width characters end in "…". A "(N rows)" footer ends it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "tandem/column/batch.h"

namespace tandem::format {

struct TablePrinterOptions {
  int max_cell_width = 40;           // characters (UTF-8 code points)
  int64_t width_sample_rows = 1000;  // rows buffered before the header is printed
};

class TablePrinter {
 public:
  TablePrinter(std::FILE* out, const Schema& schema, TablePrinterOptions options = {});

  // Prints (or buffers) rows [begin, end) of a batch with the printer's schema.
  void AddRows(const Batch& batch, int64_t begin, int64_t end);
  // Prints what is buffered and the row count footer.
  void Finish();

 private:
  std::string CellText(const Column& column, int64_t row) const;
  void PrintBuffered();
  void PrintRow(const std::vector<std::string>& cells, size_t first);

  std::FILE* out_;
  Schema schema_;
  TablePrinterOptions options_;
  std::vector<bool> right_align_;
  std::vector<int> widths_;
  std::vector<std::string> buffered_;  // row-major cells, not yet printed
  bool header_printed_ = false;
  int64_t rows_ = 0;
  std::string line_;
};

// Display width of UTF-8 text in code points.
int64_t DisplayWidth(std::string_view text);

}  // namespace tandem::format
