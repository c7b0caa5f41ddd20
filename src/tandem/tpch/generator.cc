// GenerateTpchRows: checks the row range and dispatches to the per-table generators.
#include "tandem/tpch/generator.h"

#include <string>

namespace tandem::tpch {

Result<BatchPtr> GenerateTpchRows(const TpchSizes& sizes, TpchTable table, int64_t begin,
                                  int64_t end) {
  const int64_t rows = sizes.DriverRows(table);
  if (begin < 0 || begin > end || end > rows) {
    return Status::Invalid(std::string("tpch ") + TpchTableName(table) + ": row range [" +
                           std::to_string(begin) + ", " + std::to_string(end) + ") outside [0, " +
                           std::to_string(rows) + ")");
  }
  switch (table) {
    case TpchTable::kPart:
      return GeneratePart(sizes, begin, end);
    case TpchTable::kPartsupp:
      return GeneratePartsupp(sizes, begin, end);
    case TpchTable::kSupplier:
      return GenerateSupplier(sizes, begin, end);
    case TpchTable::kCustomer:
      return GenerateCustomer(sizes, begin, end);
    case TpchTable::kNation:
      return GenerateNation(begin, end);
    case TpchTable::kRegion:
      return GenerateRegion(begin, end);
    case TpchTable::kOrders:
    case TpchTable::kLineitem: {
      TANDEM_ASSIGN_OR_RAISE(OrdersAndLines both, GenerateOrdersAndLines(sizes, begin, end));
      return table == TpchTable::kOrders ? both.orders : both.lineitem;
    }
  }
  return Status::Internal("unknown tpch table");
}

}  // namespace tandem::tpch
