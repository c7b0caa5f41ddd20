// Row keys for hash joins and set operations, encoded column-wise into a form that can be hashed
// and compared with plain word/byte comparisons: fixed-width keys become rows of `stride` bytes
// (a multiple of 8, zero padded; stride 8 is the fast single-word case), keys with strings become
// variable-length byte strings (strings length-prefixed). Floats are canonicalized (-0.0 -> 0.0,
// one NaN) so equal values encode equally. Two NULL modes: for joins a row with any NULL key is
// flagged and never matches; for set operations (NULLs compare equal) each column gets a NULL
// flag byte. Kept separate from the hash aggregate's key code on purpose (different owners).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/memory/host_charge.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

class KeyLayout {
 public:
  // types: the key columns' types (both sides of a join must agree); nulls_equal: set-operation
  // semantics (NULL equals NULL) instead of join semantics (NULL matches nothing).
  KeyLayout(std::vector<DataType> types, bool nulls_equal);

  bool fixed() const { return fixed_; }
  int stride() const { return stride_; }  // bytes per row when fixed
  bool nulls_equal() const { return nulls_equal_; }
  const std::vector<DataType>& types() const { return types_; }

 private:
  friend class EncodedKeys;
  std::vector<DataType> types_;
  std::vector<int> widths_;  // encoded value bytes per column (0 for strings)
  bool nulls_equal_;
  bool fixed_ = true;
  int stride_ = 0;
};

class EncodedKeys {
 public:
  // Encodes rows [begin, end) of the key columns.
  EncodedKeys(const KeyLayout& layout, const std::vector<ColumnPtr>& columns, int64_t begin,
              int64_t end);

  int64_t num_rows() const { return num_rows_; }
  uint64_t hash(int64_t i) const { return hashes_[i]; }
  // Join mode: whether row i has a NULL key (always false with nulls_equal).
  bool is_null(int64_t i) const { return !null_rows_.empty() && null_rows_[i]; }
  bool any_null() const { return any_null_; }

  const uint8_t* row_data(int64_t i) const {
    return fixed_ ? reinterpret_cast<const uint8_t*>(words_.data()) + i * stride_
                  : bytes_.data() + offsets_[i];
  }
  int64_t row_size(int64_t i) const { return fixed_ ? stride_ : offsets_[i + 1] - offsets_[i]; }
  // The single key word (fixed layouts with stride 8).
  uint64_t word(int64_t i) const { return words_[i]; }

  // Bytes held on the heap (for the host budget).
  int64_t HeapBytes() const {
    return tandem::HeapBytes(words_) + tandem::HeapBytes(bytes_) + tandem::HeapBytes(offsets_) +
           tandem::HeapBytes(hashes_) + tandem::HeapBytes(null_rows_);
  }

  bool RowEquals(int64_t i, const uint8_t* other, int64_t other_size) const {
    return row_size(i) == other_size &&
           std::memcmp(row_data(i), other, static_cast<size_t>(other_size)) == 0;
  }

 private:
  int64_t num_rows_;
  bool fixed_;
  int stride_;
  bool any_null_ = false;
  std::vector<uint64_t> words_;   // fixed layout
  std::vector<uint8_t> bytes_;    // variable layout
  std::vector<int64_t> offsets_;  // variable layout, num_rows + 1
  std::vector<uint64_t> hashes_;
  std::vector<uint8_t> null_rows_;  // join mode, only when some key is NULL
};

// Hash mixers (also used to hash single-word keys).
inline uint64_t MixHash64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
uint64_t HashKeyBytes(const uint8_t* data, int64_t size);

// The equi-join key types of a join node: left and right keys pair up with equal types (the
// binder inserts casts); an Internal error names the pair otherwise. `what` names the join in
// messages ("hash join", "mark join").
Result<std::vector<DataType>> JoinKeyTypes(const PlanNode& node, const char* what);
// Checks evaluated key columns (per batch) against those types.
Status CheckJoinKeyColumns(const std::vector<std::vector<ColumnPtr>>& cols,
                           const std::vector<DataType>& types, const char* what);

}  // namespace tandem::cpu
