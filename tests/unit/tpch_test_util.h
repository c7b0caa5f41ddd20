// Test helpers shared by the tests that run TPC-H on in-memory tables: the text of a query file
// from tests/tpch/queries, and the eight tables generated at a scale factor and registered in a
// session's catalog.
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "tandem/sql/session.h"
#include "tandem/tpch/generator.h"

namespace tandem::test_util {

inline std::string TpchQueryText(int q) {
  std::string path = __FILE__;
  path = path.substr(0, path.rfind('/')) + "/../tpch/queries/q" + (q < 10 ? "0" : "") +
         std::to_string(q) + ".sql";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Generates every TPC-H table at `sf` in memory and registers it in `session`; `tables`, when
// given, receives them by name.
inline Status RegisterTpchTables(sql::Session* session, double sf,
                                 std::map<std::string, std::shared_ptr<Table>>* tables = nullptr) {
  TANDEM_ASSIGN_OR_RAISE(auto sizes, tpch::TpchSizes::ForScaleFactor(sf));
  for (tpch::TpchTable t : tpch::kAllTpchTables) {
    TANDEM_ASSIGN_OR_RAISE(auto batch, tpch::GenerateTpchRows(sizes, t, 0, sizes.DriverRows(t)));
    auto table = std::make_shared<Table>();
    table->schema = batch->schema;
    table->batches.push_back(batch);
    if (tables) (*tables)[tpch::TpchTableName(t)] = table;
    TANDEM_RETURN_NOT_OK(session->catalog().AddTable(
        tpch::TpchTableName(t), TableSource::Memory(tpch::TpchTableName(t), table), true));
  }
  return Status::OK();
}

}  // namespace tandem::test_util
