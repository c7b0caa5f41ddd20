// The host's check of a compressed page's framing before GPU decompression
// (io/parquet/gpu/page_framing.h), on pages the host codecs wrote: a page agrees with its own
// size; a header size one off, a cut GZIP member, a foreign magic number and an empty page do not.
#include <gtest/gtest.h>

#include <string>

#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/gpu/page_framing.h"

namespace tandem::parquet::gpu_decode {
namespace {

std::string Packed(CompressionCodec codec, const std::string& plain) {
  std::string out;
  EXPECT_TRUE(Compress(codec, reinterpret_cast<const uint8_t*>(plain.data()),
                       static_cast<int64_t>(plain.size()), &out, 3)
                  .ok());
  return out;
}

Status Check(CompressionCodec codec, const std::string& packed, int64_t out_bytes) {
  return CheckPageFraming(codec, reinterpret_cast<const uint8_t*>(packed.data()),
                          static_cast<int64_t>(packed.size()), out_bytes);
}

TEST(PageFraming, PagesAgreeWithTheirOwnSizeAndNotWithAnother) {
  for (int64_t size : {1, 300, 70000, 1 << 20}) {
    std::string plain(static_cast<size_t>(size), '\0');
    for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<char>('a' + i % 23);
    for (CompressionCodec codec :
         {CompressionCodec::SNAPPY, CompressionCodec::ZSTD, CompressionCodec::GZIP}) {
      const std::string packed = Packed(codec, plain);
      EXPECT_TRUE(Check(codec, packed, size).ok()) << CodecName(codec) << " " << size;
      const Status off = Check(codec, packed, size + 1);
      EXPECT_FALSE(off.ok()) << CodecName(codec) << " " << size;
      EXPECT_NE(off.message().find("its header says " + std::to_string(size + 1)),
                std::string::npos)
          << off.ToString();
    }
  }
}

TEST(PageFraming, ACutGzipMemberAndForeignBytesFail) {
  const std::string plain(5000, 'g');
  const std::string gzip = Packed(CompressionCodec::GZIP, plain);
  EXPECT_FALSE(Check(CompressionCodec::GZIP, gzip.substr(0, gzip.size() / 2), 5000).ok());
  const std::string snappy = Packed(CompressionCodec::SNAPPY, plain);
  EXPECT_FALSE(Check(CompressionCodec::ZSTD, snappy, 5000).ok());
  EXPECT_FALSE(Check(CompressionCodec::GZIP, snappy, 5000).ok());
  EXPECT_FALSE(Check(CompressionCodec::SNAPPY, std::string("\xff\xff\xff\xff\xff\xff", 6), 5).ok());
  EXPECT_FALSE(Check(CompressionCodec::SNAPPY, std::string(), 5).ok());
  // LZ4_RAW has no framing: nvCOMP checks it.
  EXPECT_TRUE(
      Check(CompressionCodec::LZ4_RAW, Packed(CompressionCodec::LZ4_RAW, plain), 5000).ok());
}

}  // namespace
}  // namespace tandem::parquet::gpu_decode
