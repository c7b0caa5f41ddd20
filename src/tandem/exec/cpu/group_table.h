// GroupTable: the hash table behind hash aggregation and DISTINCT. It maps rows of key columns
// (any types, NULLs grouping together, floats with NaN = NaN and -0.0 = 0.0) to dense group ids
// 0..n-1 and keeps each group's key values column-wise. Hashing, probing and key comparison run
// column by column over chunks of rows (typed loops, no per-row virtual calls); a mismatching
// candidate (rare: equal 32-bit tags) is retried in a later round.
//
// KeyView is the read-only view a lookup takes: input columns of a batch (KeyView::FromColumns)
// or the stored keys of another GroupTable (when per-thread tables are merged).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tandem/column/column.h"
#include "tandem/memory/grow_array.h"
#include "tandem/memory/host_charge.h"

namespace tandem::cpu::agg {

// One key column as raw arrays: fixed-width values (bools as one byte each), or string offsets
// and bytes; nulls as one byte per row (nullptr = no nulls).
struct KeyColumnView {
  DataType type;
  int width = 0;  // bytes per fixed-width value; 0 for strings
  const uint8_t* values = nullptr;
  const uint8_t* nulls = nullptr;
  const int32_t* offsets32 = nullptr;
  const int64_t* offsets64 = nullptr;
  const char* chars = nullptr;
  int64_t chars_size = 0;  // bytes readable at chars

  std::string_view StringAt(int64_t i) const {
    const int64_t b = offsets64 ? offsets64[i] : offsets32[i];
    const int64_t e = offsets64 ? offsets64[i + 1] : offsets32[i + 1];
    return std::string_view(chars + b, static_cast<size_t>(e - b));
  }
};

struct KeyView {
  std::vector<KeyColumnView> columns;
  // Byte arrays made for the view (nulls expanded from bitmaps, booleans unpacked).
  std::vector<std::vector<uint8_t>> scratch;

  static KeyView FromColumns(const std::vector<const Column*>& columns);
};

// Hashes rows 0..n-1 of the view column-wise into hashes[0..n) (seeded; 0 columns -> seed).
void HashKeys(const KeyView& keys, int64_t n, uint64_t* hashes);

class GroupTable {
 public:
  explicit GroupTable(std::vector<DataType> key_types);

  int64_t num_groups() const { return num_groups_; }
  const std::vector<DataType>& key_types() const { return types_; }
  // The hash and partition hash each group was inserted with. A direct-indexed table does not
  // keep them unless asked (16 bytes a group: a tenth of TPC-H Q18's memory at SF10): call
  // EnsureStoredHashes first (not thread-safe; the arrays are empty without it).
  void EnsureStoredHashes();
  const GrowArray<uint64_t>& group_hashes() const { return hashes_; }
  const GrowArray<uint64_t>& partition_hashes() const { return part_hashes_; }

  // For rows rows[0..n) of `keys` (rows == nullptr: rows 0..n-1) with hashes indexed by row
  // (HashKeys; nullptr: computed here when needed), finds each row's group, inserting new
  // groups, and writes group ids to out[0..n). part_hashes (indexed by row, or nullptr = hashes)
  // is stored with new groups.
  void FindOrInsert(const KeyView& keys, const uint64_t* hashes, const uint64_t* part_hashes,
                    const uint32_t* rows, int64_t n, uint32_t* out);

  // Direct-index mode (perfect hashing), for one integer-like key column (DirectIndexable) whose
  // values all lie in [lo, lo + span): a group is found by indexing an array with value - lo,
  // with no hashing, probing or key comparison; sorted or clustered keys then touch memory
  // sequentially. Call before the first insert. A NULL or out-of-range key (a caller bug, but
  // never a crash) switches the table back to hashing.
  void UseDirectIndex(int64_t lo, int64_t span);
  static bool DirectIndexable(const DataType& type);
  bool direct() const { return direct_mode_; }
  // Stored key of group g as an integer (direct-indexable key types only).
  int64_t StoredKeyAsInt64(int64_t g) const;

  // The stored keys as a view (for merging this table into another one).
  KeyView StoredKeys() const;
  // Stored key column `c` of groups [0, num_groups) as a Column.
  ColumnPtr ExportKey(int c) const;
  // The same, handing the stored values to the column without a copy where they are large; the
  // table must not be used for key `c` afterwards (the aggregate's last step).
  ColumnPtr TakeKey(int c);

 private:
  struct KeyStore {
    DataType type;
    int width = 0;
    GrowArray<uint8_t> values;   // fixed width
    GrowArray<int64_t> offsets;  // strings: starts with 0
    GrowArray<char> chars;
    GrowArray<uint8_t> nulls;  // one byte per group
    bool any_null = false;
  };
  struct Slot {
    uint32_t tag = 0;
    uint32_t group_plus_one = 0;  // 0 = empty
  };

  void Reserve(int64_t groups);
  ColumnPtr KeyColumn(int c, bool take);
  // Counts the table's heap bytes against the host budget (at each growth of the slots or the
  // direct index; the key stores in between grow by at most as much again).
  void UpdateCharge();
  const uint64_t* EnsureHashes(const KeyView& keys, const uint32_t* rows, int64_t n);
  uint32_t AddGroup(const KeyView& keys, int64_t row, uint64_t hash, uint64_t part_hash);
  // Few-groups fast path: when a batch's keys pack into 64 bits, a small memo from packed key to
  // group answers most rows with one probe; false when the keys do not pack (or the memo is off).
  bool TryMemo(const KeyView& keys, const uint64_t* hashes, const uint64_t* part_hashes,
               const uint32_t* rows, int64_t n, uint32_t* out);
  void FindOrInsertChunk(const KeyView& keys, const uint64_t* hashes, const uint64_t* part_hashes,
                         const uint32_t* rows, int64_t n, uint32_t* out);

  // Direct mode: finds or inserts every row; false (nothing written) when a row does not fit,
  // after which the table has left direct mode.
  bool FindOrInsertDirect(const KeyView& keys, const uint64_t* hashes, const uint64_t* part_hashes,
                          const uint32_t* rows, int64_t n, uint32_t* out);
  void LeaveDirectMode();

  std::vector<DataType> types_;
  std::vector<KeyStore> stores_;
  bool direct_mode_ = false;
  // Direct mode with hashes_ and part_hashes_ not kept: each group's hash is its key's (the one
  // HashKeys gives), computed when asked for.
  bool hashes_lazy_ = false;
  int64_t direct_lo_ = 0;
  // value - lo -> group + 1 (0 = no group yet), in chunks of 2^kDirectChunkBits values made on
  // first use: a table over a wide range whose rows touch only part of it (keys clustered by
  // range, as in a file sorted on them, split among the workers) holds memory for that part.
  static constexpr int kDirectChunkBits = 14;
  // A table leaves direct mode when its chunks would hold more than this many slots per group
  // (past the first few chunks): keys in no order over a wide range.
  static constexpr int64_t kDirectSlotsPerGroup = 16;
  static constexpr int64_t kDirectWarmupSlots = int64_t{1} << 22;
  uint32_t* DirectSlot(uint64_t offset) {
    std::unique_ptr<uint32_t[]>& chunk = direct_[offset >> kDirectChunkBits];
    if (!chunk) {
      chunk = std::make_unique<uint32_t[]>(size_t{1} << kDirectChunkBits);
      direct_chunks_made_++;
      UpdateCharge();
    }
    return &chunk[offset & ((uint64_t{1} << kDirectChunkBits) - 1)];
  }
  std::vector<std::unique_ptr<uint32_t[]>> direct_;
  int64_t direct_chunks_made_ = 0;
  HostCharge charge_;
  int64_t direct_span_ = 0;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  int64_t num_groups_ = 0;
  GrowArray<uint64_t> hashes_;
  GrowArray<uint64_t> part_hashes_;
  // Memo of packed keys (layout = bytes per column, 0xFF = not packable) -> group.
  bool memo_enabled_ = true;
  std::vector<uint8_t> memo_layout_;
  std::vector<uint64_t> memo_codes_;
  std::vector<uint32_t> memo_groups_;  // group + 1; 0 = empty
  int64_t memo_size_ = 0;
  std::vector<uint64_t> packed_;
  std::vector<uint32_t> miss_rows_, miss_out_;
  std::vector<uint64_t> own_hashes_;
  // Per-chunk scratch.
  std::vector<uint64_t> slot_pos_;
  std::vector<uint32_t> pending_, compare_, candidate_;
  std::vector<uint8_t> mismatch_;
};

}  // namespace tandem::cpu::agg
