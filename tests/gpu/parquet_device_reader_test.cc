// ReadParquetToDevice against its CPU twin: for every file, ReadParquetToDevice followed by
// gpu::ToHost must equal ReadParquet value by value (types, NULLs, bit patterns of floats,
// string bytes). Files: TPC-H tables from the generator, random tables written with every writer
// option (dictionary on/off, NULL fractions, page and row-group sizes, codecs), projections,
// predicates and hive partitions, and the parquet-testing files that ReadParquet reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "parquet_gpu_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/io/parquet/decode/convert.h"
#include "tandem/io/parquet/device_reader.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/gpu/decode_kernels.h"
#include "tandem/io/parquet/gpu/page_decompress.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/tpch/generator.h"

namespace tandem::parquet {
namespace {

// Reads `path` both ways and compares; returns the device read's decode counts. A file the host
// reader rejects must be rejected with the same message.
DeviceDecodeCounts ExpectSameRead(const std::string& path, const ReadOptions& options = {}) {
  DeviceDecodeCounts counts;
  ReadStats host_stats, device_stats;
  auto host = ReadParquet(path, options, &host_stats);
  auto stream = gpu::Stream::Create();
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return counts;
  auto device = ReadParquetToDevice(path, options, &device_stats, *stream, &counts);
  if (!host.ok()) {
    EXPECT_FALSE(device.ok()) << path << ": host failed with " << host.status().ToString();
    if (!device.ok()) EXPECT_EQ(host.status().message(), device.status().message()) << path;
    return counts;
  }
  EXPECT_TRUE(device.ok()) << path << ": " << device.status().ToString();
  if (!device.ok()) return counts;
  auto back = gpu::ToHost(**device, *stream);
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  if (!back.ok()) return counts;
  ExpectSameTable(*host, *back, path);
  EXPECT_EQ(host_stats.rows, device_stats.rows) << path;
  EXPECT_EQ(host_stats.bytes_read, device_stats.bytes_read) << path;
  EXPECT_EQ(host_stats.row_groups_skipped, device_stats.row_groups_skipped) << path;
  EXPECT_EQ(host_stats.files_skipped, device_stats.files_skipped) << path;
  return counts;
}

TEST(ParquetDeviceReader, TpchTables) {
  TANDEM_REQUIRE_GPU();
  auto sizes = tpch::TpchSizes::ForScaleFactor(0.02);
  ASSERT_TRUE(sizes.ok());
  const fs::path dir = TempDir("tpch");
  for (tpch::TpchTable t : tpch::kAllTpchTables) {
    auto batch = tpch::GenerateTpchRows(*sizes, t, 0, sizes->DriverRows(t));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    Table table;
    table.schema = (*batch)->schema;
    table.batches.push_back(*batch);
    WriteOptions w;
    w.row_group_rows = 30000;
    const std::string path = (dir / (std::string(tpch::TpchTableName(t)) + ".parquet")).string();
    ASSERT_TRUE(WriteParquet(path, table, w).ok());
    const DeviceDecodeCounts counts = ExpectSameRead(path);
    EXPECT_GT(counts.gpu_chunks, 0) << path;
    EXPECT_EQ(counts.host_chunks, 0) << path << ": every TPC-H column decodes on the GPU";
  }
  fs::remove_all(dir);
}

// Not a benchmark (see bench/), a data point: lineitem at SF 0.2 read to the device both ways,
// best of three after a warm-up, with the results compared.
TEST(ParquetDeviceReader, LineitemTimingReport) {
  TANDEM_REQUIRE_GPU();
  auto sizes = tpch::TpchSizes::ForScaleFactor(0.2);
  ASSERT_TRUE(sizes.ok());
  auto batch = tpch::GenerateTpchRows(*sizes, tpch::TpchTable::kLineitem, 0,
                                      sizes->DriverRows(tpch::TpchTable::kLineitem));
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  Table table;
  table.schema = (*batch)->schema;
  table.batches.push_back(*batch);
  const fs::path dir = TempDir("timing");
  const std::string path = (dir / "lineitem.parquet").string();
  ASSERT_TRUE(WriteParquet(path, table).ok());
  auto stream = gpu::Stream::Create();
  ASSERT_TRUE(stream.ok());
  auto seconds = [](auto&& fn) {
    double best = 1e9;
    for (int i = 0; i < 4; ++i) {
      const auto start = std::chrono::steady_clock::now();
      fn();
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i > 0) best = std::min(best, s);
    }
    return best;
  };
  const double host_s = seconds([&] {
    auto host = ReadParquet(path);
    ASSERT_TRUE(host.ok());
    auto device = gpu::ToDevice(*host, *stream);
    ASSERT_TRUE(device.ok());
    ASSERT_TRUE(stream->Synchronize().ok());
  });
  DeviceDecodeCounts counts;
  const double gpu_s = seconds([&] {
    auto device = ReadParquetToDevice(path, {}, nullptr, *stream, &counts);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
  });
  std::printf(
      "lineitem SF0.2 (%lld rows): ToDevice(ReadParquet) %.1f ms, ReadParquetToDevice "
      "%.1f ms (%lld chunks on the GPU, %lld on the host)\n",
      static_cast<long long>((*batch)->num_rows), host_s * 1e3, gpu_s * 1e3,
      static_cast<long long>(counts.gpu_chunks), static_cast<long long>(counts.host_chunks));
  ExpectSameRead(path);
  fs::remove_all(dir);
}

TEST(ParquetDeviceReader, RandomTablesEveryWriterOption) {
  TANDEM_REQUIRE_GPU();
  const fs::path dir = TempDir("random");
  int file = 0;
  int64_t gpu_chunks = 0;
  for (int64_t rows : {int64_t{0}, int64_t{1}, int64_t{3000}}) {
    for (double nulls : {0.0, 0.3, 1.0}) {
      for (bool dictionary : {true, false}) {
        for (CompressionCodec codec :
             {CompressionCodec::UNCOMPRESSED, CompressionCodec::SNAPPY, CompressionCodec::ZSTD}) {
          for (int64_t page_bytes : {int64_t{700}, int64_t{1} << 20}) {
            WriteOptions w;
            w.codec = codec;
            w.dictionary = dictionary;
            w.data_page_bytes = page_bytes;
            w.row_group_rows = rows > 1000 ? 1024 : 1 << 20;
            w.statistics = (file % 2) == 0;
            const Table table = RandomTable(rows, nulls, static_cast<uint32_t>(file));
            const std::string path = (dir / ("t" + std::to_string(file++) + ".parquet")).string();
            ASSERT_TRUE(WriteParquet(path, table, w).ok()) << path;
            gpu_chunks += ExpectSameRead(path).gpu_chunks;
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  EXPECT_GT(gpu_chunks, 0);
  fs::remove_all(dir);
}

TEST(ParquetDeviceReader, LargeColumnsManyRowGroups) {
  TANDEM_REQUIRE_GPU();
  const fs::path dir = TempDir("large");
  const Table table = RandomTable(300000, 0.1, 7);
  WriteOptions w;
  w.row_group_rows = 65536 + 13;  // row groups that do not end on byte boundaries of the bitmap
  const std::string path = (dir / "large.parquet").string();
  ASSERT_TRUE(WriteParquet(path, table, w).ok());
  EXPECT_GT(ExpectSameRead(path).gpu_chunks, 0);
  fs::remove_all(dir);
}

TEST(ParquetDeviceReader, ProjectionPredicatesAndHivePartitions) {
  TANDEM_REQUIRE_GPU();
  const fs::path dir = TempDir("hive");
  for (int k = 0; k < 3; ++k) {
    const fs::path part = dir / ("key=" + std::to_string(k)) / ("tag=t" + std::to_string(k % 2));
    fs::create_directories(part);
    WriteOptions w;
    w.row_group_rows = 500;
    ASSERT_TRUE(
        WriteParquet((part / "f.parquet").string(), RandomTable(1700, 0.2, 40 + k), w).ok());
  }
  ExpectSameRead(dir.string());
  ReadOptions projected;
  projected.columns = {"tag", "s_high", "i64", "key", "i64"};
  ExpectSameRead(dir.string(), projected);
  ReadOptions by_key;
  by_key.columns = {"key", "d9", "b"};
  ScanPredicate p;
  p.column = "key";
  p.op = ScanPredicate::Op::kGe;
  p.value = int64_t{1};
  by_key.predicates.push_back(p);
  ExpectSameRead(dir.string(), by_key);
  ReadOptions none;  // every row group pruned: an empty batch of the right schema
  ScanPredicate q;
  q.column = "small";
  q.op = ScanPredicate::Op::kGt;
  q.value = int64_t{100};
  none.predicates.push_back(q);
  ExpectSameRead(dir.string(), none);
  ReadOptions partitions_only;
  partitions_only.columns = {"key", "tag"};
  ExpectSameRead(dir.string(), partitions_only);
  ReadOptions unknown;
  unknown.columns = {"i6"};
  ExpectSameRead(dir.string(), unknown);  // the same "did you mean" error
  fs::remove_all(dir);
}

TEST(ParquetDeviceReader, ParquetTestingFiles) {
  TANDEM_REQUIRE_GPU();
  const std::string data = ParquetTestingDir();
  if (data.empty()) GTEST_SKIP() << "parquet-testing data not found";
  int64_t files = 0, gpu_chunks = 0;
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (entry.path().extension() == ".parquet") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    auto host = ReadParquet(path);
    if (!host.ok()) continue;  // files ReadParquet rejects (nested columns, ...) are not compared
    ++files;
    gpu_chunks += ExpectSameRead(path).gpu_chunks;
  }
  EXPECT_GT(files, 30);
  EXPECT_GT(gpu_chunks, 0);
}

// tandem.io.parquet.gpuDecompress: compressed pages decompressed by nvCOMP and parsed on the GPU
// give the host reader's columns (and its errors), for every codec nvCOMP reads, with no, some
// and only NULLs, dictionary and PLAIN pages, small and large pages, one-row chunks.
TEST(ParquetDeviceReader, PagesDecompressedAndParsedOnTheGpu) {
  TANDEM_REQUIRE_GPU();
  std::string why;
  if (!gpu_decode::GpuDecompresses(CompressionCodec::SNAPPY, &why)) {
    GTEST_SKIP() << "skipped: nvCOMP not usable here (" << why << ")";
  }
  ReadOptions gpu_decompress;
  gpu_decompress.gpu_decompress = true;
  const fs::path dir = TempDir("gpu_decompress");
  int file = 0;
  int64_t decompressed = 0, fallbacks = 0;
  for (double nulls : {0.0, 0.3, 1.0}) {
    for (bool dictionary : {true, false}) {
      for (CompressionCodec codec : {CompressionCodec::SNAPPY, CompressionCodec::ZSTD,
                                     CompressionCodec::LZ4_RAW, CompressionCodec::GZIP}) {
        for (int64_t page_bytes : {int64_t{700}, int64_t{1} << 20}) {
          WriteOptions w;
          w.codec = codec;
          w.dictionary = dictionary;
          w.data_page_bytes = page_bytes;
          w.row_group_rows = 1024;
          // One file in eight has a single row (a one-row chunk of one page).
          const int64_t rows = file % 8 == 7 ? 1 : 3000;
          const Table table = RandomTable(rows, nulls, static_cast<uint32_t>(500 + file));
          const std::string path = (dir / ("g" + std::to_string(file++) + ".parquet")).string();
          ASSERT_TRUE(WriteParquet(path, table, w).ok()) << path;
          const DeviceDecodeCounts counts = ExpectSameRead(path, gpu_decompress);
          decompressed += counts.gpu_decompressed_chunks;
          fallbacks += counts.gpu_decompress_fallbacks;
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  EXPECT_GT(decompressed, 500);
  EXPECT_EQ(fallbacks, 0);
  fs::remove_all(dir);
  const std::string data = ParquetTestingDir();
  if (data.empty()) return;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (entry.path().extension() != ".parquet" || !ReadParquet(entry.path().string()).ok()) {
      continue;
    }
    ExpectSameRead(entry.path().string(), gpu_decompress);
    if (HasFatalFailure()) return;
  }
}

// Every chunk of a file decoded in one DecodeDeferredOnDevice group (one nvCOMP batch, one page
// parse for all) gives the host reader's columns; a chunk whose first page has a damaged Snappy
// length fails alone (the failed batch is retried chunk by chunk), and the others still decode.
TEST(ParquetDeviceReader, DeferredChunksDecodeAsOneGroup) {
  TANDEM_REQUIRE_GPU();
  std::string why;
  if (!gpu_decode::GpuDecompresses(CompressionCodec::SNAPPY, &why)) {
    GTEST_SKIP() << "skipped: nvCOMP not usable here (" << why << ")";
  }
  const fs::path dir = TempDir("deferred_group");
  const std::string path = (dir / "g.parquet").string();
  WriteOptions w;
  w.codec = CompressionCodec::SNAPPY;
  w.row_group_rows = 1024;
  w.data_page_bytes = 700;
  ASSERT_TRUE(WriteParquet(path, RandomTable(5000, 0.3, 77), w).ok());
  auto host = ReadParquet(path);
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  BatchPtr expected = OneBatch(*host);
  struct Placed {
    std::unique_ptr<gpu_decode::StagedChunk> chunk;
    int64_t first_row, rows;
    size_t column;
  };
  std::vector<Placed> staged;
  CountChunks(path, [&](const uint8_t* chunk, int64_t length, const ColumnMetaData& md,
                        const LeafColumn& leaf, const RowGroup& rg, int64_t first_row, size_t col) {
    auto c = std::make_unique<gpu_decode::StagedChunk>();
    gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/true, c.get(),
                                 /*defer_decompression=*/true);
    if (!c->on_gpu || !c->deferred || c->compressed_pages.empty()) return false;
    staged.push_back(Placed{std::move(c), first_row, rg.num_rows, col});
    return true;
  });
  ASSERT_GT(staged.size(), 20u);
  auto stream = gpu::Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  auto flags = gpu::DeviceBuffer::Allocate(static_cast<int64_t>(staged.size()) * 4, *stream);
  ASSERT_TRUE(flags.ok());
  std::vector<const gpu_decode::StagedChunk*> group;
  std::vector<int32_t*> error_flags;
  for (size_t i = 0; i < staged.size(); ++i) {
    group.push_back(staged[i].chunk.get());
    error_flags.push_back(flags->data_as<int32_t>() + i);
  }
  // First every chunk as it was staged (one batch, one parse); then with the first page's length
  // prefix (a varint) of one chunk naming another size: the host framing check refuses the batch,
  // and only that chunk should fail once its chunks are retried alone.
  const size_t bad = staged.size() / 2;
  for (bool damaged : {false, true}) {
    if (damaged) staged[bad].chunk->staging[staged[bad].chunk->compressed_pages[0].from] ^= 0x3f;
    ASSERT_TRUE(gpu::MemsetDevice(flags->data(), 0, flags->size(), *stream).ok());
    auto decoded = gpu_decode::DecodeDeferredOnDevice(group, error_flags, *stream);
    ASSERT_EQ(decoded.size(), staged.size());
    for (size_t i = 0; i < staged.size(); ++i) {
      const std::string what = std::string(damaged ? "damaged batch, " : "") + "chunk " +
                               std::to_string(i) + " (column " + std::to_string(staged[i].column) +
                               ", first row " + std::to_string(staged[i].first_row) + ")";
      if (damaged && i == bad) {
        EXPECT_FALSE(decoded[i].ok()) << what << " was damaged";
        continue;
      }
      ASSERT_TRUE(decoded[i].ok()) << what << ": " << decoded[i].status().ToString();
      auto back = gpu::ColumnToHost(**decoded[i], *stream);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      const auto col = static_cast<int>(staged[i].column);
      ExpectSameColumn(RowsOf(*expected->column(col), staged[i].first_row, staged[i].rows), *back,
                       host->schema.field(col), what);
    }
    std::vector<int32_t> host_flags(staged.size());
    ASSERT_TRUE(gpu::CopyToHost(host_flags.data(), flags->data(), flags->size(), *stream).ok());
    ASSERT_TRUE(stream->Synchronize().ok());
    for (size_t i = 0; i < staged.size(); ++i) EXPECT_EQ(host_flags[i], 0) << "chunk " << i;
  }
  fs::remove_all(dir);
}

// --- Staging checked without a device (parquet_gpu_test_util.h expands staged chunks) ---------

// Stages every chunk of a file on the host and compares the expansion with ReadParquet; returns
// the number of chunks staged (the rest would go to the host decoder).
int64_t StagedChunksMatchHost(const std::string& path) {
  auto host = ReadParquet(path);
  if (!host.ok()) return 0;
  BatchPtr expected = OneBatch(*host);
  if (!expected) return 0;
  return CountChunks(
      path, [&](const uint8_t* chunk, int64_t length, const ColumnMetaData& md,
                const LeafColumn& leaf, const RowGroup& rg, int64_t first_row, size_t col) {
        gpu_decode::StagedChunk c;
        gpu_decode::StageColumnChunk(chunk, length, md, leaf, rg.num_rows, /*pinned=*/false, &c);
        if (!c.on_gpu) return false;
        const Field field = host->schema.field(static_cast<int>(col));
        ExpectSameColumn(RowsOf(*expected->column(static_cast<int>(col)), first_row, rg.num_rows),
                         ExpandOnHost(c), field, path + " (staged on the host)");
        return true;
      });
}

TEST(ParquetDeviceStaging, RandomTablesExpandLikeTheHostDecoder) {
  const fs::path dir = TempDir("staging");
  EXPECT_GT(SumOverRandomFiles(dir, 100, StagedChunksMatchHost), 100);
  fs::remove_all(dir);
}

TEST(ParquetDeviceStaging, ParquetTestingFilesExpandLikeTheHostDecoder) {
  if (ParquetTestingDir().empty()) GTEST_SKIP() << "parquet-testing data not found";
  EXPECT_GT(SumOverParquetTestingFiles(StagedChunksMatchHost), 20);
}

}  // namespace
}  // namespace tandem::parquet
