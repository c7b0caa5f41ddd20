// MarkJoin (see join_mark.h). With keys the right input is built into a JoinHashTable and each
// left morsel probes it in parallel; without keys every right row is a candidate (nested loop).
// The residual condition filters the candidates (JoinEmitter); a row with a surviving candidate
// is TRUE. For a null-aware mark (x IN (subquery)) a row without a match is NULL rather than
// FALSE when some right row passes the other keys and the condition while its IN key (key 0) or
// the row's own is NULL; that check runs only for unmatched rows, on a second hash table over the
// other keys (or over all right rows when there are none).
#include "tandem/exec/cpu/join_mark.h"

#include <algorithm>
#include <optional>

#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/join_emit.h"
#include "tandem/exec/cpu/join_hash_table.h"
#include "tandem/exec/cpu/join_keys.h"

namespace tandem::cpu {
namespace {

constexpr int64_t kCandidateFlush = 1 << 20;  // pending NULL-check pairs per condition run

std::vector<ColumnPtr> OtherKeys(const std::vector<ColumnPtr>& keys) {
  return std::vector<ColumnPtr>(keys.begin() + 1, keys.end());
}

// The right rows a null-aware mark join's NULL check looks at: dense ids with packed refs, and
// whether each one's IN key is NULL. With other keys they sit in a hash table on those keys.
struct NullCheckSide {
  std::optional<KeyLayout> other_layout;
  std::optional<JoinHashTable> other_table;
  std::vector<int64_t> all_refs;  // without other keys: every right row
  const int64_t* refs = nullptr;  // id -> packed ref
  int64_t count = 0;
  std::vector<uint8_t> key0_null;  // per id
  std::vector<int64_t> null_ids;   // ids whose IN key is NULL (without other keys)
};

Status BuildNullCheckSide(const std::vector<DataType>& types, const Table& right,
                          const std::vector<Morsel>& build_morsels,
                          const std::vector<std::vector<ColumnPtr>>& right_keys,
                          NullCheckSide* side) {
  if (types.size() > 1) {
    side->other_layout.emplace(std::vector<DataType>(types.begin() + 1, types.end()), false);
    std::vector<std::vector<ColumnPtr>> cols;
    cols.reserve(build_morsels.size());
    for (const Morsel& m : build_morsels) cols.push_back(OtherKeys(right_keys[m.batch]));
    TANDEM_ASSIGN_OR_RAISE(JoinHashTable t,
                           JoinHashTable::Build(*side->other_layout, build_morsels, cols));
    side->other_table.emplace(std::move(t));
    side->refs = side->other_table->entry_refs();
    side->count = side->other_table->num_entries();
  } else {
    for (size_t b = 0; b < right.batches.size(); ++b) {
      for (int64_t r = 0; r < right.batches[b]->num_rows; ++r) {
        side->all_refs.push_back(PackRowRef(static_cast<int64_t>(b), r));
      }
    }
    side->refs = side->all_refs.data();
    side->count = static_cast<int64_t>(side->all_refs.size());
  }
  side->key0_null.resize(static_cast<size_t>(side->count));
  for (int64_t id = 0; id < side->count; ++id) {
    const int64_t ref = side->refs[id];
    side->key0_null[id] = !right_keys[RefBatch(ref)][0]->IsValid(RefRow(ref));
    if (side->key0_null[id] && !side->other_table) side->null_ids.push_back(id);
  }
  return Status::OK();
}

// Turns state 0 (FALSE) into 2 (NULL) for the morsel rows the NULL check finds.
Status MarkUnknownRows(const PlanNode& node, const Morsel& m,
                       const std::vector<ColumnPtr>& left_keys, const NullCheckSide& side,
                       const JoinEmitter& null_emitter, EvalContext& eval,
                       std::vector<uint8_t>* state) {
  const int64_t rows = m.end - m.begin;
  const Column& key0 = *left_keys[0];
  std::optional<EncodedKeys> other;
  if (side.other_table) other.emplace(*side.other_layout, OtherKeys(left_keys), m.begin, m.end);
  const bool has_condition = node.condition != nullptr;
  JoinCandidates pending;
  auto flush = [&]() -> Status {
    TANDEM_RETURN_NOT_OK(null_emitter.FilterCandidates(m, &pending, eval));
    for (int64_t p : pending.probe) (*state)[p - m.begin] = 2;
    pending.probe.clear();
    pending.build.clear();
    return Status::OK();
  };
  for (int64_t i = 0; i < rows; ++i) {
    if ((*state)[i] != 0 || (other && other->is_null(i))) continue;
    const bool left_null = !key0.IsValid(m.begin + i);
    auto consider = [&](int64_t id) {
      if (!left_null && !side.key0_null[id]) return true;
      if (!has_condition) {
        (*state)[i] = 2;
        return false;
      }
      pending.probe.push_back(m.begin + i);
      pending.build.push_back(id);
      return true;
    };
    if (other) {
      if (side.count > 0) side.other_table->ForEachMatch(*other, i, consider);
    } else if (left_null) {
      for (int64_t id = 0; id < side.count && consider(id); ++id) {
      }
    } else {
      for (int64_t id : side.null_ids) {
        if (!consider(id)) break;
      }
    }
    if (static_cast<int64_t>(pending.probe.size()) >= kCandidateFlush) {
      TANDEM_RETURN_NOT_OK(flush());
    }
  }
  if (!pending.probe.empty()) TANDEM_RETURN_NOT_OK(flush());
  return Status::OK();
}

}  // namespace

Result<Table> MarkJoin(const PlanNode& node, const Table& left, const Table& right,
                       ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<DataType> types, JoinKeyTypes(node, "mark join"));
  const bool keyed = !types.empty();
  const bool right_nonempty = right.num_rows() > 0;
  const bool null_aware = node.null_aware && keyed && right_nonempty;

  std::vector<std::vector<ColumnPtr>> right_keys, left_keys;
  if (keyed) {
    TANDEM_ASSIGN_OR_RAISE(right_keys,
                           EvaluateColumnsPerBatch(node.right_keys, right.batches, ctx.eval));
    TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(right_keys, types, "mark join"));
    TANDEM_ASSIGN_OR_RAISE(left_keys,
                           EvaluateColumnsPerBatch(node.left_keys, left.batches, ctx.eval));
    TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(left_keys, types, "mark join"));
  }
  const KeyLayout layout(types, /*nulls_equal=*/false);
  const std::vector<Morsel> build_morsels = MakeMorsels(right.batches);
  std::optional<JoinHashTable> table;
  std::vector<int64_t> all_refs;
  const int64_t* build_refs = nullptr;
  int64_t num_build = 0;
  if (keyed) {
    std::vector<std::vector<ColumnPtr>> cols;
    cols.reserve(build_morsels.size());
    for (const Morsel& m : build_morsels) cols.push_back(right_keys[m.batch]);
    TANDEM_ASSIGN_OR_RAISE(JoinHashTable t, JoinHashTable::Build(layout, build_morsels, cols));
    table.emplace(std::move(t));
    build_refs = table->entry_refs();
    num_build = table->num_entries();
  } else {
    for (size_t b = 0; b < right.batches.size(); ++b) {
      for (int64_t r = 0; r < right.batches[b]->num_rows; ++r) {
        all_refs.push_back(PackRowRef(static_cast<int64_t>(b), r));
      }
    }
    build_refs = all_refs.data();
    num_build = static_cast<int64_t>(all_refs.size());
  }
  JoinEmitter emitter(node, left, right, build_refs, num_build);
  const bool first_only = emitter.first_match_only();

  // NULL check: with one key and no condition it only needs to know whether the right side
  // has a NULL key; otherwise it has its own candidates.
  const bool simple_null_check = types.size() == 1 && !node.condition;
  const bool right_has_null_key = table && !table->null_key_refs().empty();
  NullCheckSide side;
  if (null_aware && !simple_null_check) {
    TANDEM_RETURN_NOT_OK(BuildNullCheckSide(types, right, build_morsels, right_keys, &side));
  }
  JoinEmitter null_emitter(node, left, right, side.refs, side.count);

  const int64_t rows_per_morsel =
      keyed ? kDefaultMorselRows
            : std::clamp<int64_t>(kDefaultMorselRows / std::max<int64_t>(num_build, 1), 1,
                                  kDefaultMorselRows);
  const std::vector<Morsel> morsels = MakeMorsels(left.batches, rows_per_morsel);
  std::vector<BatchPtr> outputs(morsels.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(morsels.size()), [&](int64_t mi) -> Status {
        const Morsel& m = morsels[mi];
        const int64_t rows = m.end - m.begin;
        JoinCandidates c;
        std::optional<EncodedKeys> keys;
        if (keyed) {
          keys.emplace(layout, left_keys[m.batch], m.begin, m.end);
          if (num_build > 0) {
            table->ProbeAll(*keys, first_only, [&](int64_t i, int64_t entry) {
              c.probe.push_back(m.begin + i);
              c.build.push_back(entry);
            });
          }
        } else {
          const int64_t per_row = first_only ? std::min<int64_t>(num_build, 1) : num_build;
          c.probe.reserve(static_cast<size_t>(rows * per_row));
          c.build.reserve(c.probe.capacity());
          for (int64_t row = m.begin; row < m.end; ++row) {
            for (int64_t id = 0; id < per_row; ++id) {
              c.probe.push_back(row);
              c.build.push_back(id);
            }
          }
        }
        EvalContext eval = ctx.eval;
        TANDEM_RETURN_NOT_OK(emitter.FilterCandidates(m, &c, eval));
        std::vector<uint8_t> state(static_cast<size_t>(rows), 0);
        for (int64_t p : c.probe) state[p - m.begin] = 1;
        if (null_aware && simple_null_check) {
          for (int64_t i = 0; i < rows; ++i) {
            if (state[i] == 0 && (right_has_null_key || keys->is_null(i))) state[i] = 2;
          }
        } else if (null_aware) {
          TANDEM_RETURN_NOT_OK(
              MarkUnknownRows(node, m, left_keys[m.batch], side, null_emitter, eval, &state));
        }
        outputs[mi] = emitter.EmitMark(m, state);
        return Status::OK();
      }));
  Table out;
  out.schema = node.schema;
  for (auto& b : outputs) {
    if (b && b->num_rows > 0) out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace tandem::cpu
