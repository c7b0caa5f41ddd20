// Which columns of a Parquet table to cache when host memory cannot hold the whole of it: the
// fixed-width ones before the strings, leaving the widest strings (a comment column: TPC-H
// SF100's l_comment alone decodes to 17 GiB) in the files first, so that the scans of keys,
// numbers and dates, the columns most queries compute on, still read memory. What stays cached
// leaves a share of the host budget free for the queries that run beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tandem {

struct PlanNode;
struct TableSource;
class TableCache;

// The share of tandem.memory.host.limit that a table cached in part leaves free for queries.
inline constexpr double kHostShareLeftForQueries = 0.25;

struct ColumnsToCache {
  std::vector<int> kept;      // ascending; empty when not even the narrowest column fits
  std::vector<int> left_out;  // ascending
};

struct ProjectedColumn {
  int64_t bytes = 0;            // what the column is expected to take decoded
  bool variable_width = false;  // strings and binary
};

// `room` is what the columns kept may take together. Leaves out variable-width columns, widest
// first, then fixed-width ones, widest first (the later column first among equals), until the
// rest fits; then takes back, the last left out first, those that still fit beside the rest.
ColumnsToCache NarrowColumnsThatFit(const std::vector<ProjectedColumn>& projected, int64_t room);

// The source's files as they are now (paths, sizes, modification times), or "" when they cannot
// be listed: a table cached in part lines its columns up with its files' rows only while this
// stays the same.
std::string FilesFingerprint(const TableSource& source);

// For EXPLAIN ANALYZE, where a scan reads the files of a table cached in part because it reads
// columns left out: ", not from the cached table: it lacks l_comment"; else "".
std::string CachedInPartNote(const TableCache* cache, const PlanNode& scan);

}  // namespace tandem
