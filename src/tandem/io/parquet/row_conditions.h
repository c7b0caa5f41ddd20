// Row conditions: tests on single columns that a Parquet scan applies to a row group before it
// builds the row group's batch. A column decoded from a dictionary-encoded chunk comes as its
// dictionary and one code per row (DictionaryCodes); a condition is tested once per dictionary
// value, and each row is kept or dropped by its code. Only the rows kept get their values built
// and their other columns gathered, so a filter such as TPC-H Q19's
// `l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON'` reads 60M codes and
// builds the strings of the 7 % of rows that pass instead of 120M strings. The caller still
// applies its whole filter to the rows kept: a condition only drops rows early. When the
// conditions keep most rows, the reader stops using them (read_parquet.cc): gathering most rows
// again costs more than it saves.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/io/parquet/column_chunk_reader.h"

namespace tandem::parquet {

struct RowCondition {
  std::string column;  // a column of the scan (not BOOLEAN)
  // One byte per value of `values` (a column of `column`'s type): 1 where the condition is TRUE.
  // Must not fail for any value of the type (the caller builds it from comparisons and the like).
  std::function<Result<std::vector<uint8_t>>(const ColumnPtr& values)> keep;
  bool keep_null = false;  // whether the condition is TRUE for NULL
};

// The rows (ascending) of one row group of `num_rows` rows that meet every condition, each
// tested on the codes of its column: conditions[i] on codes[i]. *all says every row was kept
// (the list is then empty).
Result<std::vector<int32_t>> RowsMeetingConditions(
    const std::vector<const RowCondition*>& conditions,
    const std::vector<const DictionaryCodes*>& codes, int64_t num_rows, bool* all);

// The values of a codes chunk's rows, at `rows` (every row when null).
ColumnPtr MaterializeCodes(const DictionaryCodes& codes, const std::vector<int32_t>* rows);

}  // namespace tandem::parquet
