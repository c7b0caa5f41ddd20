// Hash aggregation (kAggregate): GROUP BY with any key types, grouping sets, FILTER clauses and
// DISTINCT aggregates, parallel in two phases:
//   1. Each worker takes input batches in turn, evaluates the keys, arguments and filters, and
//      folds them into its own GroupTable + aggregate states (one per grouping set). A DISTINCT
//      aggregate instead inserts (group id, argument) pairs into a per-worker dedupe table: the
//      group's id in that worker's table, never its key values again (TPC-H Q16's string keys).
//   2. The workers' groups are split into partitions by key hash and each partition is merged by
//      one thread into a final table, which maps each worker's group ids to final ones; the
//      deduped pairs of the partition, their ids mapped, are deduped once more and folded into
//      the DISTINCT aggregates. Each partition becomes one output batch. Few groups (one
//      partition) with many pairs: the pairs are deduped in buckets of their hash on several
//      threads instead (count(DISTINCT o_custkey) by order priority).
// Few groups (TPC-H Q1) stay in tiny per-worker tables and merge serially in microseconds. One
// plain integer key with a compact range (TPC-H Q18's l_orderkey) uses direct-indexed tables
// (perfect hashing) in both phases, partitioned by value range for the merge.
#include "tandem/exec/cpu/hash_aggregate.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "tandem/column/take.h"
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/aggregate_states.h"
#include "tandem/exec/cpu/group_table.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/shared_subexpressions.h"
#include "tandem/memory/host_memory.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {
namespace {

using namespace agg;  // NOLINT: this file is the aggregation operator
using opx::EvaluateOrReference;
using opx::Morsels;
using opx::OperatorThreads;
using opx::SelectTrueRows;

constexpr int kPartitionBits = 5;
constexpr int64_t kParallelMergeGroups = 1 << 15;
// Few groups but at least this many deduped (group, argument) pairs over the workers: the pairs
// are merged in buckets of their hash on several threads (count(DISTINCT o_custkey) by the 5
// order priorities: 15M rows, millions of pairs, one partition of groups).
constexpr int64_t kParallelDistinctPairs = 1 << 17;
constexpr int kDistinctBucketBits = 5;

struct GroupingSet {
  std::vector<int> keys;  // indexes into node.group_keys
  int64_t grouping_id = 0;
};

// One worker's (or one partition's) tables for one grouping set.
struct SetState {
  std::unique_ptr<GroupTable> table;
  std::vector<std::unique_ptr<AggState>> states;    // one per aggregate
  std::vector<std::unique_ptr<GroupTable>> dedupe;  // per aggregate; only DISTINCT ones
};

// Folds the values of a DirectIndexable column into [*min, *max]; other types are skipped.
void MinMaxOf(const Column& c, int64_t* min, int64_t* max) {
  if (!GroupTable::DirectIndexable(c.type())) return;
  auto scan = [&]<typename T>(Tag<T>) {
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
      const T* v = c.values_as<T>();
      T lo = v[0], hi = v[0];
      for (int64_t i = 1; i < c.length(); ++i) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
      *min = std::min<int64_t>(*min, static_cast<int64_t>(lo));
      *max = std::max<int64_t>(*max, static_cast<int64_t>(hi));
    }
  };
  VisitStorage(c.type(), Overloaded{scan, [](auto) {}});
}

}  // namespace

bool DirectIndexSpanFits(int64_t min, int64_t max, int64_t rows, [[maybe_unused]] int workers,
                         int64_t* lo, int64_t* span) {
  // Each worker's table makes its index only where its rows fall (keys sorted or clustered by
  // range, as in files written in key order, split among the workers), and leaves direct mode
  // when its keys spread thinly over the range (GroupTable::kDirectSlotsPerGroup). The index
  // over the whole range, once, is at most this much.
  constexpr int64_t kMaxSpan = int64_t{1} << 31;
  const int64_t budget = std::min<int64_t>(int64_t{8} << 30, host_memory::Limit() / 8);
  if (rows <= 0 || max < min) return false;
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  if (range >= static_cast<uint64_t>(std::min(kMaxSpan, 4 * rows + 4096))) return false;
  if (static_cast<int64_t>(range + 1) * 4 > budget) return false;
  *lo = min;
  *span = static_cast<int64_t>(range) + 1;
  return true;
}

bool DirectIndexRangeOf(const Table& input, int column, int workers, int64_t* lo, int64_t* span) {
  int64_t rows = 0;
  int64_t min = INT64_MAX, max = INT64_MIN;
  for (const auto& b : input.batches) {
    if (b->num_rows == 0) continue;
    if (column < 0 || column >= b->num_columns()) return false;
    const Column& c = *b->columns[column];
    if (!GroupTable::DirectIndexable(c.type()) || c.null_count() > 0) return false;
    rows += c.length();
    MinMaxOf(c, &min, &max);
  }
  return DirectIndexSpanFits(min, max, rows, workers, lo, span);
}

// Phase 2 of DISTINCT aggregates over several workers (Aggregation::FinishDistinct): per worker,
// its group ids' final ids, and per worker and DISTINCT aggregate, its pairs' argument hashes and
// room for their final ids and hashes. Partitions write only their own groups' and pairs'
// entries, so they fill these in parallel.
struct DistinctMerge {
  std::vector<std::vector<uint32_t>> final_of;                 // [worker][group]
  std::vector<std::vector<std::vector<uint64_t>>> arg_hashes;  // [worker][aggregate][pair]
  std::vector<std::vector<std::vector<uint32_t>>> final_ids;
  std::vector<std::vector<std::vector<uint64_t>>> pair_hashes;

  void Prepare(const std::deque<std::vector<SetState>>& partials, size_t s, const PlanNode& node) {
    const size_t workers = partials.size(), aggs = node.aggregates.size();
    final_of.resize(workers);
    arg_hashes.assign(workers, std::vector<std::vector<uint64_t>>(aggs));
    final_ids.assign(workers, std::vector<std::vector<uint32_t>>(aggs));
    pair_hashes.assign(workers, std::vector<std::vector<uint64_t>>(aggs));
    for (size_t w = 0; w < workers; ++w) {
      final_of[w].resize(static_cast<size_t>(partials[w][s].table->num_groups()));
      for (size_t j = 0; j < aggs; ++j) {
        if (!partials[w][s].dedupe[j]) continue;
        const auto pairs = static_cast<size_t>(partials[w][s].dedupe[j]->num_groups());
        final_ids[w][j].resize(pairs);
        pair_hashes[w][j].resize(pairs);
      }
    }
  }
  // The argument hashes of worker w's pairs (on the worker's thread).
  void HashArguments(const SetState& worker, int64_t w) {
    for (size_t j = 0; j < worker.dedupe.size(); ++j) {
      if (!worker.dedupe[j]) continue;
      KeyView view = worker.dedupe[j]->StoredKeys();
      view.columns.erase(view.columns.begin());  // the argument alone
      arg_hashes[w][j].resize(static_cast<size_t>(worker.dedupe[j]->num_groups()));
      HashKeys(view, worker.dedupe[j]->num_groups(), arg_hashes[w][j].data());
    }
  }
};

// The hash of a (final group id, argument) pair from the argument's hash (a 64-bit finalizer:
// the table takes slots from the low bits and tags from the high ones).
inline uint64_t PairHash(uint64_t arg_hash, uint32_t group) {
  uint64_t h = arg_hash ^ (uint64_t{group} * 0x9E3779B97F4A7C15ULL);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 33);
}

class Aggregation {
 public:
  Aggregation(const PlanNode& node, const Expr* predicate, ExecContext& ctx)
      : node_(node),
        predicate_(predicate),
        ctx_(ctx),
        shared_(Arguments(node), InputColumns(node)) {}

  int64_t selected_rows() const { return selected_rows_.load(); }

  Result<Table> Run(const Table& input) {
    TANDEM_RETURN_NOT_OK(Prepare());
    const int threads = OperatorThreads(ctx_);
    const std::vector<BatchPtr> batches = Morsels(input, threads);
    int64_t lo = 0, span = 0;
    if (DirectIndexRange(input, &lo, &span)) UseDirectIndex(lo, span);
    TANDEM_RETURN_NOT_OK(opx::ForEachMorsel(
        static_cast<int64_t>(batches.size()), threads, ctx_.eval,
        [&](int64_t b, EvalContext& eval) { return ConsumeShared(*batches[b], eval); }));
    return Finish();
  }

  // The streaming form (AggregateSink): Prepare, then ConsumeShared from any threads, then
  // Finish.
  Status Prepare() {
    TANDEM_RETURN_NOT_OK(PrepareSets());
    return Status::OK();
  }

  // Direct indexing for the one integer key over [lo, lo + span), when the range is known
  // before the first row (a hint: a key outside it makes that worker's table hash again).
  void UseDirectIndex(int64_t lo, int64_t span) {
    direct_lo_ = lo;
    direct_span_ = span;
  }
  // The one integer key a direct-indexed table could use, as an input column index (or -1).
  int DirectIndexKeyColumn() const {
    if (sets_.size() != 1 || sets_[0].keys.size() != 1 || has_distinct_) return -1;
    const Expr& key = *node_.group_keys[sets_[0].keys[0]];
    if (key.kind != ExprKind::kColumnRef || key.outer_depth != 0 ||
        !GroupTable::DirectIndexable(key.type)) {
      return -1;
    }
    return key.column_index;
  }

  // Folds one batch into a partial state that no other thread holds at the time.
  Status ConsumeShared(const Batch& batch, EvalContext& eval) {
    TANDEM_ASSIGN_OR_RAISE(std::vector<SetState> * partial, AcquirePartial());
    Status st = Consume(batch, eval, partial);
    ReleasePartial(partial);
    return st;
  }

  Result<Table> Finish() {
    if (partials_.empty()) {  // no input batch: one empty partial, for the keyless row
      TANDEM_ASSIGN_OR_RAISE(std::vector<SetState> * partial, AcquirePartial());
      ReleasePartial(partial);
    }
    Table out;
    out.schema = node_.schema;
    for (size_t s = 0; s < sets_.size(); ++s) {
      TANDEM_RETURN_NOT_OK(MergeAndEmit(s, &out));
    }
    return out;
  }

 private:
  // A free partial state, made when every existing one is in use.
  Result<std::vector<SetState>*> AcquirePartial() {
    std::lock_guard<std::mutex> lock(partials_mutex_);
    if (!free_partials_.empty()) {
      std::vector<SetState>* p = free_partials_.back();
      free_partials_.pop_back();
      return p;
    }
    partials_.emplace_back();
    std::vector<SetState>& w = partials_.back();
    w.resize(sets_.size());
    for (size_t s = 0; s < sets_.size(); ++s) TANDEM_RETURN_NOT_OK(InitSetState(s, &w[s]));
    if (direct_span_ > 0) w[0].table->UseDirectIndex(direct_lo_, direct_span_);
    return &w;
  }
  void ReleasePartial(std::vector<SetState>* p) {
    std::lock_guard<std::mutex> lock(partials_mutex_);
    free_partials_.push_back(p);
  }

  Status PrepareSets() {
    for (const auto& k : node_.group_keys) key_types_.push_back(k->type);
    if (node_.grouping_sets.empty()) {
      GroupingSet all;
      for (size_t i = 0; i < node_.group_keys.size(); ++i) all.keys.push_back(static_cast<int>(i));
      sets_.push_back(all);
    } else {
      for (const auto& set : node_.grouping_sets) {
        GroupingSet gs;
        gs.keys = set;
        gs.grouping_id = 0;
        for (size_t i = 0; i < node_.group_keys.size(); ++i) {
          if (std::find(set.begin(), set.end(), static_cast<int>(i)) == set.end()) {
            gs.grouping_id |= int64_t{1} << i;
          }
        }
        for (int k : set) {
          if (k < 0 || k >= static_cast<int>(node_.group_keys.size())) {
            return Status::Internal("grouping set names key " + std::to_string(k) +
                                    " of an aggregate with " +
                                    std::to_string(node_.group_keys.size()) + " keys");
          }
        }
        sets_.push_back(gs);
      }
    }
    for (const auto& a : node_.aggregates) {
      if (a.kind != AggregateKind::kCountStar && !a.arg) {
        return Status::Internal("aggregate " + a.name + " has no argument");
      }
      arg_types_.push_back(a.arg ? a.arg->type : DataType::Int64());
      has_distinct_ |= a.distinct;
    }
    return Status::OK();
  }

  // Perfect hashing: with one plain integer column as the only key, no NULLs and a value range
  // not much larger than the input, the per-worker tables index groups by value (see
  // GroupTable::UseDirectIndex).
  bool DirectIndexRange(const Table& input, int64_t* lo, int64_t* span) const {
    const int key_column = DirectIndexKeyColumn();
    return key_column >= 0 &&
           DirectIndexRangeOf(input, key_column, OperatorThreads(ctx_), lo, span);
  }

  // A DISTINCT aggregate's dedupe table: (group id, argument).
  std::vector<DataType> DedupeTypes(size_t j) const { return {DataType::UInt32(), arg_types_[j]}; }

  std::vector<DataType> SetKeyTypes(size_t s) const {
    std::vector<DataType> t;
    for (int k : sets_[s].keys) t.push_back(key_types_[k]);
    return t;
  }

  Status InitSetState(size_t s, SetState* st) {
    st->table = std::make_unique<GroupTable>(SetKeyTypes(s));
    st->states.clear();
    st->dedupe.clear();
    for (size_t j = 0; j < node_.aggregates.size(); ++j) {
      TANDEM_ASSIGN_OR_RAISE(auto state, MakeAggState(node_.aggregates[j], arg_types_[j]));
      st->states.push_back(std::move(state));
      if (node_.aggregates[j].distinct) {
        st->dedupe.push_back(std::make_unique<GroupTable>(DedupeTypes(j)));
      } else {
        st->dedupe.push_back(nullptr);
      }
    }
    return Status::OK();
  }

  struct Inputs {
    std::vector<ColumnPtr> keys;
    std::vector<ColumnPtr> args;
    std::vector<std::vector<int32_t>> filter_rows;
  };

  Status EvaluateInputs(const Batch& batch, EvalContext& eval, Inputs* in) {
    in->keys.clear();
    for (const auto& k : node_.group_keys) {
      TANDEM_ASSIGN_OR_RAISE(auto col, EvaluateOrReference(*k, batch, eval));
      in->keys.push_back(std::move(col));
    }
    // Subexpressions the arguments share, computed once (columns appended to the batch).
    const bool share = shared_.any() && batch.num_columns() == InputColumns(node_);
    Batch extended;
    if (share) {
      TANDEM_ASSIGN_OR_RAISE(extended, shared_.Extend(batch, eval));
    }
    const size_t num_aggs = node_.aggregates.size();
    in->args.assign(num_aggs, nullptr);
    in->filter_rows.assign(num_aggs, {});
    for (size_t j = 0; j < num_aggs; ++j) {
      const AggregateCall& a = node_.aggregates[j];
      if (a.arg && share) {
        TANDEM_ASSIGN_OR_RAISE(in->args[j],
                               EvaluateOrReference(*shared_.rewritten()[j], extended, eval));
      } else if (a.arg) {
        TANDEM_ASSIGN_OR_RAISE(in->args[j], EvaluateOrReference(*a.arg, batch, eval));
      }
      if (a.filter) {
        TANDEM_ASSIGN_OR_RAISE(in->filter_rows[j], SelectTrueRows(*a.filter, batch, eval));
      }
    }
    return Status::OK();
  }

  // Phase 1: one batch into a worker's tables. With a fused filter, the rows where it holds are
  // aggregated in place when most rows pass (expressions are evaluated on the whole batch; if
  // that fails, possibly because of a filtered-out row, the batch is compacted and evaluated
  // again), or from a compacted copy when few pass.
  Status Consume(const Batch& batch, EvalContext& eval, std::vector<SetState>* sets) {
    const int64_t n = batch.num_rows;
    if (n == 0) return Status::OK();
    if (n > INT32_MAX) return Status::Unsupported("aggregate input batches over 2^31 rows");
    Inputs in;
    if (predicate_) {
      TANDEM_ASSIGN_OR_RAISE(auto sel, SelectTrueRows(*predicate_, batch, eval));
      const int64_t m = static_cast<int64_t>(sel.size());
      selected_rows_ += m;
      if (m == 0) return Status::OK();
      if (m < n) {
        if (m * 4 >= n && EvaluateInputs(batch, eval, &in).ok()) {
          return Apply(in, n, &sel, sets);
        }
        auto compact = TakeBatch(batch, sel.data(), m);
        compact->num_rows = m;
        TANDEM_RETURN_NOT_OK(EvaluateInputs(*compact, eval, &in));
        return Apply(in, m, nullptr, sets);
      }
    }
    TANDEM_RETURN_NOT_OK(EvaluateInputs(batch, eval, &in));
    return Apply(in, n, nullptr, sets);
  }

  // Sorted intersection of two ascending row lists.
  static std::vector<int32_t> Intersect(const std::vector<int32_t>& a,
                                        const std::vector<int32_t>& b) {
    std::vector<int32_t> out;
    out.reserve(std::min(a.size(), b.size()));
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
  }

  // Folds evaluated inputs of n rows (only rows `base` when given) into the tables.
  Status Apply(Inputs& in, int64_t n, const std::vector<int32_t>* base,
               std::vector<SetState>* sets) {
    const size_t num_aggs = node_.aggregates.size();
    if (base) {
      for (size_t j = 0; j < num_aggs; ++j) {
        if (node_.aggregates[j].filter) in.filter_rows[j] = Intersect(in.filter_rows[j], *base);
      }
    }
    const int64_t m = base ? static_cast<int64_t>(base->size()) : n;
    std::vector<uint64_t> hashes(has_distinct_ ? static_cast<size_t>(n) : 0);
    std::vector<uint64_t> full_hashes;
    std::vector<uint32_t> gids(static_cast<size_t>(n));
    std::vector<uint32_t> found(base ? static_cast<size_t>(m) : 0);
    std::vector<uint32_t> rows;
    for (size_t s = 0; s < sets_.size(); ++s) {
      SetState& st = (*sets)[s];
      std::vector<const Column*> cols;
      for (int k : sets_[s].keys) cols.push_back(in.keys[k].get());
      const KeyView view = KeyView::FromColumns(cols);
      // Key hashes are needed here only for DISTINCT (partitioning the deduped pairs); the
      // table hashes by itself, and not at all for rows its few-groups memo answers.
      const uint64_t* key_hashes = nullptr;
      if (has_distinct_) {
        HashKeys(view, n, hashes.data());
        key_hashes = hashes.data();
      }
      if (base) {
        static_assert(sizeof(int32_t) == sizeof(uint32_t));
        st.table->FindOrInsert(view, key_hashes, nullptr,
                               reinterpret_cast<const uint32_t*>(base->data()), m, found.data());
        for (int64_t k = 0; k < m; ++k) gids[(*base)[k]] = found[k];
      } else {
        st.table->FindOrInsert(view, key_hashes, nullptr, nullptr, n, gids.data());
      }
      const int64_t groups = st.table->num_groups();
      for (size_t j = 0; j < num_aggs; ++j) {
        st.states[j]->Resize(groups);
        const AggregateCall& a = node_.aggregates[j];
        const std::vector<int32_t>* sel = a.filter ? &in.filter_rows[j] : base;
        if (a.distinct) {
          TANDEM_RETURN_NOT_OK(InsertDistinct(gids.data(), *in.args[j], sel, hashes, &full_hashes,
                                              &rows, st.dedupe[j].get()));
          continue;
        }
        TANDEM_RETURN_NOT_OK(st.states[j]->Update(gids.data(), in.args[j].get(),
                                                  sel ? sel->data() : nullptr,
                                                  sel ? static_cast<int64_t>(sel->size()) : n));
      }
    }
    return Status::OK();
  }

  // Inserts the (group id, arg) pairs of rows passing the filter with a non-NULL arg; each pair
  // keeps its group's key hash as its partition hash (phase 2 merges it with its group).
  static Status InsertDistinct(const uint32_t* gids, const Column& arg,
                               const std::vector<int32_t>* filter,
                               const std::vector<uint64_t>& hashes,
                               std::vector<uint64_t>* full_hashes, std::vector<uint32_t>* rows,
                               GroupTable* dedupe) {
    const int64_t n = arg.length();
    rows->clear();
    if (filter) {
      for (int32_t r : *filter) {
        if (arg.IsValid(r)) rows->push_back(static_cast<uint32_t>(r));
      }
    } else {
      for (int64_t r = 0; r < n; ++r) {
        if (arg.IsValid(r)) rows->push_back(static_cast<uint32_t>(r));
      }
    }
    KeyView view = PairView(gids, KeyView::FromColumns({&arg}));
    full_hashes->resize(static_cast<size_t>(n));
    HashKeys(view, n, full_hashes->data());
    std::vector<uint32_t> ignored(rows->size());
    dedupe->FindOrInsert(view, full_hashes->data(), hashes.data(), rows->data(),
                         static_cast<int64_t>(rows->size()), ignored.data());
    return Status::OK();
  }

  // A (group id, argument) view: ids from `gids` (indexed like the argument's rows).
  static KeyView PairView(const uint32_t* gids, KeyView arg) {
    KeyColumnView id;
    id.type = DataType::UInt32();
    id.width = 4;
    id.values = reinterpret_cast<const uint8_t*>(gids);
    arg.columns.insert(arg.columns.begin(), id);
    return arg;
  }

  // Phase 2 for one grouping set: merge the workers' tables partition by partition and append
  // the result batches.
  Status MergeAndEmit(size_t s, Table* out) {
    const int workers = static_cast<int>(partials_.size());
    int64_t total = 0;
    for (auto& w : partials_) total += w[s].table->num_groups();
    const bool keyless = sets_[s].keys.empty();
    int bits = 0;
    if (!keyless && workers > 1 && total >= kParallelMergeGroups) bits = kPartitionBits;
    const int partitions = 1 << bits;
    std::vector<SetState> finals(static_cast<size_t>(partitions));

    if (workers == 1 && partitions == 1) {
      finals[0] = std::move(partials_[0][s]);
      TANDEM_RETURN_NOT_OK(FinishDistinct(s, bits, 0, &finals[0], /*merge=*/nullptr));
    } else {
      // Group lists per worker and partition (main tables and dedupe tables).
      // Direct-indexed worker tables (one key, known range) merge into direct-indexed finals,
      // partition p owning the values [lo + p * width, lo + (p + 1) * width).
      bool direct = keyless ? false : true;
      for (auto& w : partials_) direct &= w[s].table->direct();
      const int64_t direct_width = (direct_span_ + partitions - 1) / partitions;
      auto split = [&](GroupTable& t) {
        std::vector<std::vector<uint32_t>> lists(static_cast<size_t>(partitions));
        if (direct) {
          for (int64_t g = 0; g < t.num_groups(); ++g) {
            const int64_t p = (t.StoredKeyAsInt64(g) - direct_lo_) / direct_width;
            lists[std::clamp<int64_t>(p, 0, partitions - 1)].push_back(static_cast<uint32_t>(g));
          }
          return lists;
        }
        t.EnsureStoredHashes();  // a worker table may have left direct mode alone
        const auto& ph = t.partition_hashes();
        for (int64_t g = 0; g < t.num_groups(); ++g) {
          lists[bits ? ph[g] >> (64 - bits) : 0].push_back(static_cast<uint32_t>(g));
        }
        return lists;
      };
      std::vector<std::vector<std::vector<uint32_t>>> lists(static_cast<size_t>(workers));
      DistinctMerge merge;
      if (has_distinct_) merge.Prepare(partials_, s, node_);
      TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(workers, [&](int64_t w) {
        lists[w] = split(*partials_[w][s].table);
        if (has_distinct_) merge.HashArguments(partials_[w][s], w);
        return Status::OK();
      }));
      TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(partitions, [&](int64_t p) {
        SetState& f = finals[p];
        TANDEM_RETURN_NOT_OK(InitSetState(s, &f));
        if (direct) f.table->UseDirectIndex(direct_lo_ + p * direct_width, direct_width);
        std::vector<uint32_t> dst;
        for (int w = 0; w < workers; ++w) {
          SetState& src = partials_[w][s];
          const std::vector<uint32_t>& groups = lists[w][p];
          if (groups.empty()) continue;
          const int64_t n = static_cast<int64_t>(groups.size());
          dst.resize(groups.size());
          f.table->FindOrInsert(src.table->StoredKeys(), src.table->group_hashes().data(),
                                src.table->partition_hashes().data(), groups.data(), n, dst.data());
          if (has_distinct_) {
            for (int64_t k = 0; k < n; ++k) merge.final_of[w][groups[k]] = dst[k];
          }
          for (size_t j = 0; j < f.states.size(); ++j) {
            f.states[j]->Resize(f.table->num_groups());
            if (!node_.aggregates[j].distinct) {
              f.states[j]->Merge(*src.states[j], groups.data(), dst.data(), n);
            }
          }
        }
        return FinishDistinct(s, bits, p, &f, &merge);
      }));
    }

    // The partitions' batches are built in parallel (15M groups of TPC-H Q18 at SF10 made this
    // a serial phase) and appended in partition order; an error is the lowest partition's.
    std::vector<BatchPtr> batches(static_cast<size_t>(partitions));
    TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(partitions, [&](int64_t p) -> Status {
      SetState& f = finals[p];
      if (keyless && f.table->num_groups() == 0) {
        // No keys: one row even for empty input (count 0, other aggregates NULL).
        uint64_t h = 0;
        uint32_t g = 0;
        f.table->FindOrInsert(KeyView{}, &h, &h, nullptr, 1, &g);
      }
      const int64_t groups = f.table->num_groups();
      if (groups == 0) return Status::OK();
      for (auto& state : f.states) state->Resize(groups);
      TANDEM_ASSIGN_OR_RAISE(batches[p], EmitBatch(s, f));
      return Status::OK();
    }));
    for (BatchPtr& b : batches) {
      if (b) out->batches.push_back(std::move(b));
    }
    return Status::OK();
  }

  // Folds the deduped (group id, arg) pairs of partition p into the DISTINCT aggregates of `f`:
  // with one worker and one partition (merge null) the ids are final already; else each
  // worker's pairs of the partition have their ids mapped to final ones (merge->final_of) and
  // are deduped once more, hashed by their argument's hash and the final id.
  Status FinishDistinct(size_t s, int bits, int64_t p, SetState* f, DistinctMerge* merge) {
    for (size_t j = 0; j < node_.aggregates.size(); ++j) {
      if (!node_.aggregates[j].distinct) continue;
      std::unique_ptr<GroupTable> merged;
      GroupTable* d = f->dedupe[j].get();
      if (merge) {
        // Each worker's pairs of this partition, their ids mapped to final ones and hashed.
        std::vector<std::vector<uint32_t>> entries(partials_.size());
        int64_t total = 0;
        for (size_t w = 0; w < partials_.size(); ++w) {
          const GroupTable& src = *partials_[w][s].dedupe[j];
          const auto& ph = src.partition_hashes();
          const auto* ids = reinterpret_cast<const uint32_t*>(src.StoredKeys().columns[0].values);
          uint32_t* final_ids = merge->final_ids[w][j].data();
          uint64_t* hashes = merge->pair_hashes[w][j].data();
          const uint64_t* arg_hashes = merge->arg_hashes[w][j].data();
          for (int64_t e = 0; e < src.num_groups(); ++e) {
            if ((bits ? static_cast<int64_t>(ph[e] >> (64 - bits)) : 0) != p) continue;
            entries[w].push_back(static_cast<uint32_t>(e));
            final_ids[e] = merge->final_of[w][ids[e]];
            hashes[e] = PairHash(arg_hashes[e], final_ids[e]);
          }
          total += static_cast<int64_t>(entries[w].size());
        }
        if (bits == 0 && total >= kParallelDistinctPairs && OperatorThreads(ctx_) > 1) {
          TANDEM_RETURN_NOT_OK(MergePairsInBuckets(s, j, entries, *merge, f));
          continue;
        }
        merged = std::make_unique<GroupTable>(DedupeTypes(j));
        for (size_t w = 0; w < partials_.size(); ++w) {
          MergePairs(s, j, w, entries[w], *merge, merged.get());
        }
        d = merged.get();
      }
      TANDEM_RETURN_NOT_OK(UpdateDistinct(j, *d, f));
    }
    return Status::OK();
  }

  // Inserts worker w's pairs at `entries` (final ids and pair hashes in `merge`) into `into`.
  void MergePairs(size_t s, size_t j, size_t w, const std::vector<uint32_t>& entries,
                  const DistinctMerge& merge, GroupTable* into) {
    if (entries.empty()) return;
    KeyView view = partials_[w][s].dedupe[j]->StoredKeys();
    view.columns[0].values = reinterpret_cast<const uint8_t*>(merge.final_ids[w][j].data());
    const uint64_t* hashes = merge.pair_hashes[w][j].data();
    std::vector<uint32_t> ignored(entries.size());
    into->FindOrInsert(view, hashes, hashes, entries.data(), static_cast<int64_t>(entries.size()),
                       ignored.data());
  }

  // The pairs of every worker, split by their hash into buckets deduped on several threads (a
  // pair's copies share its hash, so each lands in one bucket), then folded into f's DISTINCT
  // aggregate bucket by bucket.
  Status MergePairsInBuckets(size_t s, size_t j, const std::vector<std::vector<uint32_t>>& entries,
                             const DistinctMerge& merge, SetState* f) {
    constexpr int kBuckets = 1 << kDistinctBucketBits;
    std::vector<std::vector<std::vector<uint32_t>>> lists(
        partials_.size(), std::vector<std::vector<uint32_t>>(kBuckets));
    for (size_t w = 0; w < partials_.size(); ++w) {
      const uint64_t* hashes = merge.pair_hashes[w][j].data();
      for (uint32_t e : entries[w]) {
        lists[w][hashes[e] >> (64 - kDistinctBucketBits)].push_back(e);
      }
    }
    std::vector<std::unique_ptr<GroupTable>> buckets(kBuckets);
    TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
        kBuckets,
        [&](int64_t b) {
          buckets[b] = std::make_unique<GroupTable>(DedupeTypes(j));
          for (size_t w = 0; w < partials_.size(); ++w) {
            MergePairs(s, j, w, lists[w][b], merge, buckets[b].get());
          }
          return Status::OK();
        },
        OperatorThreads(ctx_)));
    for (auto& bucket : buckets) {
      TANDEM_RETURN_NOT_OK(UpdateDistinct(j, *bucket, f));
      bucket.reset();
    }
    return Status::OK();
  }

  // Folds the deduped (final group id, argument) pairs of `pairs` into f's aggregate j.
  Status UpdateDistinct(size_t j, const GroupTable& pairs, SetState* f) {
    const int64_t n = pairs.num_groups();
    if (n == 0) return Status::OK();
    const auto* gids = reinterpret_cast<const uint32_t*>(pairs.StoredKeys().columns[0].values);
    for (auto& state : f->states) state->Resize(f->table->num_groups());
    ColumnPtr arg = pairs.ExportKey(1);
    return f->states[j]->Update(gids, arg.get(), nullptr, n);
  }

  Result<BatchPtr> EmitBatch(size_t s, SetState& f) {
    const int64_t groups = f.table->num_groups();
    auto batch = std::make_shared<Batch>();
    batch->schema = node_.schema;
    batch->num_rows = groups;
    const auto& set_keys = sets_[s].keys;
    for (size_t i = 0; i < node_.group_keys.size(); ++i) {
      auto it = std::find(set_keys.begin(), set_keys.end(), static_cast<int>(i));
      if (it == set_keys.end()) {
        batch->columns.push_back(BroadcastValue(Value::Null(key_types_[i]), groups));
      } else {
        batch->columns.push_back(f.table->TakeKey(static_cast<int>(it - set_keys.begin())));
      }
    }
    for (const auto& state : f.states) {
      TANDEM_ASSIGN_OR_RAISE(auto col, state->Finalize(groups));
      batch->columns.push_back(std::move(col));
    }
    if (!node_.grouping_sets.empty()) {
      batch->columns.push_back(BroadcastValue(Value::Int64(sets_[s].grouping_id), groups));
    }
    if (batch->num_columns() != node_.schema.num_fields()) {
      return Status::Internal("aggregate produced " + std::to_string(batch->num_columns()) +
                              " columns for a schema of " +
                              std::to_string(node_.schema.num_fields()));
    }
    return batch;
  }

  static std::vector<const Expr*> Arguments(const PlanNode& node) {
    std::vector<const Expr*> args;
    for (const AggregateCall& a : node.aggregates) args.push_back(a.arg.get());
    return args;
  }
  static int InputColumns(const PlanNode& node) {
    return node.children.empty() || !node.children[0] ? 0 : node.children[0]->schema.num_fields();
  }

  const PlanNode& node_;
  const Expr* predicate_;  // a fused Filter's predicate, or null
  ExecContext& ctx_;
  SharedSubexpressions shared_;  // of the aggregates' arguments
  std::atomic<int64_t> selected_rows_{0};
  bool has_distinct_ = false;
  std::vector<GroupingSet> sets_;
  std::vector<DataType> key_types_;
  std::vector<DataType> arg_types_;
  std::mutex partials_mutex_;
  std::deque<std::vector<SetState>> partials_;  // [worker][set]
  std::vector<std::vector<SetState>*> free_partials_;
  int64_t direct_lo_ = 0;  // key range of direct-indexed tables (DirectIndexRange)
  int64_t direct_span_ = 0;
};

Result<Table> HashAggregate(const PlanNode& node, const Table& input, ExecContext& ctx) {
  Aggregation aggregation(node, nullptr, ctx);
  return aggregation.Run(input);
}

Result<Table> HashAggregateFiltered(const PlanNode& node, const Expr& predicate, const Table& input,
                                    ExecContext& ctx, int64_t* rows_selected) {
  Aggregation aggregation(node, &predicate, ctx);
  auto out = aggregation.Run(input);
  if (rows_selected) *rows_selected = aggregation.selected_rows();
  return out;
}

AggregateSink::AggregateSink(const PlanNode& node, const Expr* predicate, ExecContext& ctx)
    : impl_(std::make_unique<Aggregation>(node, predicate, ctx)) {}
AggregateSink::~AggregateSink() = default;
Status AggregateSink::Prepare() { return impl_->Prepare(); }
int AggregateSink::DirectIndexKeyColumn() const { return impl_->DirectIndexKeyColumn(); }
void AggregateSink::UseDirectIndex(int64_t lo, int64_t span) { impl_->UseDirectIndex(lo, span); }
Status AggregateSink::Consume(const Batch& batch, EvalContext& eval) {
  return impl_->ConsumeShared(batch, eval);
}
Result<Table> AggregateSink::Finish() { return impl_->Finish(); }
int64_t AggregateSink::selected_rows() const { return impl_->selected_rows(); }

}  // namespace tandem::cpu
