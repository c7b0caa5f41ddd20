// Parquet pages decompressed on the GPU by nvCOMP (io/parquet/gpu/page_decompress.h) against the
// host codecs (io/parquet/codec.h) that wrote them: for SNAPPY, ZSTD, LZ4_RAW and GZIP, a batch of
// pages of many sizes and kinds (one byte, text, runs, random bytes that do not compress, 1 MiB)
// comes back byte for byte into output buffers filled with other bytes first; a page whose header
// size is wrong, and a truncated page where that is defined (LZ4_RAW: nvCOMP's status; GZIP: its
// trailer, checked on the host), are errors naming the page, never a crash; codecs nvCOMP does not
// read as Parquet writes them say so.
#include "tandem/io/parquet/gpu/page_decompress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "tandem/io/parquet/codec.h"

namespace tandem::parquet::gpu_decode {
namespace {

std::vector<std::string> PagesOfManyKinds() {
  std::mt19937_64 rng(7);
  std::vector<std::string> pages;
  pages.push_back("x");
  std::string text;
  for (int i = 0; i < 4000; ++i) text += "l_orderkey " + std::to_string(i * 7919 % 1000) + ", ";
  pages.push_back(text);
  pages.push_back(std::string(70000, '\0'));
  std::string random(100003, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  pages.push_back(random);
  std::string mixed(1 << 20, '\0');
  for (size_t i = 0; i < mixed.size(); ++i) {
    mixed[i] = static_cast<char>((i / 64) % 7 == 0 ? rng() : 'a' + (i % 13));
  }
  pages.push_back(mixed);
  return pages;
}

class PageDecompressTest : public ::testing::TestWithParam<CompressionCodec> {
 protected:
  void SetUp() override {
    TANDEM_REQUIRE_GPU();
    if (!BuiltWithNvcomp()) GTEST_SKIP() << "skipped: built without nvCOMP";
    std::string why;
    // Built with nvCOMP, on a machine with a GPU whose copy lacks its library (a stage made with
    // NVCOMP=0): skipped, saying so.
    if (!GpuDecompresses(GetParam(), &why)) GTEST_SKIP() << "skipped: " << why;
    auto s = gpu::Stream::Create();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stream_ = std::move(*s);
  }

  // Each page compressed on the host and uploaded to a buffer of its own, with a buffer for its
  // decompressed bytes of `out_bytes` (the page's own size unless told otherwise).
  void Upload(const std::vector<std::string>& pages, std::vector<int64_t> out_bytes = {}) {
    for (size_t i = 0; i < pages.size(); ++i) {
      std::string packed;
      ASSERT_TRUE(Compress(GetParam(), reinterpret_cast<const uint8_t*>(pages[i].data()),
                           static_cast<int64_t>(pages[i].size()), &packed, 3)
                      .ok());
      compressed_.push_back(packed);
      auto in = gpu::DeviceBuffer::Allocate(static_cast<int64_t>(packed.size()), stream_);
      const int64_t want = out_bytes.empty() ? static_cast<int64_t>(pages[i].size()) : out_bytes[i];
      auto out = gpu::DeviceBuffer::Allocate(std::max<int64_t>(want, 1), stream_);
      ASSERT_TRUE(in.ok() && out.ok());
      // Bytes no page holds, so that a page left unwritten cannot pass.
      ASSERT_TRUE(gpu::MemsetDevice(out->data(), 0xA5, std::max<int64_t>(want, 1), stream_).ok());
      ASSERT_TRUE(
          gpu::CopyToDevice(in->data(), packed.data(), static_cast<int64_t>(packed.size()), stream_)
              .ok());
      DevicePage p;
      p.compressed = in->data();
      p.host_compressed = reinterpret_cast<const uint8_t*>(compressed_[i].data());
      p.compressed_bytes = static_cast<int64_t>(packed.size());
      p.out = out->data();
      p.out_bytes = want;
      device_pages_.push_back(p);
      ins_.push_back(std::move(*in));
      outs_.push_back(std::move(*out));
    }
  }

  std::string Download(size_t i) {
    std::string back(static_cast<size_t>(device_pages_[i].out_bytes), '\0');
    EXPECT_TRUE(
        gpu::CopyToHost(back.data(), outs_[i].data(), device_pages_[i].out_bytes, stream_).ok());
    EXPECT_TRUE(stream_.Synchronize().ok());
    return back;
  }

  gpu::Stream stream_;
  std::vector<std::string> compressed_;
  std::vector<DevicePage> device_pages_;
  std::vector<gpu::DeviceBuffer> ins_, outs_;
};

TEST_P(PageDecompressTest, ABatchOfPagesComesBackByteForByte) {
  const std::vector<std::string> pages = PagesOfManyKinds();
  Upload(pages);
  const Status st = DecompressPagesOnGpu(GetParam(), device_pages_, stream_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (size_t i = 0; i < pages.size(); ++i) {
    EXPECT_TRUE(Download(i) == pages[i]) << "page " << i << " of " << pages.size();
  }
}

TEST_P(PageDecompressTest, ATruncatedPageIsAnErrorNamingItWhereThatIsDefined) {
  // nvCOMP leaves damaged SNAPPY and ZSTD data undefined (page_decompress.h): not tried.
  if (GetParam() == CompressionCodec::SNAPPY || GetParam() == CompressionCodec::ZSTD) {
    GTEST_SKIP() << "skipped: nvCOMP does not define what damaged " << CodecName(GetParam())
                 << " data does";
  }
  const std::vector<std::string> pages = PagesOfManyKinds();
  Upload(pages);
  // Page 2 (text) cut to half its compressed bytes.
  device_pages_[1].compressed_bytes /= 2;
  const Status st = DecompressPagesOnGpu(GetParam(), device_pages_, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("page 2 of 5"), std::string::npos) << st.ToString();
}

TEST_P(PageDecompressTest, MissingBuffersAndNegativeSizesAreErrors) {
  Upload({std::string(300, 'z')});
  DevicePage no_host = device_pages_[0];
  no_host.host_compressed = nullptr;
  EXPECT_FALSE(DecompressPagesOnGpu(GetParam(), {no_host}, stream_).ok());
  DevicePage negative = device_pages_[0];
  negative.out_bytes = -1;
  EXPECT_FALSE(DecompressPagesOnGpu(GetParam(), {negative}, stream_).ok());
}

TEST_P(PageDecompressTest, AHeaderSizeThatDisagreesIsAnError) {
  // The header claims one byte fewer than the page holds: the page does not fit its buffer.
  const std::vector<std::string> pages = {std::string(5000, 'q')};
  Upload(pages, {4999});
  const Status st = DecompressPagesOnGpu(GetParam(), device_pages_, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("page 1 of 1"), std::string::npos) << st.ToString();
}

TEST_P(PageDecompressTest, AnEmptyBatchAndEmptyPagesDoNothing) {
  EXPECT_TRUE(DecompressPagesOnGpu(GetParam(), {}, stream_).ok());
  DevicePage empty;  // 0 bytes out: nothing to decompress
  EXPECT_TRUE(DecompressPagesOnGpu(GetParam(), {empty}, stream_).ok());
}

INSTANTIATE_TEST_SUITE_P(Codecs, PageDecompressTest,
                         ::testing::Values(CompressionCodec::SNAPPY, CompressionCodec::ZSTD,
                                           CompressionCodec::LZ4_RAW, CompressionCodec::GZIP),
                         [](const auto& info) {
                           switch (info.param) {
                             case CompressionCodec::SNAPPY:
                               return std::string("Snappy");
                             case CompressionCodec::ZSTD:
                               return std::string("Zstd");
                             case CompressionCodec::LZ4_RAW:
                               return std::string("Lz4Raw");
                             default:
                               return std::string("Gzip");
                           }
                         });

TEST(PageDecompress, CodecsNvcompDoesNotReadStayOnTheHost) {
  std::string why;
  EXPECT_FALSE(GpuDecompresses(CompressionCodec::LZ4, &why));  // Hadoop-framed
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(GpuDecompresses(CompressionCodec::BROTLI, &why));
  EXPECT_FALSE(GpuDecompresses(CompressionCodec::UNCOMPRESSED, &why));
}

}  // namespace
}  // namespace tandem::parquet::gpu_decode
