// The eight TPC-H tables: names, Tandem schemas and scale-factor dependent sizes.
//
// Types: keys (p_partkey, s_suppkey, c_custkey, o_orderkey, n_nationkey, r_regionkey and the
// foreign keys that reference them) are int64 so every scale factor fits and joins compare equal
// types; other spec "Integer" columns (p_size, ps_availqty, o_shippriority, l_linenumber) are
// int32; DECIMAL is decimal(15,2) (64-bit unscaled cents); DATE is date32; CHAR/VARCHAR are string.
// No column is nullable.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tandem/common/status.h"
#include "tandem/types/data_type.h"

namespace tandem::tpch {

enum class TpchTable : int {
  kPart,
  kPartsupp,
  kSupplier,
  kCustomer,
  kOrders,
  kLineitem,
  kNation,
  kRegion,
};

inline constexpr std::array<TpchTable, 8> kAllTpchTables = {
    TpchTable::kPart,   TpchTable::kPartsupp, TpchTable::kSupplier, TpchTable::kCustomer,
    TpchTable::kOrders, TpchTable::kLineitem, TpchTable::kNation,   TpchTable::kRegion};

// "part", "partsupp", ... (the folder names of `tandem datagen`).
const char* TpchTableName(TpchTable table);
std::optional<TpchTable> TpchTableFromName(std::string_view name);

Schema TpchSchema(TpchTable table);

// Row counts derived from the scale factor (clause 4.2.5): floor(SF * base), at least 1.
struct TpchSizes {
  double scale_factor = 1;
  int64_t parts = 0;      // SF * 200,000
  int64_t suppliers = 0;  // SF * 10,000
  int64_t customers = 0;  // SF * 150,000
  int64_t orders = 0;     // SF * 1,500,000
  int64_t clerks = 0;     // SF * 1,000

  // Validates the scale factor: a finite number in [0.01, 1000].
  static Result<TpchSizes> ForScaleFactor(double scale_factor);

  // Rows of the table that drives generation of `table`: parts for part and partsupp (4 partsupp
  // rows per part), orders for orders and lineitem (1..7 lines per order), else the table itself.
  int64_t DriverRows(TpchTable table) const;
  // Exact row count, except lineitem, for which this is the expected count (4 per order).
  int64_t ExpectedRows(TpchTable table) const;
};

}  // namespace tandem::tpch
