// GPU hash join (kJoin), the twin of exec/cpu/hash_join.cc, join_emit.cc and join_mark.cc. The
// right input is the build side:
//   1. build: the right rows get group ids from the device group table over the right keys (join
//      NULL semantics: a row with a NULL key gets none and never matches); rows are bucketed by
//      group (counts, scan, scatter);
//   2. probe: each left row looks its keys up and finds one group = its candidate build rows;
//      without keys every right row is a candidate (cross / nested-loop join);
//   3. SEMI/ANTI/MARK without a residual condition need only "has a candidate"; otherwise the
//      candidate pairs are written (counts, exclusive scan, one thread per pair finding its probe
//      row by binary search, so skewed keys stay balanced), the residual condition is evaluated
//      on the gathered pairs (gpu::SelectTrue) and the pairs compacted;
//   4. output per join type from the pairs and per-row matched flags: unmatched left rows (LEFT,
//      FULL) and unmatched right rows incl. NULL-key rows (RIGHT, FULL) are appended with index -1
//      on the other side (Gather gives NULLs); SEMI/ANTI keep left rows; MARK appends a boolean.
// NOT IN (null_aware ANTI): a NULL key on the non-empty right side empties the result, a left row
// with a NULL key is dropped. Null-aware MARK (IN) is implemented for one key without a condition
// (JoinUnsupported rejects the rest). Output order is not specified.
#include <algorithm>

#include "tandem/exec/gpu/aggregate_group_table.cuh"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/gpu/step_timer.h"

namespace tandem::gpu {
namespace {

using namespace keys;  // NOLINT: this file is the join operator
using u64 = unsigned long long;

__global__ void CountGroupRows(const int64_t* group_of_row, int64_t n, u64* sizes) {
  TANDEM_GRID_LOOP(r, n) {
    const int64_t g = group_of_row[r];
    if (g >= 0) atomicAdd(&sizes[g], 1ULL);
  }
}

__global__ void ScatterGroupRows(const int64_t* group_of_row, int64_t n, u64* cursor,
                                 int64_t* rows) {
  TANDEM_GRID_LOOP(r, n) {
    const int64_t g = group_of_row[r];
    if (g >= 0) rows[atomicAdd(&cursor[g], 1ULL)] = r;
  }
}

// Candidates per probe row: the size of its group (keyed) or every build row (no keys).
__global__ void CandidateCounts(const int64_t* probe_group, const int64_t* group_sizes,
                                int64_t build_rows, int64_t n, int64_t* counts) {
  TANDEM_GRID_LOOP(i, n) {
    if (!probe_group) {
      counts[i] = build_rows;
    } else {
      const int64_t g = probe_group[i];
      counts[i] = g >= 0 ? group_sizes[g] : 0;
    }
  }
}

// Pair k: its probe row i (offsets[i] <= k < offsets[i + 1]) and its build row.
__global__ void ExpandPairs(const int64_t* offsets, int64_t num_probe, const int64_t* probe_group,
                            const int64_t* group_offsets, const int64_t* group_rows, int64_t total,
                            int64_t* probe_idx, int64_t* build_idx) {
  TANDEM_GRID_LOOP(k, total) {
    int64_t lo = 0, hi = num_probe;  // find the last i with offsets[i] <= k
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int64_t t = k - offsets[lo];
    probe_idx[k] = lo;
    build_idx[k] = probe_group ? group_rows[group_offsets[probe_group[lo]] + t] : t;
  }
}

__global__ void CompactPairs(const int64_t* sel, int64_t count, const int64_t* probe_in,
                             const int64_t* build_in, int64_t* probe_out, int64_t* build_out) {
  TANDEM_GRID_LOOP(k, count) {
    probe_out[k] = probe_in[sel[k]];
    build_out[k] = build_in[sel[k]];
  }
}

__global__ void FlagRows(const int64_t* rows, int64_t count, uint8_t* flags) {
  TANDEM_GRID_LOOP(k, count) { flags[rows[k]] = 1; }
}

// Matched flags straight from the probe: keyed rows with a group, or any row when the build side
// is non-empty (no keys).
__global__ void ProbeMatched(const int64_t* probe_group, bool build_nonempty, int64_t n,
                             uint8_t* matched) {
  TANDEM_GRID_LOOP(i, n) { matched[i] = probe_group ? probe_group[i] >= 0 : build_nonempty; }
}

// ANTI: rows without a match, minus (null-aware) rows with a NULL key.
__global__ void AntiKeep(const uint8_t* matched, KeySet probe_keys, bool drop_null_keys, int64_t n,
                         uint8_t* keep) {
  TANDEM_GRID_LOOP(i, n) { keep[i] = !matched[i] && !(drop_null_keys && AnyNull(probe_keys, i)); }
}

// MARK: 1 = TRUE, 0 = FALSE, NULL (valid = 0) for a null-aware IN that is unknown.
__global__ void MarkValues(const uint8_t* matched, KeySet probe_keys, bool null_aware,
                           bool build_has_null_key, int64_t n, uint8_t* values, uint8_t* valid) {
  TANDEM_GRID_LOOP(i, n) {
    const bool m = matched[i];
    values[i] = m;
    valid[i] = m || !null_aware || !(build_has_null_key || AnyNull(probe_keys, i));
  }
}

__global__ void PackBits(const uint8_t* valid, int64_t n, uint8_t* bitmap, u64* null_count) {
  const int64_t bytes = (n + 7) / 8;
  TANDEM_GRID_LOOP(b, bytes) {
    uint8_t bits = 0;
    int nulls = 0;
    for (int k = 0; k < 8 && b * 8 + k < n; ++k) {
      if (valid[b * 8 + k]) {
        bits |= static_cast<uint8_t>(1u << k);
      } else {
        ++nulls;
      }
    }
    bitmap[b] = bits;
    if (nulls) atomicAdd(null_count, static_cast<u64>(nulls));
  }
}

class Join {
 public:
  Join(const PlanNode& node, const DeviceBatch& left, const DeviceBatch& right, GpuContext& ctx)
      : node_(node),
        left_(left),
        right_(right),
        ctx_(ctx),
        stream_(*ctx.stream),
        s_(Raw(*ctx.stream)),
        type_(node.join_type),
        nl_(left.num_rows),
        nr_(right.num_rows) {}

  Result<DeviceBatchPtr> Run() {
    StepTimer timer("join", stream_);
    TANDEM_RETURN_NOT_OK(BuildAndProbe());
    timer.Mark([&] {
      return "build " + std::to_string(nr_) + " and probe " + std::to_string(nl_) + " rows";
    });
    const bool null_aware = node_.null_aware && keyed_ && nr_ > 0;
    if (type_ == JoinType::kAnti && null_aware && table_.any_null_key) {
      // x NOT IN (..., NULL, ...) is never TRUE.
      return Rows(nullptr, 0);
    }
    const bool first_only =
        !node_.condition &&
        (type_ == JoinType::kSemi || type_ == JoinType::kAnti || type_ == JoinType::kMark);
    TANDEM_ASSIGN_OR_RAISE(probe_matched_, Scratch(nl_, stream_));
    if (first_only) {
      if (nl_ > 0) {
        ProbeMatched<<<GridFor(nl_), kThreads, 0, s_>>>(
            keyed_ ? Ptr(probe_group_) : nullptr, nr_ > 0, nl_, probe_matched_.data_as<uint8_t>());
        TANDEM_RETURN_NOT_OK(LaunchStatus("join matched"));
      }
    } else {
      TANDEM_RETURN_NOT_OK(CandidatePairs());
      if (node_.condition) TANDEM_RETURN_NOT_OK(ApplyCondition());
      TANDEM_RETURN_NOT_OK(MemsetDevice(probe_matched_.data(), 0, probe_matched_.size(), stream_));
      if (num_pairs_ > 0) {
        FlagRows<<<GridFor(num_pairs_), kThreads, 0, s_>>>(Ptr(pair_probe_), num_pairs_,
                                                           probe_matched_.data_as<uint8_t>());
        TANDEM_RETURN_NOT_OK(LaunchStatus("join flags"));
      }
    }
    timer.Mark([&] { return first_only ? "matches" : "pairs: " + std::to_string(num_pairs_); });
    Result<DeviceBatchPtr> out = Output(null_aware);
    timer.Mark("output");
    return out;
  }

  Result<DeviceBatchPtr> Output(bool null_aware) {
    switch (type_) {
      case JoinType::kSemi:
      case JoinType::kAnti:
        return SemiAnti(null_aware);
      case JoinType::kMark:
        return Mark(null_aware);
      default:
        return Outer();
    }
  }

 private:
  static int64_t* Ptr(const DeviceBuffer& b) { return b.data_as<int64_t>(); }

  Result<KeySet> EvaluateKeys(const std::vector<ExprPtr>& exprs, const DeviceBatch& batch,
                              std::vector<DeviceColumnPtr>* keep) {
    std::vector<const DeviceColumn*> views;
    for (const auto& e : exprs) {
      TANDEM_ASSIGN_OR_RAISE(auto c, ColumnOf(*e, batch, ctx_.eval, stream_));
      views.push_back(c.get());
      keep->push_back(std::move(c));
    }
    return MakeKeySet(views);
  }

  Status BuildAndProbe() {
    keyed_ = !node_.left_keys.empty();
    if (!keyed_) return Status::OK();
    if (node_.left_keys.size() != node_.right_keys.size()) {
      return Status::Internal("GPU join with " + std::to_string(node_.left_keys.size()) +
                              " left keys but " + std::to_string(node_.right_keys.size()) +
                              " right keys");
    }
    TANDEM_ASSIGN_OR_RAISE(build_keys_, EvaluateKeys(node_.right_keys, right_, &key_columns_));
    TANDEM_ASSIGN_OR_RAISE(probe_keys_, EvaluateKeys(node_.left_keys, left_, &key_columns_));
    for (size_t k = 0; k < node_.left_keys.size(); ++k) {
      if (key_columns_[k]->type != key_columns_[k + node_.left_keys.size()]->type) {
        return Status::Internal("GPU join key " + std::to_string(k) + " types differ");
      }
    }
    TANDEM_ASSIGN_OR_RAISE(table_, BuildGroupTable(build_keys_, nr_, nullptr,
                                                   /*nulls_equal=*/false, stream_));
    TANDEM_ASSIGN_OR_RAISE(probe_group_, Scratch(nl_ * 8, stream_));
    return ProbeGroupTable(table_, probe_keys_, nl_, Ptr(probe_group_), stream_);
  }

  // Build rows bucketed by group, then the candidate pairs of every probe row.
  Status CandidatePairs() {
    const int64_t G = keyed_ ? table_.num_groups : 0;
    DeviceBuffer sizes, group_offsets, group_rows;
    if (keyed_) {
      TANDEM_ASSIGN_OR_RAISE(sizes, Scratch(G * 8, stream_));
      TANDEM_RETURN_NOT_OK(MemsetDevice(sizes.data(), 0, sizes.size(), stream_));
      if (nr_ > 0) {
        CountGroupRows<<<GridFor(nr_), kThreads, 0, s_>>>(Ptr(table_.group_of_row), nr_,
                                                          sizes.data_as<u64>());
        TANDEM_RETURN_NOT_OK(LaunchStatus("join group sizes"));
      }
      TANDEM_ASSIGN_OR_RAISE(group_offsets, Scratch((G + 1) * 8, stream_));
      TANDEM_ASSIGN_OR_RAISE(const int64_t grouped,
                             ExclusiveScan(Ptr(sizes), Ptr(group_offsets), G, stream_));
      TANDEM_ASSIGN_OR_RAISE(auto cursor, Scratch((G + 1) * 8, stream_));
      TANDEM_RETURN_NOT_OK(
          CopyDeviceToDevice(cursor.data(), group_offsets.data(), (G + 1) * 8, stream_));
      TANDEM_ASSIGN_OR_RAISE(group_rows, Scratch(grouped * 8, stream_));
      if (nr_ > 0) {
        ScatterGroupRows<<<GridFor(nr_), kThreads, 0, s_>>>(Ptr(table_.group_of_row), nr_,
                                                            cursor.data_as<u64>(), Ptr(group_rows));
        TANDEM_RETURN_NOT_OK(LaunchStatus("join group rows"));
      }
    }
    TANDEM_ASSIGN_OR_RAISE(auto counts, Scratch(nl_ * 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto offsets, Scratch((nl_ + 1) * 8, stream_));
    if (nl_ > 0) {
      CandidateCounts<<<GridFor(nl_), kThreads, 0, s_>>>(keyed_ ? Ptr(probe_group_) : nullptr,
                                                         keyed_ ? Ptr(sizes) : nullptr, nr_, nl_,
                                                         Ptr(counts));
      TANDEM_RETURN_NOT_OK(LaunchStatus("join counts"));
    }
    TANDEM_ASSIGN_OR_RAISE(num_pairs_, ExclusiveScan(Ptr(counts), Ptr(offsets), nl_, stream_));
    TANDEM_ASSIGN_OR_RAISE(pair_probe_, Scratch(num_pairs_ * 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(pair_build_, Scratch(num_pairs_ * 8, stream_));
    if (num_pairs_ > 0) {
      ExpandPairs<<<GridFor(num_pairs_), kThreads, 0, s_>>>(
          Ptr(offsets), nl_, keyed_ ? Ptr(probe_group_) : nullptr,
          keyed_ ? Ptr(group_offsets) : nullptr, keyed_ ? Ptr(group_rows) : nullptr, num_pairs_,
          Ptr(pair_probe_), Ptr(pair_build_));
      TANDEM_RETURN_NOT_OK(LaunchStatus("join pairs"));
    }
    return Status::OK();
  }

  // Keeps the pairs whose residual condition is TRUE: the columns it reads are gathered for
  // every pair and the condition, remapped onto them, selects.
  Status ApplyCondition() {
    if (num_pairs_ == 0) return Status::OK();
    std::vector<int> used;
    CollectColumns(*node_.condition, &used);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    const int num_left = static_cast<int>(left_.columns.size());
    const int num_total = num_left + static_cast<int>(right_.columns.size());
    std::vector<int> mapping(static_cast<size_t>(num_total), -1);
    DeviceBatch pairs;
    pairs.num_rows = num_pairs_;
    for (int c : used) {
      if (c < 0 || c >= num_total) {
        return Status::Internal("join condition reads column " + std::to_string(c));
      }
      mapping[c] = static_cast<int>(pairs.columns.size());
      const bool is_left = c < num_left;
      const DeviceBatch& side = is_left ? left_ : right_;
      const int col = is_left ? c : c - num_left;
      pairs.schema.fields.push_back(side.schema.field(col));
      TANDEM_ASSIGN_OR_RAISE(
          auto gathered, GatherColumn(*side.columns[col], Ptr(is_left ? pair_probe_ : pair_build_),
                                      num_pairs_, stream_));
      pairs.columns.push_back(std::move(gathered));
    }
    const ExprPtr condition = RemapColumns(node_.condition, mapping);
    TANDEM_ASSIGN_OR_RAISE(auto sel, SelectTrue(*condition, pairs, ctx_.eval, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto probe, Scratch(sel.count * 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto build, Scratch(sel.count * 8, stream_));
    if (sel.count > 0) {
      CompactPairs<<<GridFor(sel.count), kThreads, 0, s_>>>(
          sel.indices.data_as<int64_t>(), sel.count, Ptr(pair_probe_), Ptr(pair_build_), Ptr(probe),
          Ptr(build));
      TANDEM_RETURN_NOT_OK(LaunchStatus("join compact"));
    }
    pair_probe_ = std::move(probe);
    pair_build_ = std::move(build);
    num_pairs_ = sel.count;
    return Status::OK();
  }

  // Left rows `rows[0..count)` (SEMI, ANTI and the empty NOT IN result).
  Result<DeviceBatchPtr> Rows(const int64_t* rows, int64_t count) {
    TANDEM_ASSIGN_OR_RAISE(auto out, Gather(left_, rows, count, stream_));
    out->schema = node_.schema;
    return out;
  }

  Result<DeviceBatchPtr> SemiAnti(bool null_aware) {
    if (type_ == JoinType::kSemi) {
      TANDEM_ASSIGN_OR_RAISE(auto rows,
                             SelectRows(probe_matched_.data_as<uint8_t>(), nl_, true, stream_));
      return Rows(Ptr(rows.rows), rows.count);
    }
    TANDEM_ASSIGN_OR_RAISE(auto keep, Scratch(nl_, stream_));
    if (nl_ > 0) {
      AntiKeep<<<GridFor(nl_), kThreads, 0, s_>>>(probe_matched_.data_as<uint8_t>(), probe_keys_,
                                                  null_aware, nl_, keep.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("anti keep"));
    }
    TANDEM_ASSIGN_OR_RAISE(auto rows, SelectRows(keep.data_as<uint8_t>(), nl_, true, stream_));
    return Rows(Ptr(rows.rows), rows.count);
  }

  Result<DeviceBatchPtr> Mark(bool null_aware) {
    auto out = std::make_shared<DeviceBatch>();
    out->schema = node_.schema;
    out->num_rows = nl_;
    out->columns = left_.columns;
    auto mark = std::make_shared<DeviceColumn>();
    mark->type = DataType::Bool();
    mark->length = nl_;
    TANDEM_ASSIGN_OR_RAISE(mark->values, Scratch(nl_, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto valid, Scratch(nl_, stream_));
    TANDEM_ASSIGN_OR_RAISE(mark->validity, Scratch((nl_ + 7) / 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto nulls, Scratch(8, stream_));
    TANDEM_RETURN_NOT_OK(MemsetDevice(nulls.data(), 0, 8, stream_));
    if (nl_ > 0) {
      MarkValues<<<GridFor(nl_), kThreads, 0, s_>>>(
          probe_matched_.data_as<uint8_t>(), probe_keys_, null_aware, table_.any_null_key, nl_,
          mark->values.data_as<uint8_t>(), valid.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("mark values"));
      PackBits<<<GridFor((nl_ + 7) / 8), kThreads, 0, s_>>>(
          valid.data_as<uint8_t>(), nl_, mark->validity.data_as<uint8_t>(), nulls.data_as<u64>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("mark validity"));
    }
    TANDEM_RETURN_NOT_OK(CopyToHost(&mark->null_count, nulls.data(), 8, stream_));
    TANDEM_RETURN_NOT_OK(stream_.Synchronize());
    if (mark->null_count == 0) mark->validity = DeviceBuffer();
    out->columns.push_back(std::move(mark));
    return out;
  }

  // INNER, LEFT, RIGHT, FULL: the matched pairs, then unmatched left rows (LEFT, FULL) with -1
  // on the right, then unmatched right rows (RIGHT, FULL) with -1 on the left.
  Result<DeviceBatchPtr> Outer() {
    RowList left_only, right_only;
    if (type_ == JoinType::kLeft || type_ == JoinType::kFull) {
      TANDEM_ASSIGN_OR_RAISE(left_only,
                             SelectRows(probe_matched_.data_as<uint8_t>(), nl_, false, stream_));
    }
    if (type_ == JoinType::kRight || type_ == JoinType::kFull) {
      TANDEM_ASSIGN_OR_RAISE(auto build_matched, Scratch(nr_, stream_));
      TANDEM_RETURN_NOT_OK(MemsetDevice(build_matched.data(), 0, build_matched.size(), stream_));
      if (num_pairs_ > 0) {
        FlagRows<<<GridFor(num_pairs_), kThreads, 0, s_>>>(Ptr(pair_build_), num_pairs_,
                                                           build_matched.data_as<uint8_t>());
        TANDEM_RETURN_NOT_OK(LaunchStatus("join build flags"));
      }
      TANDEM_ASSIGN_OR_RAISE(right_only,
                             SelectRows(build_matched.data_as<uint8_t>(), nr_, false, stream_));
    }
    const int64_t total = num_pairs_ + left_only.count + right_only.count;
    TANDEM_ASSIGN_OR_RAISE(auto li, Scratch(total * 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto ri, Scratch(total * 8, stream_));
    int64_t* l = Ptr(li);
    int64_t* r = Ptr(ri);
    TANDEM_RETURN_NOT_OK(CopyDeviceToDevice(l, Ptr(pair_probe_), num_pairs_ * 8, stream_));
    TANDEM_RETURN_NOT_OK(CopyDeviceToDevice(r, Ptr(pair_build_), num_pairs_ * 8, stream_));
    int64_t at = num_pairs_;
    if (left_only.count > 0) {
      TANDEM_RETURN_NOT_OK(
          CopyDeviceToDevice(l + at, Ptr(left_only.rows), left_only.count * 8, stream_));
      TANDEM_RETURN_NOT_OK(FillInt64(r + at, left_only.count, -1, stream_));
      at += left_only.count;
    }
    if (right_only.count > 0) {
      TANDEM_RETURN_NOT_OK(FillInt64(l + at, right_only.count, -1, stream_));
      TANDEM_RETURN_NOT_OK(
          CopyDeviceToDevice(r + at, Ptr(right_only.rows), right_only.count * 8, stream_));
    }
    TANDEM_ASSIGN_OR_RAISE(auto lb, Gather(left_, l, total, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto rb, Gather(right_, r, total, stream_));
    auto out = std::make_shared<DeviceBatch>();
    out->schema = node_.schema;
    out->num_rows = total;
    out->columns = lb->columns;
    for (auto& c : rb->columns) out->columns.push_back(std::move(c));
    if (static_cast<int>(out->columns.size()) != node_.schema.num_fields()) {
      return Status::Internal("GPU join produced " + std::to_string(out->columns.size()) +
                              " columns for a schema of " +
                              std::to_string(node_.schema.num_fields()));
    }
    return out;
  }

  const PlanNode& node_;
  const DeviceBatch& left_;
  const DeviceBatch& right_;
  GpuContext& ctx_;
  const Stream& stream_;
  cudaStream_t s_;
  JoinType type_;
  int64_t nl_;
  int64_t nr_;
  bool keyed_ = false;
  std::vector<DeviceColumnPtr> key_columns_;  // right keys, then left keys (kept alive)
  KeySet build_keys_, probe_keys_;
  GroupTable table_;
  DeviceBuffer probe_group_;    // int64 per left row: matching build group or -1
  DeviceBuffer probe_matched_;  // byte per left row
  DeviceBuffer pair_probe_, pair_build_;
  int64_t num_pairs_ = 0;
};

}  // namespace

Result<DeviceBatchPtr> HashJoin(const PlanNode& node, const DeviceBatch& left,
                                const DeviceBatch& right, GpuContext& ctx) {
  const std::string why = JoinUnsupported(node);
  if (!why.empty()) return Status::Unsupported("GPU join: " + why);
  if (!ctx.stream) return Status::Invalid("GPU join without a stream");
  Join join(node, left, right, ctx);
  return join.Run();
}

}  // namespace tandem::gpu
