// Row conditions tested on dictionaries (row_conditions.h).
#include "tandem/io/parquet/row_conditions.h"

#include "tandem/column/take.h"

namespace tandem::parquet {

Result<std::vector<int32_t>> RowsMeetingConditions(
    const std::vector<const RowCondition*>& conditions,
    const std::vector<const DictionaryCodes*>& codes, int64_t num_rows, bool* all) {
  // One byte per row, cleared by each condition in turn.
  std::vector<uint8_t> kept(static_cast<size_t>(num_rows), 1);
  for (size_t i = 0; i < conditions.size(); ++i) {
    const RowCondition& condition = *conditions[i];
    const DictionaryCodes& c = *codes[i];
    if (c.num_rows != num_rows) {
      return Status::Internal("dictionary codes for " + std::to_string(c.num_rows) +
                              " rows in a row group of " + std::to_string(num_rows));
    }
    TANDEM_ASSIGN_OR_RAISE(std::vector<uint8_t> table, condition.keep(c.dictionary));
    if (static_cast<int64_t>(table.size()) != c.dictionary->length()) {
      return Status::Internal("a row condition on " + condition.column + " gave " +
                              std::to_string(table.size()) + " answers for " +
                              std::to_string(c.dictionary->length()) + " dictionary values");
    }
    const uint32_t* code = c.codes->data_as<uint32_t>();
    const uint8_t* valid = c.validity ? c.validity->data() : nullptr;
    const uint8_t null_kept = condition.keep_null ? 1 : 0;
    uint8_t* k = kept.data();
    if (valid == nullptr) {
      for (int64_t r = 0; r < num_rows; ++r) k[r] &= table[code[r]];
    } else {
      for (int64_t r = 0; r < num_rows; ++r) {
        k[r] &= bit_util::GetBit(valid, r) ? table[code[r]] : null_kept;
      }
    }
  }
  std::vector<int32_t> rows;
  int64_t count = 0;
  for (int64_t r = 0; r < num_rows; ++r) count += kept[r];
  *all = count == num_rows;
  if (*all) return rows;
  rows.reserve(static_cast<size_t>(count));
  for (int64_t r = 0; r < num_rows; ++r) {
    if (kept[r]) rows.push_back(static_cast<int32_t>(r));
  }
  return rows;
}

ColumnPtr MaterializeCodes(const DictionaryCodes& codes, const std::vector<int32_t>* rows) {
  const uint32_t* code = codes.codes->data_as<uint32_t>();
  const uint8_t* valid = codes.validity ? codes.validity->data() : nullptr;
  const int64_t n = rows ? static_cast<int64_t>(rows->size()) : codes.num_rows;
  std::vector<int32_t> index(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows ? (*rows)[static_cast<size_t>(i)] : i;
    index[static_cast<size_t>(i)] =
        valid && !bit_util::GetBit(valid, r) ? -1 : static_cast<int32_t>(code[r]);
  }
  return Take(*codes.dictionary, index.data(), n);
}

}  // namespace tandem::parquet
