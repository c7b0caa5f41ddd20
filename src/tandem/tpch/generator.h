// TPC-H row generation into in-memory batches. Every value is a pure function of the scale factor
// and its row number (see random.h), so any range of rows can be generated independently, on any
// thread, and concatenating ranges gives the same table as generating it at once.
#pragma once

#include <cstdint>

#include "tandem/column/batch.h"
#include "tandem/tpch/tpch_schema.h"

namespace tandem::tpch {

// Generates driver rows [begin, end) of `table` (see TpchSizes::DriverRows): for partsupp the 4
// rows of each of those parts, for lineitem the lines of those orders. 0 <= begin <= end <=
// DriverRows(table).
Result<BatchPtr> GenerateTpchRows(const TpchSizes& sizes, TpchTable table, int64_t begin,
                                  int64_t end);

// Orders [begin, end) and their lineitems in one pass (an order's status and total price come
// from its lines, so generating them together does the line work once).
struct OrdersAndLines {
  BatchPtr orders;
  BatchPtr lineitem;
};
Result<OrdersAndLines> GenerateOrdersAndLines(const TpchSizes& sizes, int64_t begin, int64_t end);

// Per-table generators behind GenerateTpchRows.
Result<BatchPtr> GeneratePart(const TpchSizes& sizes, int64_t begin, int64_t end);
Result<BatchPtr> GeneratePartsupp(const TpchSizes& sizes, int64_t begin, int64_t end);
Result<BatchPtr> GenerateSupplier(const TpchSizes& sizes, int64_t begin, int64_t end);
Result<BatchPtr> GenerateCustomer(const TpchSizes& sizes, int64_t begin, int64_t end);
Result<BatchPtr> GenerateNation(int64_t begin, int64_t end);
Result<BatchPtr> GenerateRegion(int64_t begin, int64_t end);

}  // namespace tandem::tpch
