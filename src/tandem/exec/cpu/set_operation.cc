// Set operations: UNION ALL concatenates; UNION, INTERSECT [ALL] and EXCEPT [ALL] count every
// distinct row (all columns, NULLs equal, via join_keys.h encoding) on each side and emit it
// once or, for ALL, as many times as SQL's bag semantics say (INTERSECT ALL: min(l, r); EXCEPT
// ALL: max(l - r, 0)). Rows are hash-partitioned so partitions are counted in parallel.
#include <algorithm>

#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/join_keys.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {
namespace {

constexpr int kPartitionBits = 6;
constexpr int64_t kPartitions = int64_t{1} << kPartitionBits;

struct SetRow {
  uint64_t hash;
  const uint8_t* key;
  int64_t key_size;
  int64_t ref;
  bool right;
};

struct SetGroup {
  uint64_t hash;
  const uint8_t* key;
  int64_t key_size;
  int64_t first_ref;
  int64_t first_left_ref;
  int64_t left_count;
  int64_t right_count;
};

int64_t Copies(const PlanNode& node, const SetGroup& g) {
  switch (node.set_op) {
    case SetOpKind::kUnion:
      return 1;
    case SetOpKind::kIntersect:
      if (node.set_all) return std::min(g.left_count, g.right_count);
      return g.left_count > 0 && g.right_count > 0 ? 1 : 0;
    case SetOpKind::kExcept:
      if (node.set_all) return std::max<int64_t>(g.left_count - g.right_count, 0);
      return g.left_count > 0 && g.right_count == 0 ? 1 : 0;
  }
  return 0;
}

// Counts the rows of one partition and returns the refs to emit.
std::vector<int64_t> ProcessPartition(const PlanNode& node,
                                      const std::vector<std::vector<SetRow>*>& pieces) {
  int64_t n = 0;
  for (const auto* p : pieces) n += static_cast<int64_t>(p->size());
  std::vector<int64_t> out;
  if (n == 0) return out;
  int64_t capacity = 16;
  while (capacity < 2 * n) capacity <<= 1;
  const uint64_t mask = static_cast<uint64_t>(capacity - 1);
  std::vector<int64_t> slots(static_cast<size_t>(capacity), -1);
  std::vector<SetGroup> groups;
  for (const auto* piece : pieces) {
    for (const SetRow& r : *piece) {
      uint64_t s = r.hash & mask;
      while (true) {
        const int64_t g = slots[s];
        if (g < 0) {
          slots[s] = static_cast<int64_t>(groups.size());
          groups.push_back({r.hash, r.key, r.key_size, r.ref, r.right ? -1 : r.ref, r.right ? 0 : 1,
                            r.right ? 1 : 0});
          break;
        }
        SetGroup& grp = groups[g];
        if (grp.hash == r.hash && grp.key_size == r.key_size &&
            std::memcmp(grp.key, r.key, static_cast<size_t>(r.key_size)) == 0) {
          if (r.right) {
            ++grp.right_count;
          } else {
            if (grp.left_count == 0) grp.first_left_ref = r.ref;
            ++grp.left_count;
          }
          break;
        }
        s = (s + 1) & mask;
      }
    }
  }
  for (const SetGroup& g : groups) {
    const int64_t copies = Copies(node, g);
    const int64_t ref = g.first_left_ref >= 0 ? g.first_left_ref : g.first_ref;
    for (int64_t c = 0; c < copies; ++c) out.push_back(ref);
  }
  return out;
}

}  // namespace

Result<Table> SetOperation(const PlanNode& node, const std::vector<Table>& inputs,
                           ExecContext& /*ctx*/) {
  if (inputs.size() < 2 || (node.set_op != SetOpKind::kUnion && inputs.size() != 2)) {
    return Status::Internal("set operation with " + std::to_string(inputs.size()) + " inputs");
  }
  Table all;
  all.schema = node.schema;
  // INTERSECT and EXCEPT tell the sides apart: rows from batches at or past this are "right".
  int64_t first_right_batch = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (k == 1) first_right_batch = static_cast<int64_t>(all.batches.size());
    for (const auto& b : inputs[k].batches) {
      if (b->num_rows > 0) all.batches.push_back(RelabelBatch(b, node.schema));
    }
  }
  for (const auto& b : all.batches) {
    for (int c = 0; c < b->num_columns(); ++c) {
      if (b->columns[c]->type() != node.schema.field(c).type) {
        return Status::Internal("set operation column " + node.schema.field(c).name + " is " +
                                b->columns[c]->type().ToString() + " on one side, expected " +
                                node.schema.field(c).type.ToString());
      }
    }
  }
  if (node.set_op == SetOpKind::kUnion && node.set_all) return all;

  std::vector<DataType> types;
  for (const auto& f : node.schema.fields) types.push_back(f.type);
  const KeyLayout layout(types, /*nulls_equal=*/true);
  ThreadPool& pool = ThreadPool::Default();
  const std::vector<Morsel> morsels = MakeMorsels(all.batches);
  std::vector<std::unique_ptr<EncodedKeys>> keys(morsels.size());
  std::vector<std::vector<std::vector<SetRow>>> parts(morsels.size());
  TANDEM_RETURN_NOT_OK(
      pool.ParallelFor(static_cast<int64_t>(morsels.size()), [&](int64_t mi) -> Status {
        const Morsel& m = morsels[mi];
        keys[mi] =
            std::make_unique<EncodedKeys>(layout, all.batches[m.batch]->columns, m.begin, m.end);
        const EncodedKeys& k = *keys[mi];
        auto& mine = parts[mi];
        mine.resize(kPartitions);
        const bool right_side = m.batch >= first_right_batch;
        for (int64_t i = 0; i < k.num_rows(); ++i) {
          const uint64_t h = k.hash(i);
          mine[h >> (64 - kPartitionBits)].push_back(
              {h, k.row_data(i), k.row_size(i), PackRowRef(m.batch, m.begin + i), right_side});
        }
        return Status::OK();
      }));
  std::vector<std::vector<int64_t>> emitted(kPartitions);
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(kPartitions, [&](int64_t p) -> Status {
    std::vector<std::vector<SetRow>*> pieces;
    for (auto& mine : parts) pieces.push_back(&mine[p]);
    emitted[p] = ProcessPartition(node, pieces);
    return Status::OK();
  }));
  std::vector<int64_t> refs;
  for (const auto& e : emitted) refs.insert(refs.end(), e.begin(), e.end());
  return GatherTable(all, node.schema, refs, 0, static_cast<int64_t>(refs.size()));
}

}  // namespace tandem::cpu
