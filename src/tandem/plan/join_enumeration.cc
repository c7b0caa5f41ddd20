// Join enumeration over subsets (see join_enumeration.h).
#include "tandem/plan/join_enumeration.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tandem/plan/key_bitmap_span.h"

namespace tandem::plan {
namespace {

// The fraction of its span that the build side's sparsest bitmappable key fills (integer or date
// columns with known bounds, as exec/cpu/key_bitmap.h's BuildSparsest chooses), and that span's
// bytes; false when no key gets a bitmap.
bool SparsestKeyBitmap(const JoinTree& build, const JoinCandidate& c, double probe_rows,
                       double* fill, double* bytes) {
  bool found = false;
  for (const ExprPtr& key : c.right_keys) {
    if (key->kind != ExprKind::kColumnRef) continue;
    const DataType& type = key->type;
    if ((!type.is_integer() && type.id != TypeId::kDate32) || type.id == TypeId::kUInt64) continue;
    const size_t col = static_cast<size_t>(key->column_index);
    if (col >= build.est.columns.size() || !build.est.columns[col].has_bounds) continue;
    const ColumnEstimate& k = build.est.columns[col];
    const double span = k.max - k.min + 1;
    // Once one key has a bitmap, BuildSparsest tries the others only up to 2^29 values.
    const double widest = MaxKeyBitmapSpan(build.est.rows, probe_rows);
    const double limit = found ? std::min(std::ldexp(1.0, 29), widest) : widest;
    if (span <= 0 || span > limit) continue;
    const double ndv = k.ndv >= 0 ? std::min(k.ndv, build.est.rows) : build.est.rows;
    const double f = std::min(1.0, ndv / span);
    if (!found || f < *fill) {
      found = true;
      *fill = f;
      *bytes = span / 8;
    }
  }
  return found;
}

// A lookup's cost, in output rows (or bytes), by the bytes it ranges over: a fifth of making an
// output row (its key's 8 bytes) when it misses to memory, less while what it looks in stays in
// a core's cache or the shared one.
double LookupCost(double looked_in_bytes, bool by_bytes) {
  constexpr double kCoreCacheBytes = 1 << 20;
  constexpr double kSharedCacheBytes = 16 << 20;
  const double fraction = looked_in_bytes <= kCoreCacheBytes     ? 0.1
                          : looked_in_bytes <= kSharedCacheBytes ? 0.35
                                                                 : 1.0;
  return fraction * (by_bytes ? 8 : 0.2);
}

// What one probe row costs: a test in the build side's key bitmap when it has one, and for the
// rows that pass (about the bitmap's fill) a lookup in its hash table (an entry and the row's
// columns). Lookups decide between plans that make about as many rows (TPC-H Q07: lineitem
// probing the French and German suppliers, a bitmap of a few KiB, before their customers'
// orders, one of tens of MB); a plan that makes several times fewer rows wins even when its
// probes miss (Q05: lineitem probing the orders of Asian customers, 5x fewer rows than probing
// Asian suppliers first).
double ProbeRowCost(const JoinTree& build, const JoinCandidate& c, double probe_rows,
                    bool by_bytes) {
  const double table = LookupCost(build.est.rows * (build.row_bytes + 16), by_bytes);
  double fill = 1, bitmap_bytes = 0;
  if (!SparsestKeyBitmap(build, c, probe_rows, &fill, &bitmap_bytes) || fill > 0.5) return table;
  return LookupCost(bitmap_bytes, by_bytes) + fill * table;
}

// A hash join's cost: its output, the hash table it builds on the smaller input, and the lookups
// of the larger input's rows, in rows or (by_bytes) bytes. The output alone (C_out) would put
// wide rows into a table a large input probes (TPC-H Q10's customer columns, probed by lineitem)
// as readily as into the output, and would not see that a large input probing a small table is
// cheaper than the same input probing a large one.
double JoinCost(const JoinTree& a, const JoinTree& b, const JoinGraph& graph, bool by_bytes) {
  const bool a_probes = a.est.rows >= b.est.rows;
  const JoinTree& probe = a_probes ? a : b;
  const JoinTree& build = a_probes ? b : a;
  const JoinCandidate c = EvaluateJoin(probe, build, graph);
  const double build_weight = build.est.rows * (by_bytes ? build.row_bytes : 1);
  const double probe_weight = probe.est.rows * ProbeRowCost(build, c, probe.est.rows, by_bytes);
  return JoinWeight(c, probe, build, by_bytes) + build_weight + probe_weight;
}

}  // namespace

bool EnumerateJoins(const std::vector<JoinTree>& leaves, const JoinGraph& graph, bool by_bytes,
                    JoinTree* out) {
  const size_t n = leaves.size();
  if (n == 0 || n > kMaxEnumeratedJoinInputs) return false;
  struct Best {
    bool set = false;
    double cost = 0;
    JoinTree tree;
  };
  const uint64_t full = (uint64_t{1} << n) - 1;
  std::vector<Best> best(static_cast<size_t>(full) + 1);
  for (size_t i = 0; i < n; ++i) best[uint64_t{1} << i] = {true, 0, leaves[i]};
  // Every proper subset of s is numerically smaller than s, so it is done before s.
  for (uint64_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) continue;  // one input
    const uint64_t lowest = s & (~s + 1);
    bool found = false;
    double best_cost = 0;
    uint64_t best_half = 0;
    // Each split once: the half holding the lowest input, against the rest.
    for (uint64_t half = (s - 1) & s; half != 0; half = (half - 1) & s) {
      if ((half & lowest) == 0) continue;
      const uint64_t other = s ^ half;
      if (!best[half].set || !best[other].set || !Connected(graph, half, other)) continue;
      const JoinTree& a = best[half].tree;
      const JoinTree& b = best[other].tree;
      const double cost = best[half].cost + best[other].cost + JoinCost(a, b, graph, by_bytes);
      if (!found || cost < best_cost) {
        found = true;
        best_cost = cost;
        best_half = half;
      }
    }
    if (!found) continue;
    best[s].set = true;
    best[s].cost = best_cost;
    best[s].tree = JoinTrees(best[best_half].tree, best[s ^ best_half].tree, graph);
  }
  if (!best[full].set) return false;
  *out = std::move(best[full].tree);
  return true;
}

}  // namespace tandem::plan
