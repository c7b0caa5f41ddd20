// Join enumeration over subsets (see join_enumeration.h).
#include "tandem/plan/join_enumeration.h"

#include <cstdint>

namespace tandem::plan {
namespace {

// A hash join's cost: its output plus the hash table it builds on the smaller input, in rows or
// (by_bytes) bytes. The output alone (C_out) would put wide rows into a table a large input
// probes (TPC-H Q10's customer columns, probed by lineitem) as readily as into the output.
double JoinCost(const JoinTree& a, const JoinTree& b, const JoinGraph& graph, bool by_bytes) {
  const JoinTree& build = a.est.rows >= b.est.rows ? b : a;
  const double build_weight = build.est.rows * (by_bytes ? build.row_bytes : 1);
  return JoinWeight(EvaluateJoin(a, b, graph), a, b, by_bytes) + build_weight;
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
