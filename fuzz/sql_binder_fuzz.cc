// libFuzzer target: arbitrary text through the SQL parser, binder and optimizer over a small
// catalog (two in-memory tables and a view). It must never crash, hang or overflow the stack:
// deep nesting ends in the documented tandem.sql.maxExpressionDepth error, and every other
// problem in a positioned error. Plans are not executed (a fuzzed cross join could run for ever).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tandem/catalog/catalog.h"
#include "tandem/catalog/table_source.h"
#include "tandem/column/column_builder.h"
#include "tandem/plan/optimizer.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"

namespace {

std::shared_ptr<const tandem::Table> SmallTable() {
  using namespace tandem;
  Table t;
  t.schema =
      Schema{{{"a", DataType::Int32()}, {"b", DataType::String()}, {"c", DataType::Float64()}}};
  auto batch = std::make_shared<Batch>();
  batch->schema = t.schema;
  batch->num_rows = 0;
  for (const Field& f : t.schema.fields) batch->columns.push_back(ColumnBuilder(f.type).Finish());
  t.batches.push_back(batch);
  return std::make_shared<const Table>(std::move(t));
}

tandem::Catalog& FuzzCatalog() {
  static tandem::Catalog* catalog = [] {
    auto* c = new tandem::Catalog();
    (void)c->AddTable("t", tandem::TableSource::Memory("t", SmallTable()), true);
    (void)c->AddTable("u", tandem::TableSource::Memory("u", SmallTable()), true);
    (void)c->AddView("v", "SELECT a, b FROM t WHERE a > 1", true);
    return c;
  }();
  return *catalog;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string sql(reinterpret_cast<const char*>(data), size);
  auto statements = tandem::sql::ParseSql(sql);
  if (!statements.ok()) return 0;
  for (const auto& stmt : *statements) {
    if (!stmt.tree.is_object() || !stmt.tree.contains("SelectStmt")) continue;
    auto plan = tandem::sql::BindSelect(stmt.tree, sql, FuzzCatalog());
    if (plan.ok()) (void)tandem::Optimize(*plan);
  }
  return 0;
}
