// A CPU scan of a table cached in part (exec/cached_table_columns.h) that reads columns the cache
// lacks: only those are read from the Parquet files, every row group of them in order, and each
// decoded batch is lined up, by the number of its first row, with the cached batches that hold
// the same rows, whose columns come from memory (views, no copy). TPC-H SF100's Q01 on a 125 GiB
// host then decodes l_linestatus and l_tax from the files instead of all seven of its columns. The
// cached columns and the files' rows agree only while the files are as they were cached: the
// scan checks their sizes and modification times first (else it reads everything from the
// files) and that the row counts agree (else it fails rather than answer wrongly).
#pragma once

#include "tandem/exec/cpu/operators.h"

namespace tandem {
struct CachedTable;
}

namespace tandem::cpu {

// The most of a row group's rows that row conditions may keep for the scan to gather them.
inline constexpr double kCachedPartMaxKeptShare = 0.125;

// The table cached in part that a streamed scan of `node` should combine with its files, or
// nullptr (no such table, it holds all or none of the scan's columns, or its files changed).
const CachedTable* CachedPartFor(const PlanNode& node, const ExecContext& ctx);

// Reads the columns `cached` lacks from the files and hands every piece, with the cached columns
// beside them, to `each`, in row order; `m` gets the scan's name and rows. `filter` (the
// predicate of a Filter right above, or null) gives row conditions on the columns read from the
// files: in a row group where they keep at most kCachedPartMaxKeptShare of the rows, the rows
// they drop are never built and only the rows kept of the cached columns are gathered (TPC-H
// Q19 with lineitem's strings left in the files: l_shipmode and l_shipinstruct read as codes,
// 7 % of the rows gathered); elsewhere the row group goes on whole.
Result<Table> ScanCachedPart(const PlanNode& node, const CachedTable& cached,
                             const ScanPieceFn& each, const Expr* filter, ExecContext& ctx,
                             OperatorMetrics* m);

}  // namespace tandem::cpu
