// Parquet decoders against the examples of the Parquet encoding specification (Encodings.md):
// RLE/bit-packed hybrid, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, DELTA_BYTE_ARRAY; plus the
// bounds checks that turn damaged input into errors.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tandem/io/parquet/decode/convert.h"
#include "tandem/io/parquet/decode/delta.h"
#include "tandem/io/parquet/decode/rle_decoder.h"

namespace tandem::parquet::decode {
namespace {

TEST(ParquetDecode, RleBitPackedHybridSpecExample) {
  // Spec: bit-packed run of 0..7 at bit width 3 is 0x88 0xC6 0xFA (header 1 group = 0x03);
  // then a repeated run of five 4s: header 5 << 1 = 0x0a, value in one byte.
  const std::vector<uint8_t> data = {0x03, 0x88, 0xc6, 0xfa, 0x0a, 0x04};
  RleBitPackedDecoder dec(data.data(), data.size(), 3);
  std::vector<uint32_t> out(13);
  ASSERT_TRUE(dec.GetBatch(out.data(), 13).ok());
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
  for (int i = 8; i < 13; ++i) EXPECT_EQ(out[i], 4u);
  uint32_t extra;
  EXPECT_FALSE(dec.GetBatch(&extra, 1).ok());  // runs exhausted
}

TEST(ParquetDecode, RleRejectsTruncatedRuns) {
  const std::vector<uint8_t> data = {0x05};  // bit-packed, 2 groups, no bytes
  RleBitPackedDecoder dec(data.data(), data.size(), 8);
  std::vector<uint8_t> out(16);
  EXPECT_FALSE(dec.GetBatch(out.data(), 16).ok());
  const std::vector<uint8_t> repeat = {0x08};  // repeated run of 4 with its value missing
  RleBitPackedDecoder dec2(repeat.data(), repeat.size(), 8);
  EXPECT_FALSE(dec2.GetBatch(out.data(), 4).ok());
}

TEST(ParquetDecode, DeltaBinaryPackedSpecExamples) {
  // Example 1: 1 2 3 4 5 -> block 128, 4 miniblocks, 5 values, first 1; min delta 1, widths 0.
  const std::vector<uint8_t> ex1 = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
  DeltaBinaryPackedDecoder d1;
  ASSERT_TRUE(d1.Init(ex1.data(), ex1.size(), 64).ok());
  std::vector<int64_t> v1(5);
  ASSERT_TRUE(d1.Decode(v1.data(), 5).ok());
  EXPECT_EQ(v1, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  // Example 2: 7 5 3 1 2 3 4 5 -> min delta -2, relative deltas 0 0 0 3 3 3 3 at width 2.
  std::vector<uint8_t> ex2 = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 2, 0, 0, 0, 0xc0, 0x3f};
  ex2.resize(ex2.size() + 6, 0);  // the rest of the 32-value miniblock (8 bytes in all)
  DeltaBinaryPackedDecoder d2;
  ASSERT_TRUE(d2.Init(ex2.data(), ex2.size(), 32).ok());
  std::vector<int32_t> v2(8);
  ASSERT_TRUE(d2.Decode(v2.data(), 8).ok());
  EXPECT_EQ(v2, (std::vector<int32_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(d2.position(), ex2.data() + ex2.size());
  // Truncating the miniblock, or a bit width above 32 for int32, is an error.
  DeltaBinaryPackedDecoder d3;
  ASSERT_TRUE(d3.Init(ex2.data(), 11, 32).ok());
  EXPECT_FALSE(d3.Decode(v2.data(), 8).ok());
  std::vector<uint8_t> wide = ex2;
  wide[6] = 33;
  DeltaBinaryPackedDecoder d4;
  ASSERT_TRUE(d4.Init(wide.data(), wide.size(), 32).ok());
  EXPECT_FALSE(d4.Decode(v2.data(), 8).ok());
  const std::vector<uint8_t> bad_block = {0x81, 0x01, 0x04, 0x05, 0x02};  // block size 129
  DeltaBinaryPackedDecoder d5;
  EXPECT_FALSE(d5.Init(bad_block.data(), bad_block.size(), 64).ok());
}

TEST(ParquetDecode, DeltaByteArrayPrefixes) {
  // "axis", "axle", "babble", "babyhood": prefixes 0 2 0 3, suffixes axis le babble yhood.
  auto dbp = [](std::vector<int> vals) {
    // Block of 128 with 1 miniblock; deltas stored at width 8 relative to the minimum delta.
    std::vector<uint8_t> out = {0x80, 0x01, 0x01, static_cast<uint8_t>(vals.size())};
    auto zz = [](int v) { return static_cast<uint8_t>((v << 1) ^ (v >> 31)); };
    out.push_back(zz(vals[0]));
    int min_delta = 1000;
    for (size_t i = 1; i < vals.size(); ++i) min_delta = std::min(min_delta, vals[i] - vals[i - 1]);
    out.push_back(zz(min_delta));
    out.push_back(8);
    for (size_t i = 1; i < vals.size(); ++i) out.push_back(vals[i] - vals[i - 1] - min_delta);
    out.resize(out.size() + (128 - (vals.size() - 1)), 0);
    return out;
  };
  std::vector<uint8_t> data = dbp({0, 2, 0, 3});
  const std::vector<uint8_t> lens = dbp({4, 2, 6, 5});
  data.insert(data.end(), lens.begin(), lens.end());
  for (char c : std::string("axislebabbleyhood")) data.push_back(c);
  ByteArrays out;
  ASSERT_TRUE(DecodeDeltaByteArray(data.data(), data.size(), 4, &out).ok());
  const char* expected[] = {"axis", "axle", "babble", "babyhood"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.base) + out.offsets[i],
                          out.offsets[i + 1] - out.offsets[i]),
              expected[i]);
  }
  data.resize(data.size() - 3);  // suffix bytes cut short
  EXPECT_FALSE(DecodeDeltaByteArray(data.data(), data.size(), 4, &out).ok());
}

TEST(ParquetDecode, ByteStreamSplitFloats) {
  const float values[3] = {1.5f, -2.25f, 1e30f};
  uint8_t raw[12], split[12], back[12];
  std::memcpy(raw, values, 12);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) split[k * 3 + i] = raw[i * 4 + k];
  }
  ASSERT_TRUE(DecodeByteStreamSplit(split, 12, 4, 3, back).ok());
  EXPECT_EQ(std::memcmp(back, raw, 12), 0);
  EXPECT_FALSE(DecodeByteStreamSplit(split, 11, 4, 2, back).ok());  // not a multiple of 4
  EXPECT_FALSE(DecodeByteStreamSplit(split, 12, 4, 4, back).ok());  // too few values
}

TEST(ParquetDecode, BigEndianDecimalsAndOverflow) {
  // FIXED_LEN_BYTE_ARRAY(3) decimals: 0x0001f4 = 500, 0xfffe0c = -500.
  const uint8_t be[6] = {0x00, 0x01, 0xf4, 0xff, 0xfe, 0x0c};
  int64_t out[2];
  ASSERT_TRUE(
      ConvertFixed(Conversion::kFixedDecimal, be, 2, 3, 8, reinterpret_cast<uint8_t*>(out)).ok());
  EXPECT_EQ(out[0], 500);
  EXPECT_EQ(out[1], -500);
  // A 9-byte value beyond int64 does not fit a 64-bit decimal.
  const uint8_t big[9] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(
      ConvertFixed(Conversion::kFixedDecimal, big, 1, 9, 8, reinterpret_cast<uint8_t*>(out)).ok());
}

}  // namespace
}  // namespace tandem::parquet::decode
