// Catalog: the names a session's queries can use: tables (TableSource) and views (kept as SQL
// text and bound again at each use, so they see the tables as they are then). Names are
// case-insensitive, as in SQL.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tandem/catalog/table_source.h"

namespace tandem {

class Catalog {
 public:
  Status AddTable(const std::string& name, std::shared_ptr<TableSource> source, bool replace);
  Status AddView(const std::string& name, const std::string& sql, bool replace);
  Status Drop(const std::string& name, bool if_exists);

  // nullptr when absent.
  std::shared_ptr<TableSource> FindTable(const std::string& name) const;
  const std::string* FindView(const std::string& name) const;
  // Every table and view name, for "did you mean" hints.
  std::vector<std::string> Names() const;

  // Reads a catalog file: one "name = path" per line (# comments); paths relative to the file.
  Status LoadFile(const std::string& path);

 private:
  std::map<std::string, std::shared_ptr<TableSource>> tables_;
  std::map<std::string, std::string> views_;
};

}  // namespace tandem
