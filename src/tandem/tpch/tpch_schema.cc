// TPC-H table names, schemas (clause 1.4) and sizes (clause 4.2.5).
#include "tandem/tpch/tpch_schema.h"

#include <cmath>
#include <string>

namespace tandem::tpch {
namespace {

Field F(const char* name, DataType type) { return Field{name, type, false}; }
DataType Key() { return DataType::Int64(); }
DataType Int() { return DataType::Int32(); }
DataType Money() { return DataType::Decimal(15, 2); }
DataType Date() { return DataType::Date32(); }
DataType Text() { return DataType::String(); }

int64_t Scaled(double sf, int64_t base) {
  // The epsilon absorbs binary rounding (0.01 * 150000 = 1499.9999...).
  const auto n = static_cast<int64_t>(std::floor(sf * static_cast<double>(base) + 1e-6));
  return n < 1 ? 1 : n;
}

}  // namespace

const char* TpchTableName(TpchTable table) {
  switch (table) {
    case TpchTable::kPart:
      return "part";
    case TpchTable::kPartsupp:
      return "partsupp";
    case TpchTable::kSupplier:
      return "supplier";
    case TpchTable::kCustomer:
      return "customer";
    case TpchTable::kOrders:
      return "orders";
    case TpchTable::kLineitem:
      return "lineitem";
    case TpchTable::kNation:
      return "nation";
    case TpchTable::kRegion:
      return "region";
  }
  return "?";
}

std::optional<TpchTable> TpchTableFromName(std::string_view name) {
  for (TpchTable t : kAllTpchTables) {
    if (name == TpchTableName(t)) return t;
  }
  return std::nullopt;
}

Schema TpchSchema(TpchTable table) {
  Schema s;
  switch (table) {
    case TpchTable::kPart:
      s.fields = {F("p_partkey", Key()),    F("p_name", Text()),         F("p_mfgr", Text()),
                  F("p_brand", Text()),     F("p_type", Text()),         F("p_size", Int()),
                  F("p_container", Text()), F("p_retailprice", Money()), F("p_comment", Text())};
      break;
    case TpchTable::kPartsupp:
      s.fields = {F("ps_partkey", Key()), F("ps_suppkey", Key()), F("ps_availqty", Int()),
                  F("ps_supplycost", Money()), F("ps_comment", Text())};
      break;
    case TpchTable::kSupplier:
      s.fields = {F("s_suppkey", Key()),   F("s_name", Text()),  F("s_address", Text()),
                  F("s_nationkey", Key()), F("s_phone", Text()), F("s_acctbal", Money()),
                  F("s_comment", Text())};
      break;
    case TpchTable::kCustomer:
      s.fields = {F("c_custkey", Key()),     F("c_name", Text()),   F("c_address", Text()),
                  F("c_nationkey", Key()),   F("c_phone", Text()),  F("c_acctbal", Money()),
                  F("c_mktsegment", Text()), F("c_comment", Text())};
      break;
    case TpchTable::kOrders:
      s.fields = {
          F("o_orderkey", Key()),     F("o_custkey", Key()),      F("o_orderstatus", Text()),
          F("o_totalprice", Money()), F("o_orderdate", Date()),   F("o_orderpriority", Text()),
          F("o_clerk", Text()),       F("o_shippriority", Int()), F("o_comment", Text())};
      break;
    case TpchTable::kLineitem:
      s.fields = {
          F("l_orderkey", Key()),     F("l_partkey", Key()),       F("l_suppkey", Key()),
          F("l_linenumber", Int()),   F("l_quantity", Money()),    F("l_extendedprice", Money()),
          F("l_discount", Money()),   F("l_tax", Money()),         F("l_returnflag", Text()),
          F("l_linestatus", Text()),  F("l_shipdate", Date()),     F("l_commitdate", Date()),
          F("l_receiptdate", Date()), F("l_shipinstruct", Text()), F("l_shipmode", Text()),
          F("l_comment", Text())};
      break;
    case TpchTable::kNation:
      s.fields = {F("n_nationkey", Key()), F("n_name", Text()), F("n_regionkey", Key()),
                  F("n_comment", Text())};
      break;
    case TpchTable::kRegion:
      s.fields = {F("r_regionkey", Key()), F("r_name", Text()), F("r_comment", Text())};
      break;
  }
  return s;
}

Result<TpchSizes> TpchSizes::ForScaleFactor(double sf) {
  if (!std::isfinite(sf) || sf < 0.01 || sf > 1000) {
    return Status::Invalid("scale factor must be a number from 0.01 to 1000, got " +
                           std::to_string(sf));
  }
  TpchSizes s;
  s.scale_factor = sf;
  s.parts = Scaled(sf, 200000);
  s.suppliers = Scaled(sf, 10000);
  s.customers = Scaled(sf, 150000);
  s.orders = Scaled(sf, 1500000);
  s.clerks = Scaled(sf, 1000);
  return s;
}

int64_t TpchSizes::DriverRows(TpchTable table) const {
  switch (table) {
    case TpchTable::kPart:
    case TpchTable::kPartsupp:
      return parts;
    case TpchTable::kSupplier:
      return suppliers;
    case TpchTable::kCustomer:
      return customers;
    case TpchTable::kOrders:
    case TpchTable::kLineitem:
      return orders;
    case TpchTable::kNation:
      return 25;
    case TpchTable::kRegion:
      return 5;
  }
  return 0;
}

int64_t TpchSizes::ExpectedRows(TpchTable table) const {
  if (table == TpchTable::kPartsupp || table == TpchTable::kLineitem) {
    return 4 * DriverRows(table);
  }
  return DriverRows(table);
}

}  // namespace tandem::tpch
