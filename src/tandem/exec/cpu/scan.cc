// Scan (kScan): reads the listed columns of a Parquet dataset (with row-group pruning by the
// node's scan predicates), a CSV file, or an in-memory table (zero-copy column selection), and
// records what the read touched and skipped in the operator's metrics name for EXPLAIN ANALYZE.
// Batches come out at most tandem.exec.cpu.batchRows rows long (large row groups are sliced).
#include <string>
#include <vector>

#include "tandem/common/text.h"
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cached_table_columns.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/scan_cached_part.h"
#include "tandem/exec/cpu/scan_conditions.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/parquet/dataset.h"

namespace tandem::cpu {
namespace {

// Column names to read; with no columns asked for (count(*)), one column so that row counts are
// known: the first fixed-width one if any.
std::vector<std::string> ColumnsToRead(const PlanNode& node, const Schema& source_schema) {
  std::vector<std::string> names;
  for (int c : node.scan_columns) names.push_back(source_schema.field(c).name);
  if (names.empty() && source_schema.num_fields() > 0) {
    int pick = 0;
    for (int i = 0; i < source_schema.num_fields(); ++i) {
      if (!source_schema.field(i).type.is_string_like()) {
        pick = i;
        break;
      }
    }
    names.push_back(source_schema.field(pick).name);
  }
  return names;
}

// Rearranges a read table's batches into the node's output columns: matched by name for files,
// by position for a table in memory (whose schema is the source's, duplicate names included).
Result<Table> ToNodeSchema(const PlanNode& node, const Table& read) {
  const bool by_position = node.source->kind == TableSource::Kind::kMemory &&
                           read.schema.num_fields() == node.source->schema.num_fields();
  std::vector<int> index;
  for (int c : node.scan_columns) {
    const std::string& name = node.source->schema.field(c).name;
    const int i = by_position ? c : read.schema.FieldIndex(name);
    if (i < 0) {
      return Status::Invalid("scan of " + node.source->name + ": column " + name +
                             " missing from the data read");
    }
    if (read.schema.field(i).type != node.schema.field(static_cast<int>(index.size())).type) {
      return Status::Invalid("scan of " + node.source->name + ": column " + name + " is " +
                             read.schema.field(i).type.ToString() + ", expected " +
                             node.schema.field(static_cast<int>(index.size())).type.ToString() +
                             " (did the files change?)");
    }
    index.push_back(i);
  }
  Table out;
  out.schema = node.schema;
  for (const auto& b : read.batches) {
    if (b->num_rows == 0) continue;
    auto batch = std::make_shared<Batch>();
    batch->schema = node.schema;
    batch->num_rows = b->num_rows;
    for (int i : index) batch->columns.push_back(b->columns[i]);
    out.batches.push_back(std::move(batch));
  }
  return out;
}

// The read table in the node's output shape, cut into cache-sized batches (views, no copy): row
// groups of a million rows would make every operator above work far beyond the caches.
Result<Table> ShapeToNode(const PlanNode& node, const Table& read, int64_t batch_rows) {
  Table out;
  if (node.scan_columns.empty()) {
    out.schema = node.schema;
    for (const auto& b : read.batches) {
      if (b->num_rows == 0) continue;
      auto batch = std::make_shared<Batch>();
      batch->schema = node.schema;
      batch->num_rows = b->num_rows;
      out.batches.push_back(std::move(batch));
    }
  } else {
    TANDEM_ASSIGN_OR_RAISE(out, ToNodeSchema(node, read));
  }
  return opx::SplitLargeBatches(std::move(out), batch_rows);
}

// Scan; for Parquet sources with `each`, every piece of a row group goes through `each` as soon
// as it is decoded (see ScanStreaming), after the row conditions taken from `filter` (the
// predicate of a Filter right above the scan, or null) dropped what they could.
Result<Table> ScanImpl(const PlanNode& node, const ScanPieceFn* each, const Expr* filter,
                       ExecContext& ctx) {
  if (!node.source) return Status::Internal("scan without a source");
  const TableSource& source = *node.source;
  for (int c : node.scan_columns) {
    if (c < 0 || c >= source.schema.num_fields()) {
      return Status::Internal("scan of " + source.name + " names column " + std::to_string(c));
    }
  }
  OperatorMetrics m;
  m.name = "Scan " + source.name;
  Table read;
  bool streamed = false;
  switch (source.kind) {
    case TableSource::Kind::kParquet: {
      if (const CachedTable* part = each ? CachedPartFor(node, ctx) : nullptr) {
        TANDEM_ASSIGN_OR_RAISE(read, ScanCachedPart(node, *part, *each, filter, ctx, &m));
        streamed = true;
        break;
      }
      parquet::ReadOptions options;
      options.columns = ColumnsToRead(node, source.schema);
      options.predicates = node.scan_predicates;
      options.num_threads = ctx.num_threads;
      options.split_start = source.split_start;
      options.split_length = source.split_length;
      if (each) {
        streamed = true;
        options.piece_rows = ctx.scan_piece_rows;
        options.piece_hold_pages = ctx.scan_pieces_hold_pages;
        if (filter != nullptr && ctx.dictionary_conditions) {
          options.row_conditions = RowConditionsFor(*filter, node, ctx.eval);
        }
        options.per_row_group = [&](BatchPtr row_group) -> Result<std::vector<BatchPtr>> {
          Table one;
          one.schema = row_group->schema;
          one.batches.push_back(std::move(row_group));
          TANDEM_ASSIGN_OR_RAISE(Table shaped, ShapeToNode(node, one, ctx.cpu_batch_rows));
          // A row group of a million rows is eight pieces.
          return EachPieceInParallel(std::move(shaped.batches), *each, ctx);
        };
      }
      parquet::ReadStats stats;
      TANDEM_ASSIGN_OR_RAISE(read, parquet::ReadParquet(source.path, options, &stats));
      m.name += " (parquet: " + std::to_string(stats.files - stats.files_skipped) + "/" +
                std::to_string(stats.files) + " files, " +
                std::to_string(stats.row_groups - stats.row_groups_skipped) + "/" +
                std::to_string(stats.row_groups) + " row groups, " +
                FormatByteSize(stats.bytes_read) + " read" +
                (options.per_row_group && options.piece_rows > 0
                     ? ", row groups in pieces of " + std::to_string(options.piece_rows) + " rows"
                     : std::string()) +
                ConditionsNote(options.row_conditions.size(), stats) +
                CachedInPartNote(ctx.table_cache, node) + ")";
      m.rows = stats.rows;
      break;
    }
    case TableSource::Kind::kCsv: {
      csv::CsvReadOptions options = source.csv_options;
      options.columns = ColumnsToRead(node, source.schema);
      options.num_threads = ctx.num_threads;
      TANDEM_ASSIGN_OR_RAISE(read, csv::ReadCsv(source.path, options));
      m.name += " (csv)";
      break;
    }
    case TableSource::Kind::kMemory: {
      if (!source.memory) return Status::Internal("memory table " + source.name + " has no data");
      read = *source.memory;
      m.name += " (memory)";
      break;
    }
  }
  Table out;
  if (streamed) {
    out = std::move(read);
  } else {
    TANDEM_ASSIGN_OR_RAISE(out, ShapeToNode(node, read, ctx.cpu_batch_rows));
    m.rows = out.num_rows();
    if (each) {  // not Parquet: the whole table read, then each piece in turn
      read = Table();
      Table passed;
      passed.schema = node.schema;
      for (auto& piece : out.batches) {
        TANDEM_ASSIGN_OR_RAISE(std::vector<BatchPtr> kept, (*each)(piece));
        for (auto& b : kept) passed.batches.push_back(std::move(b));
      }
      out = std::move(passed);
    }
  }
  ctx.Record(&node, m);
  return out;
}

}  // namespace

Result<std::vector<BatchPtr>> EachPieceInParallel(std::vector<BatchPtr> pieces,
                                                  const ScanPieceFn& each, ExecContext& ctx) {
  std::vector<std::vector<BatchPtr>> outs(pieces.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(pieces.size()),
      [&](int64_t i) -> Status {
        if (ctx.Cancelled()) return ExecContext::CancelledError();
        TANDEM_ASSIGN_OR_RAISE(outs[i], each(std::move(pieces[i])));
        return Status::OK();
      },
      opx::OperatorThreads(ctx)));
  std::vector<BatchPtr> kept;
  for (auto& out : outs) {
    for (auto& b : out) kept.push_back(std::move(b));
  }
  return kept;
}

Result<Table> Scan(const PlanNode& node, ExecContext& ctx) {
  return ScanImpl(node, nullptr, nullptr, ctx);
}

Result<Table> ScanStreaming(const PlanNode& scan_node, ExecContext& ctx, const ScanPieceFn& each,
                            const Expr* filter) {
  return ScanImpl(scan_node, &each, filter, ctx);
}

Result<Table> ScanFiltered(const PlanNode& scan_node, const PlanNode& filter_node,
                           ExecContext& ctx) {
  if (!filter_node.predicate) return Status::Internal("filter without a predicate");
  ScanPieceFn filter = [&](BatchPtr piece) -> Result<std::vector<BatchPtr>> {
    EvalContext eval = ctx.eval;
    TANDEM_ASSIGN_OR_RAISE(
        BatchPtr kept, opx::FilterBatch(*filter_node.predicate, *piece, filter_node.schema, eval));
    if (!kept) return std::vector<BatchPtr>{};
    return std::vector<BatchPtr>{std::move(kept)};
  };
  TANDEM_ASSIGN_OR_RAISE(Table out, ScanImpl(scan_node, &filter, filter_node.predicate.get(), ctx));
  out.schema = filter_node.schema;
  return out;
}

}  // namespace tandem::cpu
