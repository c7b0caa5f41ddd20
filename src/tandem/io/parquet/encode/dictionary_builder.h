// DictionaryBuilder: assigns dense indexes to distinct values (open addressing over the value
// hashes, linear probing, slots hold index + 1) and tracks the PLAIN size of the dictionary so
// the chunk encoder can fall back to PLAIN when it grows past the page size limit.
// Byte-array entries are views into the column being written, which outlives the builder.
#pragma once

#include <cstdint>
#include <vector>

namespace tandem::parquet {

template <typename Ops>
class DictionaryBuilder {
 public:
  using Value = typename Ops::Value;

  explicit DictionaryBuilder(const Ops& ops) : ops_(ops) { Rehash(1024); }

  uint32_t GetOrInsert(const Value& v) {
    uint64_t slot = ops_.Hash(v) & mask_;
    while (true) {
      const uint32_t s = slots_[slot];
      if (s == 0) break;
      if (ops_.Same(values_[s - 1], v)) return s - 1;
      slot = (slot + 1) & mask_;
    }
    const uint32_t index = static_cast<uint32_t>(values_.size());
    values_.push_back(v);
    slots_[slot] = index + 1;
    plain_bytes_ += ops_.PlainSize(v);
    if (values_.size() * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return index;
  }

  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  int64_t plain_bytes() const { return plain_bytes_; }
  const std::vector<Value>& values() const { return values_; }

 private:
  void Rehash(size_t capacity) {
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (size_t i = 0; i < values_.size(); ++i) {
      uint64_t slot = ops_.Hash(values_[i]) & mask_;
      while (slots_[slot] != 0) slot = (slot + 1) & mask_;
      slots_[slot] = static_cast<uint32_t>(i + 1);
    }
  }

  Ops ops_;
  std::vector<uint32_t> slots_;
  uint64_t mask_ = 0;
  std::vector<Value> values_;
  int64_t plain_bytes_ = 0;
};

}  // namespace tandem::parquet
