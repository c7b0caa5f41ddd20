// Catalog of tables and views, case-insensitive names, and catalog files.
#include "tandem/catalog/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tandem/common/text.h"

namespace tandem {

Status Catalog::AddTable(const std::string& name, std::shared_ptr<TableSource> source,
                         bool replace) {
  const std::string key = AsciiLower(name);
  if (!replace && (tables_.count(key) || views_.count(key))) {
    return Status::Invalid("table or view " + name + " already exists");
  }
  views_.erase(key);
  tables_[key] = std::move(source);
  return Status::OK();
}

Status Catalog::AddView(const std::string& name, const std::string& sql, bool replace) {
  const std::string key = AsciiLower(name);
  if (!replace && (tables_.count(key) || views_.count(key))) {
    return Status::Invalid("table or view " + name + " already exists");
  }
  tables_.erase(key);
  views_[key] = sql;
  return Status::OK();
}

Status Catalog::Drop(const std::string& name, bool if_exists) {
  const std::string key = AsciiLower(name);
  if (tables_.erase(key) + views_.erase(key) == 0 && !if_exists) {
    return Status::Invalid("no table or view named " + name);
  }
  return Status::OK();
}

std::shared_ptr<TableSource> Catalog::FindTable(const std::string& name) const {
  auto it = tables_.find(AsciiLower(name));
  return it == tables_.end() ? nullptr : it->second;
}

const std::string* Catalog::FindView(const std::string& name) const {
  auto it = views_.find(AsciiLower(name));
  return it == views_.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : tables_) names.push_back(k);
  for (const auto& [k, v] : views_) names.push_back(k);
  return names;
}

Status Catalog::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot open catalog file " + path);
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = TrimSpace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      return Status::Invalid("catalog file " + path + ", line " + std::to_string(line_no) +
                             ": expected name = path");
    }
    const std::string name = TrimSpace(line.substr(0, eq));
    std::filesystem::path p = TrimSpace(line.substr(eq + 1));
    if (p.is_relative()) p = base / p;
    const std::string where = "catalog file " + path + ", line " + std::to_string(line_no);
    Result<std::shared_ptr<TableSource>> src = p.extension() == ".csv"
                                                   ? TableSource::Csv(name, p.string())
                                                   : TableSource::Parquet(name, p.string());
    if (!src.ok()) return src.status().WithContext(where);
    TANDEM_RETURN_NOT_OK(AddTable(name, *src, true).WithContext(where));
  }
  return Status::OK();
}

}  // namespace tandem
