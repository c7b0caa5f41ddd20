// NarrowColumnsThatFit (see cached_table_columns.h).
#include "tandem/exec/cached_table_columns.h"

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "tandem/exec/exec_context.h"
#include "tandem/io/file_listing.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

ColumnsToCache NarrowColumnsThatFit(const std::vector<ProjectedColumn>& projected, int64_t room) {
  const int n = static_cast<int>(projected.size());
  std::vector<int> widest_first(static_cast<size_t>(n));
  std::iota(widest_first.begin(), widest_first.end(), 0);
  std::sort(widest_first.begin(), widest_first.end(), [&](int a, int b) {
    const ProjectedColumn& x = projected[a];
    const ProjectedColumn& y = projected[b];
    if (x.variable_width != y.variable_width) return x.variable_width;
    return x.bytes > y.bytes || (x.bytes == y.bytes && a > b);
  });
  int64_t total = 0;
  for (const ProjectedColumn& c : projected) total += c.bytes;
  ColumnsToCache out;
  size_t dropped = 0;
  while (dropped < widest_first.size() && total > room) {
    total -= projected[widest_first[dropped]].bytes;
    ++dropped;
  }
  out.kept.assign(widest_first.begin() + dropped, widest_first.end());
  // Dropping a wide column may leave room for a narrower one dropped before it (a short string
  // dropped before the number that made the rest fit): take those back, the last dropped first.
  for (size_t i = dropped; i-- > 0;) {
    const int c = widest_first[i];
    if (out.kept.empty() || total + projected[c].bytes > room) {
      out.left_out.push_back(c);
      continue;
    }
    total += projected[c].bytes;
    out.kept.push_back(c);
  }
  std::sort(out.kept.begin(), out.kept.end());
  std::sort(out.left_out.begin(), out.left_out.end());
  return out;
}

std::string FilesFingerprint(const TableSource& source) {
  Result<io::FileListing> listing = io::ListFiles(source.path);
  if (!listing.ok()) return "";
  std::string out;
  for (const io::ListedFile& f : listing->files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(f.path, ec);
    if (ec) return "";
    const auto time = std::filesystem::last_write_time(f.path, ec);
    if (ec) return "";
    out += f.path + '\n' + std::to_string(size) + ' ' +
           std::to_string(time.time_since_epoch().count()) + '\n';
  }
  return out;
}

std::string CachedInPartNote(const TableCache* cache, const PlanNode& scan) {
  if (!cache || !scan.source) return "";
  const CachedTable* cached = cache->Peek(scan.source.get());
  if (!cached || cached->Holds(scan.scan_columns)) return "";
  std::string lacks;
  for (int c : scan.scan_columns) {
    if (cached->Holds({c})) continue;
    lacks += (lacks.empty() ? "" : ", ") + scan.source->schema.field(c).name;
  }
  return ", not from the cached table: it lacks " + lacks;
}

}  // namespace tandem
