// Normalized sort keys: each row's leading sort keys are encoded into up to four 64-bit words
// whose unsigned comparison equals the SQL ordering (NULL placement per key, ASC/DESC, integers
// with the sign bit flipped, floats mapped so NaN sorts after every number and -0.0 == 0.0,
// decimals, dates, timestamps, and a prefix of the first string key). Keys that do not fit (and
// whatever follows a string prefix) are compared by CompareTail, a typed comparator used only on
// ties. Used by Sort, TopN and Window.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/expr/aggregate.h"

namespace tandem::cpu {

struct SortOrder {
  bool ascending = true;
  bool nulls_first = false;
};

// The expressions and orders of a list of sort keys, as the encoder and comparisons take them.
void SplitSortKeys(const std::vector<SortKey>& keys, std::vector<ExprPtr>* exprs,
                   std::vector<SortOrder>* orders);

// Compares the sort keys [from, to) of row ra of key columns `a` with row rb of key columns `b`
// in the SQL order (< 0, 0 or > 0): the typed comparison behind CompareTail, and the merge of
// sorted runs (external_sort.h).
int CompareSortRows(const std::vector<ColumnPtr>& a, int64_t ra, const std::vector<ColumnPtr>& b,
                    int64_t rb, const std::vector<SortOrder>& orders, int from, int to);

class SortKeyEncoder {
 public:
  static constexpr int kMaxWords = 4;

  // columns[batch][key]: the key columns of every input batch (all of one type per key).
  SortKeyEncoder(std::vector<std::vector<ColumnPtr>> columns, std::vector<SortOrder> orders);

  int words() const { return words_; }
  int num_keys() const { return static_cast<int>(orders_.size()); }
  // Whether rows with equal words may still differ (then CompareTail decides).
  bool needs_tail() const { return tail_from_ < num_keys(); }

  // Writes words() words per row for rows [begin, end) of one batch.
  void Encode(int batch, int64_t begin, int64_t end, uint64_t* out) const;

  // Compares keys [tail_from, num_keys) of two rows given as packed (batch << 32 | row) refs.
  int CompareTail(int64_t a, int64_t b) const { return CompareKeys(a, b, tail_from_, num_keys()); }
  // Compares keys [from, to) of two rows: < 0, 0 or > 0 in the SQL order.
  int CompareKeys(int64_t a, int64_t b, int from, int to) const;
  // For rows in `refs` order: (*changed)[i] set to 1 where a key in [from, to) of refs[i] differs
  // from refs[i - 1]'s (NULLs equal each other, as do -0.0 and 0.0, and NaNs); left as it is
  // elsewhere. One typed pass per key: the window's partition and peer bounds.
  void MarkKeyChanges(const std::vector<int64_t>& refs, int from, int to,
                      std::vector<uint8_t>* changed) const;
  // The bytes keys [0, keys) take at the start of each row's words when all of them are encoded
  // whole (equal leading bytes then mean equal keys, as MarkKeyChanges compares them); -1 when
  // one is not (a string prefix, a key past the words).
  int ExactPrefixBytes(int keys) const;

 private:
  struct KeyPlan {
    bool null_byte = false;  // some value is NULL: a leading byte orders NULLs
    int value_bytes = 0;     // encoded value bytes (string prefix length for strings)
    int offset = 0;          // byte offset in the row's words
    // Strings all shorter than value_bytes: whole, with their length last (they decide ties).
    bool exact_string = false;
  };

  // The longest non-NULL string of key `key` over every batch, or -1 when one is longer than
  // `at_most` bytes.
  int64_t LongestString(int key, int64_t at_most) const;

  std::vector<std::vector<ColumnPtr>> columns_;
  std::vector<SortOrder> orders_;
  std::vector<DataType> types_;
  std::vector<KeyPlan> plans_;  // for keys [0, encoded_keys_)
  int encoded_keys_ = 0;
  int tail_from_ = 0;
  int words_ = 1;
};

}  // namespace tandem::cpu
