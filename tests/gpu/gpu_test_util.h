// Shared helpers for GPU tests: a guard that skips (visibly, as ctest "skipped") when no CUDA
// device is usable, and a table's rows as text for comparing answers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tandem/column/table.h"
#include "tandem/format/value_format.h"
#include "tandem/gpu/device.h"

#define TANDEM_REQUIRE_GPU()                                                                       \
  do {                                                                                             \
    auto _dev = ::tandem::gpu::QueryDevice();                                                      \
    if (!_dev.ok()) GTEST_SKIP() << "skipped: no CUDA device (" << _dev.status().message() << ")"; \
  } while (0)

namespace tandem::test_util {

// A table's rows as text, a line per row, "|" between values, NULL as "NULL": answers compared
// between devices and runs.
inline std::string TableText(const Table& t) {
  std::string out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      for (int c = 0; c < b->num_columns(); ++c) {
        if (c) out += '|';
        if (b->column(c)->IsNull(r)) {
          out += "NULL";
        } else {
          format::AppendText(*b->column(c), r, &out);
        }
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace tandem::test_util
