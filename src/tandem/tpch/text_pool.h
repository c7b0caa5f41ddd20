// The pseudo-text of TPC-H clause 4.2.2.10: sentences produced by the specification's small
// English grammar (noun phrases, verb phrases, prepositional phrases, terminators) with its word
// weights. Comment columns are substrings of this text at a random offset with a random length,
// as in the specification (which uses 300 MB of text; 16 MiB here keeps start-up instant while
// leaving millions of distinct substrings).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tandem::tpch {

class TextPool {
 public:
  // The process-wide pool, built on first use (thread-safe) from a fixed seed.
  static const TextPool& Instance();

  // A "text string [min_len, max_len]": length uniform in [min_len, max_len], start offset uniform.
  // Deterministic in (stream, row). max_len must be far below size().
  std::string_view Text(uint64_t stream, uint64_t row, int min_len, int max_len) const;

  std::string_view text() const { return text_; }
  int64_t size() const { return static_cast<int64_t>(text_.size()); }

  // Builds a pool of at least `bytes` characters (exposed for tests).
  explicit TextPool(int64_t bytes);

 private:
  std::string text_;
};

}  // namespace tandem::tpch
