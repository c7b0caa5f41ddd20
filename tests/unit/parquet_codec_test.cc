// Page codecs: every codec round-trips through Compress/Decompress, wrong sizes and damaged input
// are errors, concatenated gzip members and both LZ4 framings decode (zlib/lz4 libraries as the
// independent encoders).
#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "tandem/io/parquet/codec.h"

namespace tandem::parquet {
namespace {

std::string SampleData() {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "value " + std::to_string(i % 97) + ";";
  return s;
}

const CompressionCodec kCodecs[] = {CompressionCodec::UNCOMPRESSED, CompressionCodec::SNAPPY,
                                    CompressionCodec::GZIP,         CompressionCodec::ZSTD,
                                    CompressionCodec::LZ4_RAW,      CompressionCodec::LZ4,
                                    CompressionCodec::BROTLI};

TEST(ParquetCodec, RoundTripsEveryCodec) {
  const std::string in = SampleData();
  for (CompressionCodec codec : kCodecs) {
    std::string compressed = "prefix";
    ASSERT_TRUE(
        Compress(codec, reinterpret_cast<const uint8_t*>(in.data()), in.size(), &compressed).ok());
    ASSERT_EQ(compressed.substr(0, 6), "prefix");  // appends
    const auto* c = reinterpret_cast<const uint8_t*>(compressed.data()) + 6;
    const int64_t csize = compressed.size() - 6;
    std::string out(in.size(), '\0');
    Status st = Decompress(codec, c, csize, reinterpret_cast<uint8_t*>(out.data()), out.size());
    ASSERT_TRUE(st.ok()) << CodecName(codec) << ": " << st.ToString();
    EXPECT_EQ(out, in) << CodecName(codec);
    // Announcing a different size is an error, never a silent short read.
    std::string wrong(in.size() + 5, '\0');
    EXPECT_FALSE(
        Decompress(codec, c, csize, reinterpret_cast<uint8_t*>(wrong.data()), wrong.size()).ok())
        << CodecName(codec);
    if (codec != CompressionCodec::UNCOMPRESSED) {
      std::string damaged(reinterpret_cast<const char*>(c), csize / 2);
      EXPECT_FALSE(Decompress(codec, reinterpret_cast<const uint8_t*>(damaged.data()),
                              damaged.size(), reinterpret_cast<uint8_t*>(out.data()), out.size())
                       .ok())
          << CodecName(codec);
    }
  }
  EXPECT_FALSE(CodecSupported(CompressionCodec::LZO));
}

TEST(ParquetCodec, ConcatenatedGzipMembers) {
  const std::string a = "first member;", b = "second member";
  std::string both;
  for (const std::string* part : {&a, &b}) {
    z_stream zs{};
    ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(256, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part->data()));
    zs.avail_in = part->size();
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = out.size();
    ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(out.size() - zs.avail_out);
    deflateEnd(&zs);
    both += out;
  }
  std::string out(a.size() + b.size(), '\0');
  ASSERT_TRUE(Decompress(CompressionCodec::GZIP, reinterpret_cast<const uint8_t*>(both.data()),
                         both.size(), reinterpret_cast<uint8_t*>(out.data()), out.size())
                  .ok());
  EXPECT_EQ(out, a + b);
}

TEST(ParquetCodec, HadoopLz4BlocksAndRawFallback) {
  const std::string part1 = SampleData().substr(0, 3000), part2 = SampleData().substr(100, 2000);
  auto block = [](const std::string& raw) {
    std::string c(LZ4_compressBound(raw.size()), '\0');
    c.resize(LZ4_compress_default(raw.data(), c.data(), raw.size(), c.size()));
    return c;
  };
  auto be32 = [](uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  };
  // Two Hadoop frames back to back.
  const std::string c1 = block(part1), c2 = block(part2);
  const std::string framed =
      be32(part1.size()) + be32(c1.size()) + c1 + be32(part2.size()) + be32(c2.size()) + c2;
  std::string out(part1.size() + part2.size(), '\0');
  ASSERT_TRUE(Decompress(CompressionCodec::LZ4, reinterpret_cast<const uint8_t*>(framed.data()),
                         framed.size(), reinterpret_cast<uint8_t*>(out.data()), out.size())
                  .ok());
  EXPECT_EQ(out, part1 + part2);
  // A bare LZ4 block under the LZ4 codec (what some writers produced) still decodes.
  std::string raw_out(part1.size(), '\0');
  ASSERT_TRUE(Decompress(CompressionCodec::LZ4, reinterpret_cast<const uint8_t*>(c1.data()),
                         c1.size(), reinterpret_cast<uint8_t*>(raw_out.data()), raw_out.size())
                  .ok());
  EXPECT_EQ(raw_out, part1);
}

}  // namespace
}  // namespace tandem::parquet
