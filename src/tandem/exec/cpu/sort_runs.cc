// Parallel run sort and pairwise merge over normalized key words (see sort_runs.h).
#include "tandem/exec/cpu/sort_runs.h"

#include <algorithm>
#include <array>

#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/row_gather.h"

namespace tandem::cpu {
namespace {

template <int K>
struct SortItem {
  uint64_t w[K];
  int64_t ref;
};

// Full sort by one key word with no tail comparisons: a parallel stable radix sort. Items are
// encoded into one array, scattered by their most significant varying byte into 256 buckets
// (stable: per-morsel offsets in input order), and each bucket is LSD-sorted on its lower
// varying bytes in parallel. Returns the refs in order.
Result<std::vector<int64_t>> RadixSortedRefs(const std::vector<BatchPtr>& batches,
                                             const SortKeyEncoder& enc) {
  using Item = SortItem<1>;
  ThreadPool& pool = ThreadPool::Default();
  const std::vector<Morsel> morsels = MakeMorsels(batches);
  const int64_t num_morsels = static_cast<int64_t>(morsels.size());
  std::vector<int64_t> first(morsels.size() + 1, 0);
  for (int64_t m = 0; m < num_morsels; ++m) {
    first[m + 1] = first[m] + morsels[m].end - morsels[m].begin;
  }
  const int64_t n = first[num_morsels];
  std::vector<Item> items(static_cast<size_t>(n));
  // 1. Encode, with per-morsel histograms of all eight bytes.
  std::vector<std::array<std::array<int64_t, 256>, 8>> hist(morsels.size());
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    const Morsel& ms = morsels[m];
    const int64_t len = ms.end - ms.begin;
    std::vector<uint64_t> words(static_cast<size_t>(len));
    enc.Encode(ms.batch, ms.begin, ms.end, words.data());
    Item* out = items.data() + first[m];
    auto& h = hist[m];
    for (auto& d : h) d.fill(0);
    for (int64_t i = 0; i < len; ++i) {
      out[i].w[0] = words[i];
      out[i].ref = PackRowRef(ms.batch, ms.begin + i);
      for (int d = 0; d < 8; ++d) ++h[d][(words[i] >> (8 * d)) & 0xFF];
    }
    return Status::OK();
  }));
  std::vector<int64_t> refs(static_cast<size_t>(n));
  if (n == 0) return refs;
  // Bytes on which items differ.
  std::array<bool, 8> varies{};
  const uint64_t w0 = items[0].w[0];
  for (int d = 0; d < 8; ++d) {
    int64_t same = 0;
    for (int64_t m = 0; m < num_morsels; ++m) same += hist[m][d][(w0 >> (8 * d)) & 0xFF];
    varies[d] = same != n;
  }
  int top = 7;
  while (top >= 0 && !varies[top]) --top;
  if (top < 0) {
    for (int64_t i = 0; i < n; ++i) refs[i] = items[i].ref;
    return refs;
  }
  // 2. Stable scatter by the top varying byte.
  std::vector<Item> sorted(static_cast<size_t>(n));
  std::vector<int64_t> bucket_begin(257, 0);
  std::vector<std::array<int64_t, 256>> cursor(morsels.size());
  {
    int64_t pos = 0;
    for (int b = 0; b < 256; ++b) {
      bucket_begin[b] = pos;
      for (int64_t m = 0; m < num_morsels; ++m) {
        cursor[m][b] = pos;
        pos += hist[m][top][b];
      }
    }
    bucket_begin[256] = pos;
  }
  const int top_shift = 8 * top;
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    auto& c = cursor[m];
    for (int64_t i = first[m]; i < first[m + 1]; ++i) {
      sorted[c[(items[i].w[0] >> top_shift) & 0xFF]++] = items[i];
    }
    return Status::OK();
  }));
  std::vector<Item>().swap(items);
  // 3. LSD passes on the lower varying bytes, bucket by bucket.
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(256, [&](int64_t b) -> Status {
    const int64_t begin = bucket_begin[b];
    const int64_t len = bucket_begin[b + 1] - begin;
    Item* src = sorted.data() + begin;
    if (len > 1 && top > 0) {
      std::vector<Item> tmp(static_cast<size_t>(len));
      Item* a = src;
      Item* t = tmp.data();
      for (int d = 0; d < top; ++d) {
        if (!varies[d]) continue;
        std::array<int64_t, 256> count{};
        const int shift = 8 * d;
        for (int64_t i = 0; i < len; ++i) ++count[(a[i].w[0] >> shift) & 0xFF];
        if (count[(a[0].w[0] >> shift) & 0xFF] == len) continue;
        int64_t sum = 0;
        for (auto& c : count) {
          const int64_t k = c;
          c = sum;
          sum += k;
        }
        for (int64_t i = 0; i < len; ++i) t[count[(a[i].w[0] >> shift) & 0xFF]++] = a[i];
        std::swap(a, t);
      }
      for (int64_t i = 0; i < len; ++i) refs[begin + i] = a[i].ref;  // a may point into tmp
      return Status::OK();
    }
    for (int64_t i = 0; i < len; ++i) refs[begin + i] = src[i].ref;
    return Status::OK();
  }));
  return refs;
}

// Marks where adjacent sorted items' words differ: in all, and in their first prefix bytes
// (big-endian bytes: whole words, then the high bytes of the next).
template <int K, typename Item>
void MarkItemChanges(const std::vector<Item>& items, KeyChanges* changes) {
  const int64_t n = static_cast<int64_t>(items.size());
  changes->prefix_changed.assign(static_cast<size_t>(n), 0);
  changes->any_changed.assign(static_cast<size_t>(n), 0);
  const int full = changes->prefix_bytes / 8, rest = changes->prefix_bytes % 8;
  const uint64_t rest_mask = rest == 0 ? 0 : ~uint64_t{0} << (64 - 8 * rest);
  constexpr int64_t kRowsPerTask = int64_t{1} << 16;
  (void)ThreadPool::Default().ParallelFor(
      (n + kRowsPerTask - 1) / kRowsPerTask, [&](int64_t t) -> Status {
        const int64_t end = std::min(n, (t + 1) * kRowsPerTask);
        for (int64_t i = t * kRowsPerTask; i < end; ++i) {
          if (i == 0) {
            changes->prefix_changed[0] = changes->any_changed[0] = 1;
            continue;
          }
          const uint64_t* a = items[i - 1].w;
          const uint64_t* b = items[i].w;
          bool prefix = false;
          for (int j = 0; j < full && !prefix; ++j) prefix = a[j] != b[j];
          if (!prefix && rest_mask != 0) prefix = ((a[full] ^ b[full]) & rest_mask) != 0;
          bool any = prefix;
          for (int j = 0; j < K && !any; ++j) any = a[j] != b[j];
          changes->prefix_changed[i] = prefix;
          changes->any_changed[i] = any;
        }
        return Status::OK();
      });
  changes->filled = true;
}

template <int K>
Result<std::vector<int64_t>> SortedRefsK(const std::vector<BatchPtr>& batches,
                                         const SortKeyEncoder& enc, int64_t limit,
                                         KeyChanges* changes) {
  using Item = SortItem<K>;
  ThreadPool& pool = ThreadPool::Default();
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows;
  const int64_t threads = std::max(1, pool.num_threads() + 1);
  const int64_t run_rows = std::max<int64_t>(int64_t{1} << 14, (total + threads - 1) / threads);
  const std::vector<Morsel> morsels = MakeMorsels(batches, run_rows);
  const bool tail = enc.needs_tail();
  auto less = [&enc, tail](const Item& x, const Item& y) {
    for (int j = 0; j < K; ++j) {
      if (x.w[j] != y.w[j]) return x.w[j] < y.w[j];
    }
    if (tail) {
      const int c = enc.CompareTail(x.ref, y.ref);
      if (c != 0) return c < 0;
    }
    return x.ref < y.ref;
  };

  std::vector<std::vector<Item>> runs(morsels.size());
  TANDEM_RETURN_NOT_OK(
      pool.ParallelFor(static_cast<int64_t>(morsels.size()), [&](int64_t m) -> Status {
        const Morsel& ms = morsels[m];
        const int64_t n = ms.end - ms.begin;
        std::vector<uint64_t> words(static_cast<size_t>(n * K));
        enc.Encode(ms.batch, ms.begin, ms.end, words.data());
        std::vector<Item>& run = runs[m];
        run.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          for (int j = 0; j < K; ++j) run[i].w[j] = words[i * K + j];
          run[i].ref = PackRowRef(ms.batch, ms.begin + i);
        }
        if (limit >= 0 && limit < n) {
          std::partial_sort(run.begin(), run.begin() + limit, run.end(), less);
          run.resize(static_cast<size_t>(limit));
        } else {
          std::sort(run.begin(), run.end(), less);
        }
        return Status::OK();
      }));

  while (runs.size() > 1) {
    std::vector<std::vector<Item>> merged((runs.size() + 1) / 2);
    TANDEM_RETURN_NOT_OK(
        pool.ParallelFor(static_cast<int64_t>(merged.size()), [&](int64_t p) -> Status {
          if (2 * p + 1 >= static_cast<int64_t>(runs.size())) {
            merged[p] = std::move(runs[2 * p]);
            return Status::OK();
          }
          const auto& a = runs[2 * p];
          const auto& b = runs[2 * p + 1];
          int64_t n = static_cast<int64_t>(a.size() + b.size());
          if (limit >= 0) n = std::min(n, limit);
          std::vector<Item>& out = merged[p];
          out.resize(static_cast<size_t>(n));
          size_t i = 0, j = 0;
          for (int64_t o = 0; o < n; ++o) {
            if (j >= b.size() || (i < a.size() && !less(b[j], a[i]))) {
              out[o] = a[i++];
            } else {
              out[o] = b[j++];
            }
          }
          std::vector<Item>().swap(runs[2 * p]);
          std::vector<Item>().swap(runs[2 * p + 1]);
          return Status::OK();
        }));
    runs = std::move(merged);
  }
  std::vector<int64_t> refs;
  if (!runs.empty()) {
    refs.resize(runs[0].size());
    for (size_t i = 0; i < refs.size(); ++i) refs[i] = runs[0][i].ref;
    if (changes && !tail) MarkItemChanges<K>(runs[0], changes);
  }
  return refs;
}

}  // namespace

Result<std::vector<int64_t>> SortedRowRefs(const std::vector<BatchPtr>& batches,
                                           const SortKeyEncoder& encoder, int64_t limit,
                                           KeyChanges* changes) {
  if (changes) changes->filled = false;
  // One key word decides everything: radix sort (full sorts; TopN keeps its partial sorts). It
  // leaves `changes` unfilled (a window then marks them from the rows).
  if (encoder.words() == 1 && !encoder.needs_tail() && limit < 0) {
    return RadixSortedRefs(batches, encoder);
  }
  switch (encoder.words()) {
    case 1:
      return SortedRefsK<1>(batches, encoder, limit, changes);
    case 2:
      return SortedRefsK<2>(batches, encoder, limit, changes);
    case 3:
      return SortedRefsK<3>(batches, encoder, limit, changes);
    default:
      return SortedRefsK<4>(batches, encoder, limit, changes);
  }
}

Result<SortKeyEncoder> MakeSortKeyEncoder(const std::vector<SortKey>& keys,
                                          const std::vector<BatchPtr>& batches, EvalContext& ctx) {
  std::vector<ExprPtr> exprs;
  std::vector<SortOrder> orders;
  for (const SortKey& k : keys) {
    exprs.push_back(k.expr);
    orders.push_back({k.ascending, k.nulls_first});
  }
  TANDEM_ASSIGN_OR_RAISE(auto columns, EvaluateColumnsPerBatch(exprs, batches, ctx));
  return SortKeyEncoder(std::move(columns), std::move(orders));
}

Result<Table> GatherTable(const Table& input, const Schema& schema,
                          const std::vector<int64_t>& refs, int64_t begin, int64_t end) {
  Table out;
  out.schema = schema;
  begin = std::max<int64_t>(begin, 0);
  end = std::min<int64_t>(end, static_cast<int64_t>(refs.size()));
  if (begin >= end) return out;
  const int64_t chunks = (end - begin + kDefaultMorselRows - 1) / kDefaultMorselRows;
  out.batches.resize(static_cast<size_t>(chunks));
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(chunks, [&](int64_t c) -> Status {
    const int64_t from = begin + c * kDefaultMorselRows;
    const int64_t n = std::min(kDefaultMorselRows, end - from);
    auto batch = std::make_shared<Batch>();
    batch->schema = schema;
    batch->num_rows = n;
    for (int col = 0; col < schema.num_fields(); ++col) {
      batch->columns.push_back(
          GatherRows(input.batches, col, input.schema.field(col).type, refs.data() + from, n));
    }
    out.batches[c] = std::move(batch);
    return Status::OK();
  }));
  return out;
}

}  // namespace tandem::cpu
