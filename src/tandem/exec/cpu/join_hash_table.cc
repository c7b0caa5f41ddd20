// Parallel partitioned build of the join hash table (see join_hash_table.h).
#include "tandem/exec/cpu/join_hash_table.h"

#include <bit>

#include "tandem/common/thread_pool.h"

namespace tandem::cpu {

Result<JoinHashTable> JoinHashTable::Build(const KeyLayout& layout,
                                           const std::vector<Morsel>& morsels,
                                           const std::vector<std::vector<ColumnPtr>>& key_columns) {
  JoinHashTable t;
  ThreadPool& pool = ThreadPool::Default();
  const int64_t num_morsels = static_cast<int64_t>(morsels.size());
  t.single_word_ = layout.fixed() && layout.stride() == 8;
  const bool single_word = t.single_word_;

  // 1. Encode every morsel's keys.
  std::vector<std::unique_ptr<EncodedKeys>> encoded(morsels.size());
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    encoded[m] =
        std::make_unique<EncodedKeys>(layout, key_columns[m], morsels[m].begin, morsels[m].end);
    return Status::OK();
  }));
  int64_t total = 0;
  for (int64_t m = 0; m < num_morsels; ++m) {
    const EncodedKeys& k = *encoded[m];
    for (int64_t i = 0; i < k.num_rows(); ++i) {
      if (k.is_null(i)) {
        t.null_key_refs_.push_back(PackRowRef(morsels[m].batch, morsels[m].begin + i));
      } else {
        ++total;
      }
    }
  }

  // 2. Directory size and partitions (by the top bits of the hash).
  const int log2_buckets = std::max(
      4, static_cast<int>(std::bit_width(static_cast<uint64_t>(std::max<int64_t>(total, 1) - 1))));
  const int64_t num_buckets = int64_t{1} << log2_buckets;
  t.shift_ = 64 - log2_buckets;
  const int log2_parts = std::min(log2_buckets, 8);
  const int64_t num_parts = int64_t{1} << log2_parts;
  const int part_shift = 64 - log2_parts;
  auto hash_of = [&](const EncodedKeys& k, int64_t i) { return k.hash(i); };

  std::vector<int64_t> hist(static_cast<size_t>(num_morsels * num_parts), 0);
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    const EncodedKeys& k = *encoded[m];
    int64_t* h = hist.data() + m * num_parts;
    for (int64_t i = 0; i < k.num_rows(); ++i) {
      if (!k.is_null(i)) ++h[hash_of(k, i) >> part_shift];
    }
    return Status::OK();
  }));
  std::vector<int64_t> part_base(static_cast<size_t>(num_parts + 1), 0);
  std::vector<int64_t> write_pos(hist.size());
  {
    int64_t pos = 0;
    for (int64_t p = 0; p < num_parts; ++p) {
      part_base[p] = pos;
      for (int64_t m = 0; m < num_morsels; ++m) {
        write_pos[m * num_parts + p] = pos;
        pos += hist[m * num_parts + p];
      }
    }
    part_base[num_parts] = pos;
  }

  // 3. Scatter into partitions.
  // Every slot of these arrays and of the entries below is written exactly once (total counts
  // the rows entered), so none is zero-filled first.
  GrowArray<uint64_t> tmp_key;
  GrowArray<int64_t> tmp_ref;
  GrowArray<const uint8_t*> tmp_ptr;
  GrowArray<int64_t> tmp_len;
  tmp_key.resize_for_overwrite(total);
  tmp_ref.resize_for_overwrite(total);
  if (!single_word) {
    tmp_ptr.resize_for_overwrite(total);
    tmp_len.resize_for_overwrite(total);
  }
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_morsels, [&](int64_t m) -> Status {
    const EncodedKeys& k = *encoded[m];
    int64_t* wp = write_pos.data() + m * num_parts;
    for (int64_t i = 0; i < k.num_rows(); ++i) {
      if (k.is_null(i)) continue;
      const uint64_t h = hash_of(k, i);
      const int64_t at = wp[h >> part_shift]++;
      tmp_ref[at] = PackRowRef(morsels[m].batch, morsels[m].begin + i);
      if (single_word) {
        tmp_key[at] = k.word(i);
      } else {
        tmp_key[at] = h;
        tmp_ptr[at] = k.row_data(i);
        tmp_len[at] = k.row_size(i);
      }
    }
    return Status::OK();
  }));

  // 4. Counting sort of each partition by bucket.
  // The directory's counts are zeroed by the partition that owns them, in parallel.
  t.bucket_start_.resize_for_overwrite(num_buckets + 1);
  t.entry_key_.resize_for_overwrite(total);
  t.entry_ref_.resize_for_overwrite(total);
  if (!single_word) {
    t.entry_ptr_.resize_for_overwrite(total);
    t.entry_len_.resize_for_overwrite(total);
  }
  const int64_t buckets_per_part = num_buckets / num_parts;
  const int shift = t.shift_;
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(num_parts, [&](int64_t p) -> Status {
    const int64_t begin = part_base[p];
    const int64_t end = part_base[p + 1];
    const int64_t first_bucket = p * buckets_per_part;
    int64_t* start = t.bucket_start_.data() + first_bucket;
    std::fill(start, start + buckets_per_part, int64_t{0});
    auto bucket_of = [&](int64_t at) {
      const uint64_t h = single_word ? MixHash64(tmp_key[at]) : tmp_key[at];
      return static_cast<int64_t>(h >> shift) - first_bucket;
    };
    for (int64_t at = begin; at < end; ++at) ++start[bucket_of(at)];
    int64_t pos = begin;
    for (int64_t b = 0; b < buckets_per_part; ++b) {
      const int64_t c = start[b];
      start[b] = pos;
      pos += c;
    }
    std::vector<int64_t> cursor(start, start + buckets_per_part);
    for (int64_t at = begin; at < end; ++at) {
      const int64_t dst = cursor[bucket_of(at)]++;
      t.entry_key_[dst] = tmp_key[at];
      t.entry_ref_[dst] = tmp_ref[at];
      if (!single_word) {
        t.entry_ptr_[dst] = tmp_ptr[at];
        t.entry_len_[dst] = tmp_len[at];
      }
    }
    return Status::OK();
  }));
  t.bucket_start_[num_buckets] = total;
  t.chunks_.reserve(encoded.size());
  // The encoded keys must outlive entry_ptr_: move them (their heap buffers do not move).
  for (auto& e : encoded) t.chunks_.push_back(std::move(*e));
  int64_t bytes = t.bucket_start_.heap_bytes() + t.entry_key_.heap_bytes() +
                  t.entry_ref_.heap_bytes() + t.entry_ptr_.heap_bytes() +
                  t.entry_len_.heap_bytes() + HeapBytes(t.null_key_refs_);
  for (const EncodedKeys& e : t.chunks_) bytes += e.HeapBytes();
  t.charge_.Set(bytes);
  return t;
}

}  // namespace tandem::cpu
