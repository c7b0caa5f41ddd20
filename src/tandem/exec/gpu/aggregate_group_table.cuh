// The device group table: an open-addressing hash table in device memory that gives every row a
// dense group id (rows with equal keys share one), built by one kernel with a CAS per new group
// and key comparisons against the group's first row on collisions. The hash aggregate uses it for
// GROUP BY keys and for DISTINCT (group id, value) pairs; the hash joins build it on the build
// side's keys (join NULL semantics: rows with a NULL key get no group) and probe it with the
// other side's rows, so each probe row finds its matching build rows as one group.
//
// Also the small row-selection helpers both operators use (indices of flagged rows, scans).
#pragma once

#include <cstdint>

#include "tandem/exec/gpu/row_keys.cuh"

namespace tandem::gpu::keys {

struct GroupTable {
  KeySet keys;  // the build rows' keys (views into columns the caller keeps alive)
  bool nulls_equal = true;
  int64_t num_rows = 0;
  DeviceBuffer slots;  // int64 per slot: the group's first row, or -1
  uint64_t slot_mask = 0;
  DeviceBuffer group_of_row;     // int64 per row: dense group id, -1 for rows without a group
  DeviceBuffer group_first_row;  // int64 per group: a row of the group (its representative)
  int64_t num_groups = 0;
  bool any_null_key = false;  // some included row has a NULL key (join mode: it got no group)
};

// Groups rows [0, n) of `keys`. include (nullable, one byte per row): only rows with a nonzero
// byte get a group. nulls_equal: NULL keys group together (aggregation); otherwise a row with a
// NULL key gets no group (joins). Synchronizes once (the group count).
Result<GroupTable> BuildGroupTable(const KeySet& keys, int64_t n, const uint8_t* include,
                                   bool nulls_equal, const Stream& stream);

// For rows [0, n) of `probe` (same key types as the table), the group id of the equal build key,
// or -1 (no match; a probe row with a NULL key never matches in join mode). Asynchronous.
Status ProbeGroupTable(const GroupTable& table, const KeySet& probe, int64_t n, int64_t* out_group,
                       const Stream& stream);

// Indices (int64, ascending) of rows r in [0, n) with (flags[r] != 0) == want, and their count.
// Synchronizes once (the count).
struct RowList {
  DeviceBuffer rows;
  int64_t count = 0;
};
Result<RowList> SelectRows(const uint8_t* flags, int64_t n, bool want, const Stream& stream);

// out[i] = sum of in[0..i) for i in [0, n]; returns out[n] (synchronizes).
Result<int64_t> ExclusiveScan(const int64_t* in, int64_t* out, int64_t n, const Stream& stream);

// Fills a device int64 array with `value`.
Status FillInt64(int64_t* dst, int64_t n, int64_t value, const Stream& stream);

}  // namespace tandem::gpu::keys
