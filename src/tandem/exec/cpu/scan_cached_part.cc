// The scan of a table cached in part (see scan_cached_part.h).
#include "tandem/exec/cpu/scan_cached_part.h"

#include <algorithm>

#include "tandem/column/slice.h"
#include "tandem/column/take.h"
#include "tandem/common/text.h"
#include "tandem/exec/cached_table_columns.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/scan_conditions.h"
#include "tandem/io/parquet/dataset.h"

namespace tandem::cpu {

const CachedTable* CachedPartFor(const PlanNode& node, const ExecContext& ctx) {
  if (!ctx.table_cache || !node.source || node.source->kind != TableSource::Kind::kParquet) {
    return nullptr;
  }
  const CachedTable* cached = ctx.table_cache->Peek(node.source.get());
  if (!cached || !cached->host || cached->columns.empty() || cached->Holds(node.scan_columns)) {
    return nullptr;
  }
  bool any_held = false;
  for (int c : node.scan_columns) any_held |= cached->Holds({c});
  if (!any_held) return nullptr;
  if (cached->files_fingerprint.empty() ||
      FilesFingerprint(*node.source) != cached->files_fingerprint) {
    return nullptr;
  }
  return ctx.table_cache->Find(node.source.get());  // marks it used
}

Result<Table> ScanCachedPart(const PlanNode& node, const CachedTable& cached,
                             const ScanPieceFn& each, const Expr* filter, ExecContext& ctx,
                             OperatorMetrics* m) {
  const TableSource& source = *node.source;
  // Held for the whole scan, whatever happens to the cache entry meanwhile.
  const std::shared_ptr<const Table> held = cached.host;
  const Table& host = *held;
  // Where each of the scan's columns comes from: a cached slot, or the files.
  std::vector<int> cached_at, cached_slot, file_at;
  parquet::ReadOptions options;
  std::string from_files;
  for (size_t i = 0; i < node.scan_columns.size(); ++i) {
    const int c = node.scan_columns[i];
    if (cached.Holds({c})) {
      cached_at.push_back(static_cast<int>(i));
      cached_slot.push_back(cached.SlotsOf({c})[0]);
    } else {
      file_at.push_back(static_cast<int>(i));
      options.columns.push_back(source.schema.field(c).name);
      from_files += (from_files.empty() ? "" : ", ") + source.schema.field(c).name;
    }
  }
  // The number of each cached batch's first row; the last entry is the table's row count.
  std::vector<int64_t> starts(host.batches.size() + 1, 0);
  for (size_t b = 0; b < host.batches.size(); ++b) {
    starts[b + 1] = starts[b] + host.batches[b]->num_rows;
  }
  options.num_threads = ctx.num_threads;
  options.split_start = source.split_start;  // as the cached read: same rows, same order
  options.split_length = source.split_length;
  if (filter != nullptr && ctx.dictionary_conditions) {
    options.row_conditions = RowConditionsFor(*filter, node, ctx.eval);
    // Rows kept are gathered from the cached columns, which pass on whole as views: that pays
    // only where few are kept (TPC-H SF1 under cachegrind: Q19, 7 % kept, 60 % fewer
    // instructions; Q12, 29 % kept, 24 % more).
    options.row_conditions_max_kept_share = kCachedPartMaxKeptShare;
  }
  options.per_numbered_batch =
      [&](BatchPtr read, int64_t first,
          const std::vector<int32_t>* kept) -> Result<std::vector<BatchPtr>> {
    const int64_t n = read->num_rows;
    // The rows [first, first + covered) of the files, of which the batch holds all, or those
    // at first + kept[i].
    const int64_t covered = kept ? (kept->empty() ? 0 : int64_t{kept->back()} + 1) : n;
    if (first < 0 || first + covered > starts.back() ||
        (kept && static_cast<int64_t>(kept->size()) != n)) {
      return Status::Invalid("scan of " + source.name + ": its files hold more rows than its " +
                             "cached columns (did the files change?)");
    }
    std::vector<ColumnPtr> read_columns;
    for (size_t k = 0; k < file_at.size(); ++k) {
      const int i = read->schema.FieldIndex(options.columns[k]);
      if (i < 0 || read->schema.field(i).type != node.schema.field(file_at[k]).type) {
        return Status::Invalid("scan of " + source.name + ": column " + options.columns[k] +
                               " changed type or went missing (did the files change?)");
      }
      read_columns.push_back(read->columns[i]);
    }
    // The rows covered, cut where cached batches end: cached columns as views of consecutive
    // rows, or gathered at the rows kept; the files' columns as views of the batch's rows.
    Table lined_up;
    lined_up.schema = node.schema;
    size_t b = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), first) -
                                   starts.begin() - 1);
    std::vector<int32_t> local;  // rows kept within cached batch b
    int64_t i = 0;               // the batch's first row not yet lined up
    for (int64_t at = first; at < first + covered; ++b) {
      const int64_t end = std::min(first + covered, starts[b + 1]);
      if (end == at) continue;  // an empty cached batch
      int64_t count = end - at;
      if (kept) {  // the rows kept before `end`, numbered within cached batch b
        const auto stop = std::lower_bound(kept->begin() + i, kept->end(), end - first);
        count = (stop - kept->begin()) - i;
        local.resize(static_cast<size_t>(count));
        const int64_t shift = first - starts[b];
        for (int64_t k = 0; k < count; ++k) {
          local[k] = static_cast<int32_t>((*kept)[i + k] + shift);
        }
      }
      if (count > 0) {
        auto batch = std::make_shared<Batch>();
        batch->schema = node.schema;
        batch->num_rows = count;
        batch->columns.resize(node.scan_columns.size());
        for (size_t k = 0; k < cached_at.size(); ++k) {
          const ColumnPtr& column = host.batches[b]->columns[cached_slot[k]];
          batch->columns[cached_at[k]] = kept ? Take(*column, local.data(), count)
                                              : SliceColumnView(column, at - starts[b], count);
        }
        const int64_t from = kept ? i : at - first;
        for (size_t k = 0; k < file_at.size(); ++k) {
          batch->columns[file_at[k]] = SliceColumnView(read_columns[k], from, count);
        }
        lined_up.batches.push_back(std::move(batch));
      }
      if (kept) i += count;
      at = end;
    }
    read.reset();
    lined_up = opx::SplitLargeBatches(std::move(lined_up), ctx.cpu_batch_rows);
    return EachPieceInParallel(std::move(lined_up.batches), each, ctx);
  };
  parquet::ReadStats stats;
  TANDEM_ASSIGN_OR_RAISE(Table out, parquet::ReadParquet(source.path, options, &stats));
  if (stats.rows != cached.rows) {
    return Status::Invalid("scan of " + source.name + ": its files hold " +
                           std::to_string(stats.rows) + " rows, its cached columns " +
                           std::to_string(cached.rows) + " (did the files change?)");
  }
  m->name = "Scan " + source.name + " (cached in part in host memory; " + from_files +
            " from its files: parquet: " + std::to_string(stats.files) + " files, " +
            std::to_string(stats.row_groups) + " row groups, " + FormatByteSize(stats.bytes_read) +
            " read" + ConditionsNote(options.row_conditions.size(), stats) + ")";
  m->rows = stats.rows;
  out.schema = node.schema;
  return out;
}

}  // namespace tandem::cpu
