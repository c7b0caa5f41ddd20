// Pages parsed on the GPU (io/parquet/gpu/page_parse_kernels.h) against the host staging of the
// same chunks: the pages' decompressed bodies are put in device memory as nvCOMP would leave
// them, parsed there into run tables, string positions and validity, and expanded on the host
// (parquet_gpu_test_util.h) next to the host staging's expansion, value by value. Random tables of
// every type with no, some and only NULLs, dictionary and PLAIN pages, small and large pages; the
// parquet-testing files (v2 pages among them); a page whose level length runs past it is
// reported by page number.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "deferred_carry.h"
#include "gpu_test_util.h"
#include "parquet_gpu_test_util.h"
#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/gpu/page_parse_kernels.h"
#include "tandem/io/parquet/page_reader.h"
#include "tandem/io/parquet/type_mapping.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {
namespace {

using gpu_decode::DeviceColumnParse;
using gpu_decode::DevicePagePlan;
using gpu_decode::PageEncoding;
using gpu_decode::StagedChunk;
using gpu_decode::ValueShape;

// A chunk's data page bodies, decompressed on the host and laid out as device staging, with the
// plans their headers give; false when a page has what the GPU parse leaves to the host.
bool PlanPages(const uint8_t* chunk, int64_t size, const ColumnMetaData& md, const LeafColumn& leaf,
               std::vector<uint8_t>* staging, std::vector<DevicePagePlan>* plans) {
  PageReader reader(chunk, size, md.codec);
  Page page;
  int64_t rows = 0;
  for (;;) {
    auto more = reader.Next(&page);
    if (!more.ok()) return false;
    if (!*more || rows == md.num_values) break;
    const PageHeader& h = page.header;
    if (h.type != PageType::DATA_PAGE && h.type != PageType::DATA_PAGE_V2) continue;
    DevicePagePlan p;
    p.body = static_cast<int64_t>((staging->size() + 7) / 8 * 8);
    p.body_bytes = page.size;
    p.first_row = rows;
    if (h.type == PageType::DATA_PAGE) {
      const DataPageHeader& d = *h.data_page_header;
      if (leaf.max_definition_level > 0 && d.definition_level_encoding != Encoding::RLE) {
        return false;
      }
      p.num_values = d.num_values;
      p.has_levels = leaf.max_definition_level > 0;
      p.encoding = static_cast<PageEncoding>(d.encoding);
    } else {
      const DataPageHeaderV2& d = *h.data_page_header_v2;
      const int64_t prefix =
          int64_t{d.repetition_levels_byte_length} + d.definition_levels_byte_length;
      p.v2 = 1;
      p.num_values = d.num_values;
      p.v2_levels = p.body + d.repetition_levels_byte_length;
      p.v2_levels_bytes = d.definition_levels_byte_length;
      p.body += prefix;
      p.body_bytes -= prefix;
      p.has_levels = leaf.max_definition_level > 0 &&
                     !(d.definition_levels_byte_length == 0 && d.num_nulls == 0);
      p.encoding = static_cast<PageEncoding>(d.encoding);
    }
    staging->resize(static_cast<size_t>((staging->size() + 7) / 8 * 8));
    staging->insert(staging->end(), page.data, page.data + page.size);
    plans->push_back(p);
    rows += p.num_values;
  }
  staging->resize(staging->size() + 64);  // PackedBits reads whole bytes past a value's last bit
  return true;
}

// The device parse of one chunk as a StagedChunk over the host copy of its staging (so that
// ExpandOnHost reads it as it reads the host staging's); `ref` gives the dictionary and types.
Result<StagedChunk> ParseOnDevice(const StagedChunk& ref, const LeafColumn& leaf,
                                  std::vector<uint8_t> staging,
                                  const std::vector<DevicePagePlan>& plans,
                                  const gpu::Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(auto device,
                         gpu::DeviceBuffer::Allocate(static_cast<int64_t>(staging.size()), stream));
  TANDEM_RETURN_NOT_OK(gpu::CopyToDevice(device.data(), staging.data(),
                                         static_cast<int64_t>(staging.size()), stream));
  DeviceColumnParse column;
  column.max_definition_level = leaf.max_definition_level;
  column.shape = ref.kind == gpu_decode::OutputKind::kBool      ? ValueShape::kBool
                 : ref.kind == gpu_decode::OutputKind::kStrings ? ValueShape::kStrings
                                                                : ValueShape::kFixed;
  column.physical_width = ref.physical_width;
  column.dictionary_size = ref.has_dictionary ? ref.dictionary_size : -1;
  TANDEM_ASSIGN_OR_RAISE(auto tables,
                         gpu_decode::ParsePagesOnDevice(device.data_as<uint8_t>(),
                                                        static_cast<int64_t>(staging.size()), plans,
                                                        column, ref.num_rows, stream));
  StagedChunk out = DescribedLike(ref);
  out.num_valid = tables.num_valid;
  out.runs.resize(static_cast<size_t>(tables.num_runs));
  out.plain_positions.resize(static_cast<size_t>(tables.num_positions));
  TANDEM_RETURN_NOT_OK(gpu::CopyToHost(out.runs.data(), tables.runs.data(),
                                       tables.num_runs * sizeof(gpu_decode::ValueRun), stream));
  TANDEM_RETURN_NOT_OK(gpu::CopyToHost(out.plain_positions.data(), tables.positions.data(),
                                       tables.num_positions * 8, stream));
  if (!tables.validity.empty()) {
    out.validity.resize(static_cast<size_t>((ref.num_rows + 63) / 64 * 8));
    TANDEM_RETURN_NOT_OK(gpu::CopyToHost(out.validity.data(), tables.validity.data(),
                                         (ref.num_rows + 31) / 32 * 4, stream));
  }
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  out.pageable = std::move(staging);
  out.staging = out.pageable.data();
  out.staging_bytes = static_cast<int64_t>(out.pageable.size());
  return std::move(out);
}

// Parses every chunk of `path` that the host stages both ways; returns the chunks compared.
int64_t DevicePagesMatchHostStaging(const std::string& path, const gpu::Stream& stream) {
  return CountChunks(path, [&](const uint8_t* chunk, int64_t length, const ColumnMetaData& md,
                               const LeafColumn& leaf, const RowGroup& rg, int64_t, size_t) {
    StagedChunk host;
    gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/false, &host);
    std::vector<uint8_t> staging;
    std::vector<DevicePagePlan> plans;
    if (!host.on_gpu || !PlanPages(chunk, length, md, leaf, &staging, &plans)) return false;
    auto device = ParseOnDevice(host, leaf, std::move(staging), plans, stream);
    EXPECT_TRUE(device.ok()) << path << " column " << leaf.name << ": "
                             << device.status().ToString();
    if (!device.ok()) return false;
    EXPECT_EQ(device->num_valid, host.num_valid) << leaf.name;
    const Field field{leaf.name, leaf.type, true};
    ExpectSameColumn(ExpandOnHost(host), ExpandOnHost(*device), field,
                     path + " column " + leaf.name + " (pages parsed on the GPU)");
    return true;
  });
}

// ---- deferred staging, checked without a device (CarryDeferredOnHost) ---------------------

// Every chunk of `path` staged both ways, the deferred one carried through on the host;
// returns the chunks compared.
int64_t DeferredStagingMatchesHostStaging(const std::string& path) {
  return CountChunks(path, [&](const uint8_t* chunk, int64_t length, const ColumnMetaData& md,
                               const LeafColumn& leaf, const RowGroup& rg, int64_t, size_t) {
    StagedChunk host, deferred;
    gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/false, &host);
    gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/false, &deferred,
                                 /*defer_decompression=*/true);
    if (!host.on_gpu || !deferred.on_gpu) return false;
    SCOPED_TRACE(path + " column " + leaf.name);
    EXPECT_TRUE(deferred.deferred);
    StagedChunk carried;
    EXPECT_EQ(CarryDeferredOnHost(deferred, &carried), "");
    EXPECT_EQ(carried.num_valid, host.num_valid) << leaf.name;
    const Field field{leaf.name, leaf.type, true};
    ExpectSameColumn(ExpandOnHost(host), ExpandOnHost(carried), field,
                     path + " column " + leaf.name + " (deferred staging)");
    return true;
  });
}

TEST(DeferredStaging, RandomTablesCarryLikeTheHostStaging) {
  const fs::path dir = TempDir("deferred");
  EXPECT_GT(SumOverRandomFiles(dir, 300, DeferredStagingMatchesHostStaging), 200);
  fs::remove_all(dir);
}

TEST(DeferredStaging, ParquetTestingFilesCarryLikeTheHostStaging) {
  if (ParquetTestingDir().empty()) GTEST_SKIP() << "parquet-testing data not found";
  EXPECT_GT(SumOverParquetTestingFiles(DeferredStagingMatchesHostStaging), 20);
}

class GpuPageParse : public ::testing::Test {
 protected:
  void SetUp() override {
    TANDEM_REQUIRE_GPU();
    auto s = gpu::Stream::Create();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stream_ = std::make_unique<gpu::Stream>(std::move(*s));
  }
  std::unique_ptr<gpu::Stream> stream_;
};

TEST_F(GpuPageParse, RandomTablesParseLikeTheHostStaging) {
  const fs::path dir = TempDir("page_parse");
  auto check = [&](const std::string& path) { return DevicePagesMatchHostStaging(path, *stream_); };
  EXPECT_GT(SumOverRandomFiles(dir, 200, check), 200);
  fs::remove_all(dir);
}

TEST_F(GpuPageParse, ParquetTestingFiles) {
  if (ParquetTestingDir().empty()) GTEST_SKIP() << "parquet-testing data not found";
  auto check = [&](const std::string& path) { return DevicePagesMatchHostStaging(path, *stream_); };
  EXPECT_GT(SumOverParquetTestingFiles(check), 20);
}

TEST_F(GpuPageParse, ALevelLengthPastItsPageNamesThePage) {
  std::vector<uint8_t> staging(64, 0);
  staging[8] = 0xff;  // page 1's 4-byte level length: 255 bytes in a 16-byte body
  std::vector<DevicePagePlan> plans(2);
  plans[0].body = 0;
  plans[0].body_bytes = 8;
  plans[0].num_values = 0;
  plans[0].has_levels = 1;
  plans[1].body = 8;
  plans[1].body_bytes = 16;
  plans[1].num_values = 4;
  plans[1].first_row = 0;
  plans[1].has_levels = 1;
  auto device = gpu::DeviceBuffer::Allocate(64, *stream_);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(gpu::CopyToDevice(device->data(), staging.data(), 64, *stream_).ok());
  DeviceColumnParse column;
  column.max_definition_level = 1;
  column.physical_width = 4;
  auto r =
      gpu_decode::ParsePagesOnDevice(device->data_as<uint8_t>(), 64, plans, column, 4, *stream_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "page 1: definition levels run past the page");
}

}  // namespace
}  // namespace tandem::parquet
