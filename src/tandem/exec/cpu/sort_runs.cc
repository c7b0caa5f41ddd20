// Parallel run sort and pairwise merge over normalized key words (see sort_runs.h).
#include "tandem/exec/cpu/sort_runs.h"

#include <algorithm>
#include <array>
#include <utility>

#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/memory/host_block.h"
#include "tandem/memory/host_memory.h"

namespace tandem::cpu {
namespace {

template <int K>
struct SortItem {
  uint64_t w[K];
  int64_t ref;
};

// Items in a host block (memory/host_block.h), not zeroed: a freed large block is kept for the
// next sort, so its pages are not faulted in again (on the virtual machines Tandem runs on a
// fresh page costs many times a write to one held).
template <typename Item>
class ItemArray {
 public:
  explicit ItemArray(int64_t n)
      : bytes_(static_cast<size_t>(n) * sizeof(Item)),
        data_(static_cast<Item*>(Allocate(bytes_))) {}
  ~ItemArray() { host_block::Free(data_, bytes_); }
  ItemArray(const ItemArray&) = delete;
  ItemArray& operator=(const ItemArray&) = delete;
  Item* get() const { return data_; }
  void swap(ItemArray& other) {
    std::swap(bytes_, other.bytes_);
    std::swap(data_, other.data_);
  }

 private:
  // Not counted by the host budget (as before, in vectors), but watched through the resident
  // set: past 90 % of the machine it throws (host_memory.h) instead of the kernel killing us.
  static void* Allocate(size_t bytes) {
    host_memory::GuardResident(static_cast<int64_t>(bytes));
    return host_block::Allocate(bytes, /*zero=*/false);
  }

  size_t bytes_;
  Item* data_;
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
  ItemArray<Item> items(n);  // not zeroed: every item is written first
  // 1. Encode, with per-morsel histograms of all eight bytes.
  std::vector<std::array<std::array<int64_t, 256>, 8>> hist(morsels.size());
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    const Morsel& ms = morsels[m];
    const int64_t len = ms.end - ms.begin;
    std::vector<uint64_t> words(static_cast<size_t>(len));
    enc.Encode(ms.batch, ms.begin, ms.end, words.data());
    Item* out = items.get() + first[m];
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
  const uint64_t w0 = items.get()[0].w[0];
  for (int d = 0; d < 8; ++d) {
    int64_t same = 0;
    for (int64_t m = 0; m < num_morsels; ++m) same += hist[m][d][(w0 >> (8 * d)) & 0xFF];
    varies[d] = same != n;
  }
  int top = 7;
  while (top >= 0 && !varies[top]) --top;
  if (top < 0) {
    for (int64_t i = 0; i < n; ++i) refs[i] = items.get()[i].ref;
    return refs;
  }
  // 2. Stable scatter by the top varying byte.
  ItemArray<Item> sorted(n);
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
      sorted.get()[c[(items.get()[i].w[0] >> top_shift) & 0xFF]++] = items.get()[i];
    }
    return Status::OK();
  }));
  ItemArray<Item>(0).swap(items);
  // 3. LSD passes on the lower varying bytes, bucket by bucket.
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(256, [&](int64_t b) -> Status {
    const int64_t begin = bucket_begin[b];
    const int64_t len = bucket_begin[b + 1] - begin;
    Item* src = sorted.get() + begin;
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
void MarkItemChanges(const Item* items, int64_t n, KeyChanges* changes) {
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

// How many of a's items come first among the first k of the stable merge of sorted a and b (a's
// before b's on ties): the merge path's co-rank, by binary search.
template <typename Item, typename Less>
int64_t CoRank(int64_t k, const Item* a, int64_t na, const Item* b, int64_t nb, const Less& less) {
  int64_t lo = std::max<int64_t>(0, k - nb), hi = std::min(k, na);
  while (lo < hi) {
    const int64_t i = lo + (hi - lo) / 2;
    const int64_t j = k - i;
    if (j > 0 && i < na && !less(b[j - 1], a[i])) {
      lo = i + 1;  // a[i] goes before b[j - 1]: more of a
    } else {
      hi = i;
    }
  }
  return lo;
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

  // The runs lie side by side in one array; each level of merges writes the other array, so
  // the sort touches two arrays of fresh memory however many levels it takes (the arrays are
  // not zeroed: every item is written before it is read).
  struct Run {
    int64_t offset = 0, size = 0;
  };
  std::vector<Run> runs(morsels.size());
  int64_t n = 0;
  for (size_t m = 0; m < morsels.size(); ++m) {
    runs[m].offset = n;
    n += morsels[m].end - morsels[m].begin;
  }
  std::vector<int64_t> refs;
  if (n == 0) return refs;
  ItemArray<Item> cur(n);
  ItemArray<Item> next(morsels.size() > 1 ? n : 0);
  constexpr int64_t kEncodeRows = 4096;  // key words encoded a block at a time, then spread
  TANDEM_RETURN_NOT_OK(
      pool.ParallelFor(static_cast<int64_t>(morsels.size()), [&](int64_t m) -> Status {
        const Morsel& ms = morsels[m];
        Item* run = cur.get() + runs[m].offset;
        const int64_t len = ms.end - ms.begin;
        std::vector<uint64_t> words(static_cast<size_t>(std::min(len, kEncodeRows) * K));
        for (int64_t from = 0; from < len; from += kEncodeRows) {
          const int64_t rows = std::min(kEncodeRows, len - from);
          enc.Encode(ms.batch, ms.begin + from, ms.begin + from + rows, words.data());
          for (int64_t i = 0; i < rows; ++i) {
            Item& item = run[from + i];
            for (int j = 0; j < K; ++j) item.w[j] = words[i * K + j];
            item.ref = PackRowRef(ms.batch, ms.begin + from + i);
          }
        }
        if (limit >= 0 && limit < len) {
          std::partial_sort(run, run + limit, run + len, less);
          runs[m].size = limit;
        } else {
          std::sort(run, run + len, less);
          runs[m].size = len;
        }
        return Status::OK();
      }));

  // Pairs of runs merged level by level, each pair's output cut into pieces that merge on their
  // own (their inputs' bounds from CoRank), so every level runs on all threads.
  const int64_t piece_items = std::max<int64_t>(int64_t{1} << 16, n / (4 * threads) + 1);
  while (runs.size() > 1) {
    std::vector<Run> merged((runs.size() + 1) / 2);
    struct Piece {
      int64_t pair, begin, end;
    };
    std::vector<Piece> pieces;
    for (size_t p = 0; p < merged.size(); ++p) {
      const Run& a = runs[2 * p];
      int64_t size = a.size;
      if (2 * p + 1 < runs.size()) size += runs[2 * p + 1].size;
      if (limit >= 0) size = std::min(size, limit);
      merged[p] = {a.offset, size};
      for (int64_t k = 0; k < size; k += piece_items) {
        pieces.push_back({static_cast<int64_t>(p), k, std::min(size, k + piece_items)});
      }
    }
    TANDEM_RETURN_NOT_OK(
        pool.ParallelFor(static_cast<int64_t>(pieces.size()), [&](int64_t t) -> Status {
          const Piece& piece = pieces[t];
          const size_t p = static_cast<size_t>(piece.pair);
          Item* out = next.get() + merged[p].offset;
          const Run& ra = runs[2 * p];
          const Item* a = cur.get() + ra.offset;
          if (2 * p + 1 >= runs.size()) {  // the odd run out: copied to the next level
            std::copy(a + piece.begin, a + piece.end, out + piece.begin);
            return Status::OK();
          }
          const Run& rb = runs[2 * p + 1];
          const Item* b = cur.get() + rb.offset;
          int64_t i = CoRank(piece.begin, a, ra.size, b, rb.size, less);
          int64_t j = piece.begin - i;
          const int64_t i_end = CoRank(piece.end, a, ra.size, b, rb.size, less);
          const int64_t j_end = piece.end - i_end;
          for (int64_t o = piece.begin; o < piece.end; ++o) {
            if (j >= j_end || (i < i_end && !less(b[j], a[i]))) {
              out[o] = a[i++];
            } else {
              out[o] = b[j++];
            }
          }
          return Status::OK();
        }));
    cur.swap(next);
    runs = std::move(merged);
  }
  const Item* sorted = cur.get() + runs[0].offset;
  const int64_t count = runs[0].size;
  refs.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) refs[i] = sorted[i].ref;
  if (changes && !tail) MarkItemChanges<K>(sorted, count, changes);
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
