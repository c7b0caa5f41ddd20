// Table: a schema and the batches that hold its rows, in order. What file readers return and
// writers take when the whole input fits in memory.
#pragma once

#include <vector>

#include "tandem/column/batch.h"

namespace tandem {

struct Table {
  Schema schema;
  std::vector<BatchPtr> batches;

  int64_t num_rows() const {
    int64_t n = 0;
    for (const auto& b : batches) n += b->num_rows;
    return n;
  }
};

}  // namespace tandem
