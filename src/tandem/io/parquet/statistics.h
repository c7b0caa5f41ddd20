// Column-chunk statistics: decodes Parquet's min/max byte strings into values in the Tandem
// column's storage domain, and decides whether a row group can hold rows matching a conjunction
// of ScanPredicates. Everything errs on the side of "may match": missing, undecodable or unsafe
// statistics never cause a row group to be skipped.
//
// Which statistics are trusted (the parquet-format spec and parquet-mr's rules):
//  - min_value/max_value (fields 5/6) are in the column's type-defined sort order: used.
//  - the deprecated min/max (fields 1/2) were written with signed comparison: used only where the
//    type's order is signed (BOOLEAN, INT32, INT64, FLOAT, DOUBLE without an unsigned logical
//    type), never for byte arrays, unsigned integers, INT96 or float16.
//  - floats: a NaN bound makes the bounds unknown; +0/-0 bounds are widened to cover both zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/scan_predicate.h"
#include "tandem/types/data_type.h"

namespace tandem::parquet {

// A bound in the Tandem storage domain: integers, booleans, dates, timestamps (us) and decimals
// (unscaled) as int128; floats as double; strings and binary as bytes.
using StatValue = std::variant<std::monostate, __int128, double, std::string>;

struct ColumnStatistics {
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  // Both set or both empty. Bounds are inclusive; for strings the max may be a truncated value
  // above every actual value (still a valid bound).
  std::optional<StatValue> min;
  std::optional<StatValue> max;
  bool from_deprecated_fields = false;  // min/max came from the deprecated fields 1/2
};

// Decodes the statistics of a leaf column with schema element `leaf` read as Tandem type `type`.
ColumnStatistics DecodeStatistics(const Statistics& stats, const SchemaElement& leaf,
                                  const DataType& type);

// A bound printed for people: 42, -1.5, 2024-01-31, 2024-01-31 12:00:00.000001, 123.45, "text"
// (escaped, cut at 64 bytes), 0x0a1b... for binary.
std::string FormatStatValue(const StatValue& value, const DataType& type);

// Whether rows with values in [min, max] (min/max empty: unknown), null_count nulls (unknown if
// empty) out of num_values could satisfy `predicate`, whose column has Tandem type `type`.
bool BoundsMayMatch(const ColumnStatistics& stats, int64_t num_values, const DataType& type,
                    const ScanPredicate& predicate);

// Whether row group `row_group` of a file can hold a row satisfying every predicate. `schema` is
// the file's Tandem schema (ParquetFile::schema()); predicates on columns not in the file are
// ignored (treated as "may match").
bool RowGroupMayMatch(const FileMetaData& metadata, int row_group, const Schema& schema,
                      const std::vector<ScanPredicate>& predicates);

// The leaf columns of a Parquet schema in column-chunk order: dotted path and schema element.
struct LeafPath {
  std::string path;  // "a" for a flat column, "a.b.c" inside groups
  int schema_index;  // index into FileMetaData::schema
};
// Leaves of the schema tree; stops quietly at a malformed tree (num_children past the end).
std::vector<LeafPath> LeafPaths(const FileMetaData& metadata);

}  // namespace tandem::parquet
