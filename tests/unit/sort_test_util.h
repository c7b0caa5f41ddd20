// Shared by the sort tests: a table's rows carry their input row number in the last column, and
// the order of those numbers is the order the sort gave.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/table.h"

namespace tandem::test {

inline std::vector<int64_t> RowNumbers(const Table& t) {
  std::vector<int64_t> ids;
  for (const auto& b : t.batches) {
    const Column& c = *b->columns.back();
    for (int64_t i = 0; i < b->num_rows; ++i) ids.push_back(c.Value<int64_t>(i));
  }
  return ids;
}

}  // namespace tandem::test
