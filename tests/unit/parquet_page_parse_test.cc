// The page parse shared by the host staging and a GPU page parse (io/parquet/gpu/page_parse.h,
// hybrid_runs.h), on the host: hybrid streams written by Tandem's encoder at every bit width and
// with runs of every length, read back through the run tables and compared with the host's
// RleBitPackedDecoder; definition levels counted and checked against the maximum; values
// sections of each encoding; and cut or damaged data, which must give an error code (never a
// read outside the data: the ASan tier runs this).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tandem/io/parquet/decode/rle_decoder.h"
#include "tandem/io/parquet/encode/rle_encoder.h"
#include "tandem/io/parquet/gpu/page_parse.h"

namespace tandem::parquet::gpu_decode {
namespace {

// Values with runs: stretches of one value (lengths 1-40) and of random values.
std::vector<uint32_t> RunnyValues(int64_t n, int bit_width, std::mt19937_64& rng) {
  const uint64_t limit = bit_width == 32 ? (uint64_t{1} << 32) : (uint64_t{1} << bit_width);
  std::vector<uint32_t> v;
  while (static_cast<int64_t>(v.size()) < n) {
    const int64_t len = 1 + static_cast<int64_t>(rng() % 40);
    const bool same = rng() % 2 == 0;
    const uint32_t x = static_cast<uint32_t>(rng() % limit);
    for (int64_t i = 0; i < len && static_cast<int64_t>(v.size()) < n; ++i) {
      v.push_back(same ? x : static_cast<uint32_t>(rng() % limit));
    }
  }
  return v;
}

// The value at dense index d of a run table over `data` (payload bit offsets from data).
uint32_t ValueAt(const std::vector<ValueRun>& runs, const uint8_t* data, int64_t d) {
  size_t r = 0;
  while (r + 1 < runs.size() && runs[r + 1].first <= d) ++r;
  const ValueRun& run = runs[r];
  if (run.kind == RunKind::kRepeat) return static_cast<uint32_t>(run.payload);
  return PackedBits(data, run.payload + (d - run.first) * run.bit_width, run.bit_width);
}

TEST(ParquetPageParse, HybridRunsReadBackLikeTheHostDecoder) {
  std::mt19937_64 rng(7);
  for (int width = 1; width <= 32; ++width) {
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{1000}}) {
      SCOPED_TRACE("width " + std::to_string(width) + ", " + std::to_string(n) + " values");
      const std::vector<uint32_t> values = RunnyValues(n, width, rng);
      std::string encoded;
      EncodeRleBitPacked(values.data(), n, width, &encoded);
      encoded.append(8, '\0');  // PackedBits reads whole bytes past a value's last bit
      const auto* data = reinterpret_cast<const uint8_t*>(encoded.data());
      std::vector<ValueRun> runs;
      const HybridRunError e =
          ParseHybridRuns(data, static_cast<int64_t>(encoded.size()) - 8, 0, width, n, 0, -1,
                          [&](const ValueRun& run) { runs.push_back(run); });
      ASSERT_EQ(e, HybridRunError::kNone) << HybridRunErrorText(e);
      decode::RleBitPackedDecoder host(data, static_cast<int64_t>(encoded.size()) - 8, width);
      std::vector<uint32_t> want(static_cast<size_t>(n));
      ASSERT_TRUE(host.GetBatch(want.data(), n).ok());
      ASSERT_EQ(want, values);
      for (int64_t d = 0; d < n; ++d) ASSERT_EQ(ValueAt(runs, data, d), values[d]) << "value " << d;
    }
  }
}

TEST(ParquetPageParse, LevelsCountTheDefinedRowsAndCheckTheMaximum) {
  std::mt19937_64 rng(8);
  for (int max_def : {1, 2, 3}) {
    const int width = max_def == 1 ? 1 : 2;
    std::vector<uint32_t> levels = RunnyValues(3000, width, rng);
    for (uint32_t& l : levels) l = l % (max_def + 1);
    std::string encoded;
    EncodeRleBitPacked(levels.data(), static_cast<int64_t>(levels.size()), width, &encoded);
    encoded.append(8, '\0');
    const auto* data = reinterpret_cast<const uint8_t*>(encoded.data());
    const auto size = static_cast<int64_t>(encoded.size()) - 8;
    std::vector<ValueRun> runs;
    int64_t defined = -1;
    int64_t covered = 0;
    PageParseResult r = ParseLevels(data, size, 0, data, max_def, width, 3000, &defined,
                                    [&](const ValueRun& run, int64_t rows) {
                                      runs.push_back(run);
                                      covered += rows;
                                    });
    ASSERT_EQ(r.error, PageParseError::kNone);
    int64_t want = 0;
    for (uint32_t l : levels) want += l == static_cast<uint32_t>(max_def);
    EXPECT_EQ(defined, want) << "max_def " << max_def;
    EXPECT_EQ(covered, 3000);  // the runs cover the page's rows exactly
    for (int64_t row = 0; row < 3000; ++row) ASSERT_EQ(ValueAt(runs, data, row), levels[row]);
    if (max_def >= 2) {  // the same levels read against a lower maximum: some are above it
      r = ParseLevels(data, size, 0, data, max_def - 1, width, 3000, &defined,
                      [](const ValueRun&, int64_t) {});
      EXPECT_EQ(r.error, PageParseError::kLevelAboveMaximum);
    }
  }
}

TEST(ParquetPageParse, SetBitsAreCountedAtEveryOffsetAndLength) {
  std::mt19937_64 rng(10);
  std::vector<uint8_t> bytes(64);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  for (int64_t bit = 0; bit < 80; ++bit) {
    for (int64_t count = 0; bit + count <= 64 * 8 - 8; count += 1 + count / 3) {
      int64_t want = 0;
      for (int64_t i = bit; i < bit + count; ++i) want += (bytes[i >> 3] >> (i & 7)) & 1;
      ASSERT_EQ(CountSetBits(bytes.data(), bit, count), want) << bit << " " << count;
    }
  }
}

TEST(ParquetPageParse, ValuesSectionsOfEachEncoding) {
  auto collect = [](PageEncoding enc, ValueShape shape, const std::string& bytes, int64_t n,
                    int width, int64_t dictionary, std::vector<ValueRun>* runs,
                    std::vector<int64_t>* positions) {
    return ParseValues(
        enc, shape, reinterpret_cast<const uint8_t*>(bytes.data()),
        static_cast<int64_t>(bytes.size()), 100, n, 50, 3, width, dictionary,
        [&](const ValueRun& run) { runs->push_back(run); },
        [&](int64_t p) { positions->push_back(p); });
  };
  std::vector<ValueRun> runs;
  std::vector<int64_t> positions;
  // PLAIN fixed: one run at the section's staging offset, numbered from first_dense.
  PageParseResult r = collect(PageEncoding::kPlain, ValueShape::kFixed, std::string(40, 'x'), 5, 8,
                              -1, &runs, &positions);
  ASSERT_EQ(r.error, PageParseError::kNone);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, 50);
  EXPECT_EQ(runs[0].payload, 100);
  EXPECT_EQ(runs[0].kind, RunKind::kPlain);
  runs.clear();
  EXPECT_EQ(collect(PageEncoding::kPlain, ValueShape::kFixed, std::string(39, 'x'), 5, 8, -1, &runs,
                    &positions)
                .error,
            PageParseError::kPlainTooShort);
  // PLAIN byte arrays: each value's bytes, after its 4-byte length.
  std::string strings;
  for (const std::string s : {"ab", "", "xyz"}) {
    const auto len = static_cast<uint32_t>(s.size());
    strings.append(reinterpret_cast<const char*>(&len), 4);
    strings += s;
  }
  runs.clear();
  r = collect(PageEncoding::kPlain, ValueShape::kStrings, strings, 3, 0, -1, &runs, &positions);
  ASSERT_EQ(r.error, PageParseError::kNone);
  EXPECT_EQ(positions, (std::vector<int64_t>{104, 110, 114}));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].payload, 3);
  positions.clear();
  EXPECT_EQ(
      collect(PageEncoding::kPlain, ValueShape::kStrings, strings, 4, 0, -1, &runs, &positions)
          .error,
      PageParseError::kByteArraysEndEarly);
  strings[0] = 100;  // the first length past the section
  EXPECT_EQ(
      collect(PageEncoding::kPlain, ValueShape::kStrings, strings, 3, 0, -1, &runs, &positions)
          .error,
      PageParseError::kByteArrayTooLong);
  // Dictionary indexes: the bit width byte, then hybrid runs whose payloads count from the
  // staging offset of the byte after it; repeated indexes past the dictionary are an error.
  const std::vector<uint32_t> indexes = {3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 2};
  std::string dict(1, '\x02');
  EncodeRleBitPacked(indexes.data(), 11, 2, &dict);
  runs.clear();
  r = collect(PageEncoding::kRleDictionary, ValueShape::kStrings, dict, 11, 0, 4, &runs,
              &positions);
  ASSERT_EQ(r.error, PageParseError::kNone);
  ASSERT_GE(runs.size(), 2u);
  EXPECT_EQ(runs[0].kind, RunKind::kRepeat);
  EXPECT_EQ(runs[0].payload, 3);
  EXPECT_EQ(runs[1].kind, RunKind::kPacked);
  EXPECT_GE(runs[1].payload, 101 * 8);
  r = collect(PageEncoding::kRleDictionary, ValueShape::kFixed, dict, 11, 4, 3, &runs, &positions);
  EXPECT_EQ(r.error, PageParseError::kRuns);
  EXPECT_EQ(r.runs, HybridRunError::kIndexOutOfRange);
  EXPECT_EQ(
      collect(PageEncoding::kRleDictionary, ValueShape::kFixed, dict, 11, 4, -1, &runs, &positions)
          .error,
      PageParseError::kNoDictionary);
  EXPECT_EQ(
      collect(PageEncoding::kRleDictionary, ValueShape::kBool, dict, 11, 0, 4, &runs, &positions)
          .error,
      PageParseError::kDictionaryBooleans);
  // Booleans: PLAIN is one bit-packed run; RLE has a 4-byte length first.
  runs.clear();
  r = collect(PageEncoding::kPlain, ValueShape::kBool, std::string(2, '\x55'), 16, 0, -1, &runs,
              &positions);
  ASSERT_EQ(r.error, PageParseError::kNone);
  EXPECT_EQ(runs[0].payload, 800);
  EXPECT_EQ(runs[0].bit_width, 1);
  EXPECT_EQ(collect(PageEncoding::kPlain, ValueShape::kBool, std::string(2, '\x55'), 17, 0, -1,
                    &runs, &positions)
                .error,
            PageParseError::kPlainBooleansTooShort);
  EXPECT_EQ(collect(PageEncoding::kRle, ValueShape::kBool, std::string(3, '\0'), 1, 0, -1, &runs,
                    &positions)
                .error,
            PageParseError::kRleBooleansWithoutLength);
  EXPECT_EQ(collect(PageEncoding::kRle, ValueShape::kFixed, std::string(8, '\0'), 1, 4, -1, &runs,
                    &positions)
                .error,
            PageParseError::kEncoding);
}

TEST(ParquetPageParse, CutOrDamagedStreamsGiveAnErrorCode) {
  std::mt19937_64 rng(9);
  const std::vector<uint32_t> values = RunnyValues(500, 5, rng);
  std::string encoded;
  EncodeRleBitPacked(values.data(), 500, 5, &encoded);
  int errors = 0;
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    // Exactly `cut` bytes, in a buffer of their own, so ASan sees any read past them.
    std::vector<uint8_t> bytes(encoded.begin(), encoded.begin() + static_cast<int64_t>(cut));
    const HybridRunError e = ParseHybridRuns(bytes.data(), static_cast<int64_t>(cut), 0, 5, 500, 0,
                                             -1, [](const ValueRun&) {});
    errors += e != HybridRunError::kNone;
  }
  EXPECT_EQ(errors, static_cast<int>(encoded.size()));
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes(encoded.begin(), encoded.end());
    bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    std::vector<ValueRun> runs;
    const HybridRunError e =
        ParseHybridRuns(bytes.data(), static_cast<int64_t>(bytes.size()), 0, 5, 500, 0, 20,
                        [&](const ValueRun& run) { runs.push_back(run); });
    if (e != HybridRunError::kNone) continue;
    ASSERT_FALSE(runs.empty());  // a parse that succeeds covers the values with runs in order
    for (size_t k = 1; k < runs.size(); ++k) ASSERT_GT(runs[k].first, runs[k - 1].first);
    for (const ValueRun& run : runs) {
      if (run.kind == RunKind::kRepeat) ASSERT_LT(run.payload, 20);
      if (run.kind == RunKind::kPacked)
        ASSERT_LT(run.payload, static_cast<int64_t>(bytes.size()) * 8);
    }
  }
}

}  // namespace
}  // namespace tandem::parquet::gpu_decode
