// ParquetFile::OpenBuffer: a Parquet file held in memory reads exactly as the same file on disk
// (every column of every row group of a few parquet-testing files), errors name the display
// name, and damaged buffers fail cleanly.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tandem/io/parquet/reader.h"

namespace tandem::parquet {
namespace {

const std::string kData = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";

std::vector<uint8_t> Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void ExpectSameColumn(const Column& a, const Column& b) {
  ASSERT_EQ(a.length(), b.length());
  ASSERT_EQ(a.type(), b.type());
  ASSERT_EQ(a.null_count(), b.null_count());
  for (int64_t i = 0; i < a.length(); ++i) {
    ASSERT_EQ(a.IsNull(i), b.IsNull(i)) << i;
    if (a.IsNull(i)) continue;
    if (a.type().is_string_like()) {
      ASSERT_EQ(a.GetString(i), b.GetString(i)) << i;
    } else if (a.type().id == TypeId::kBool) {
      ASSERT_EQ(a.GetBool(i), b.GetBool(i)) << i;
    } else {
      const int w = a.type().byte_width();
      ASSERT_EQ(0, std::memcmp(a.values()->data() + i * w, b.values()->data() + i * w, w)) << i;
    }
  }
}

TEST(ParquetOpenBuffer, ReadsLikeTheFile) {
  for (const char* name :
       {"alltypes_plain.parquet", "alltypes_tiny_pages.parquet", "datapage_v2.snappy.parquet",
        "delta_byte_array.parquet", "byte_stream_split_extended.gzip.parquet"}) {
    SCOPED_TRACE(name);
    auto from_file = ParquetFile::Open(kData + name);
    ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
    const std::vector<uint8_t> bytes = Slurp(kData + name);
    auto from_memory = ParquetFile::OpenBuffer(
        Buffer::CopyOf(bytes.data(), static_cast<int64_t>(bytes.size())), name);
    ASSERT_TRUE(from_memory.ok()) << from_memory.status().ToString();
    auto from_pointer =
        ParquetFile::OpenBuffer(bytes.data(), static_cast<int64_t>(bytes.size()), name);
    ASSERT_TRUE(from_pointer.ok()) << from_pointer.status().ToString();
    EXPECT_EQ((*from_memory)->path(), name);
    ASSERT_EQ((*from_file)->num_row_groups(), (*from_memory)->num_row_groups());
    for (int rg = 0; rg < (*from_file)->num_row_groups(); ++rg) {
      for (int c = 0; c < (*from_file)->schema().num_fields(); ++c) {
        auto a = (*from_file)->ReadRowGroup(rg, {c});
        auto b = (*from_memory)->ReadRowGroup(rg, {c});
        auto p = (*from_pointer)->ReadRowGroup(rg, {c});
        ASSERT_EQ(a.ok(), b.ok());
        ASSERT_EQ(a.ok(), p.ok());
        if (!a.ok()) continue;
        ExpectSameColumn(*(*a)->column(0), *(*b)->column(0));
        ExpectSameColumn(*(*a)->column(0), *(*p)->column(0));
      }
    }
  }
}

TEST(ParquetOpenBuffer, ErrorsNameTheBuffer) {
  const uint8_t junk[16] = {'P', 'A', 'R', '1'};
  auto f = ParquetFile::OpenBuffer(junk, sizeof(junk), "my-buffer");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("my-buffer"), std::string::npos) << f.status().ToString();
  EXPECT_FALSE(ParquetFile::OpenBuffer(nullptr, 0, "empty").ok());
  EXPECT_FALSE(ParquetFile::OpenBuffer(nullptr, 5, "null").ok());
  EXPECT_FALSE(ParquetFile::OpenBuffer(std::shared_ptr<Buffer>(), "none").ok());
}

}  // namespace
}  // namespace tandem::parquet
