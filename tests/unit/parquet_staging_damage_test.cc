// GPU staging (io/parquet/gpu/chunk_staging.h) of damaged column chunks, on the host: bytes of
// valid chunks flipped or cut at seeded random places, each chunk staged again. Staging must
// never crash or read or write outside its buffers (the ASan tier runs this), and a chunk it
// still stages for the GPU must be self-consistent: its runs cover the values in order and every
// byte or bit a run points at lies inside the staging buffer, so the decode kernels never read
// past it (they check dictionary indexes themselves). Compressed data pages are decompressed
// straight into that buffer, so this also guards their bounds. The same chunks staged with
// deferred decompression are carried through on the host as the GPU would parse them
// (tests/gpu/deferred_carry.h), which must stay inside the device staging.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "../gpu/deferred_carry.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/type_mapping.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/sql/session.h"
#include "tpch_test_util.h"

namespace tandem::parquet {
namespace {

namespace fs = std::filesystem;
using gpu_decode::OutputKind;
using gpu_decode::RunKind;
using gpu_decode::StagedChunk;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "" when every run of a staged chunk lies inside its staging buffer, else what does not.
std::string CheckInsideStaging(const StagedChunk& c) {
  if (c.runs.empty()) return c.num_valid == 0 ? "" : "values without runs";
  if (c.runs[0].first != 0) return "the first run does not start at value 0";
  const int64_t bits = c.staging_bytes * 8;
  for (size_t r = 0; r < c.runs.size(); ++r) {
    const auto& run = c.runs[r];
    const int64_t end = r + 1 < c.runs.size() ? c.runs[r + 1].first : c.num_valid;
    const int64_t n = end - run.first;
    if (n < 0) return "runs out of order at run " + std::to_string(r);
    if (run.kind == RunKind::kPacked) {
      if (run.payload < 0 || run.bit_width < 0 || run.bit_width > 32 ||
          run.payload + n * run.bit_width > bits) {
        return "bit-packed run " + std::to_string(r) + " past the staging buffer";
      }
    } else if (run.kind == RunKind::kPlain && c.kind == OutputKind::kStrings) {
      if (run.payload < 0 || run.payload + n > static_cast<int64_t>(c.plain_positions.size())) {
        return "string run " + std::to_string(r) + " past its positions";
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t pos = c.plain_positions[static_cast<size_t>(run.payload + i)];
        if (pos < 4 || pos > c.staging_bytes) return "string position past the staging buffer";
        uint32_t len;
        std::memcpy(&len, c.staging + pos - 4, 4);
        if (len > static_cast<uint64_t>(c.staging_bytes - pos)) {
          return "string bytes past the staging buffer";
        }
      }
    } else if (run.kind == RunKind::kPlain) {
      if (run.payload < 0 || run.payload + n * c.physical_width > c.staging_bytes) {
        return "plain run " + std::to_string(r) + " past the staging buffer";
      }
    }
  }
  if (!c.validity.empty() && static_cast<int64_t>(c.validity.size()) * 8 < c.num_rows) {
    return "validity shorter than the rows";
  }
  return "";
}

struct Chunk {
  int64_t start = 0, length = 0, rows = 0;
  const ColumnMetaData* meta = nullptr;
  const LeafColumn* leaf = nullptr;
};

// Stages every chunk of the file in `bytes`, then each again with bytes flipped or the chunk
// cut, `rounds` times; returns how many damaged chunks were still staged (and checked).
int64_t StageDamaged(const std::string& name, const std::string& bytes, int rounds,
                     int64_t* carried_count = nullptr) {
  auto file = ParquetFile::OpenBuffer(reinterpret_cast<const uint8_t*>(bytes.data()),
                                      static_cast<int64_t>(bytes.size()), name);
  EXPECT_TRUE(file.ok()) << name << ": " << file.status().ToString();
  if (!file.ok()) return 0;
  auto leaves = MapParquetSchema((*file)->metadata().schema);
  if (!leaves.ok()) return 0;  // nested: not staged
  std::vector<Chunk> chunks;
  for (const RowGroup& rg : (*file)->metadata().row_groups) {
    for (size_t col = 0; col < leaves->size() && col < rg.columns.size(); ++col) {
      if (!rg.columns[col].meta_data) continue;
      const ColumnMetaData& md = *rg.columns[col].meta_data;
      const int64_t start = ChunkStart(md);
      const int64_t length =
          std::min<int64_t>(md.total_compressed_size, static_cast<int64_t>(bytes.size()) - start);
      if (start < 4 || length <= 0) continue;
      chunks.push_back({start, length, rg.num_rows, &md, &(*leaves)[col]});
    }
  }
  std::mt19937_64 rng(std::hash<std::string>()(name));
  int64_t staged = 0;
  for (const Chunk& c : chunks) {
    for (int round = 0; round <= rounds; ++round) {
      std::vector<uint8_t> copy(bytes.begin() + c.start, bytes.begin() + c.start + c.length);
      int64_t length = c.length;
      if (round > 0) {
        if (round % 5 == 0) {
          length = static_cast<int64_t>(rng() % static_cast<uint64_t>(length));  // cut short
        } else {
          for (int k = 0, flips = 1 + static_cast<int>(rng() % 3); k < flips; ++k) {
            copy[rng() % copy.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
          }
        }
      }
      // Deferred staging, carried through as the GPU would: the page parse on damaged
      // decompressed pages must stay inside the device staging (the image is its exact size).
      StagedChunk d;
      gpu_decode::StageColumnChunk(copy.data(), length, *c.meta, *c.leaf, c.rows,
                                   /*pinned=*/false, &d, /*defer_decompression=*/true);
      StagedChunk carried;
      if (d.on_gpu && CarryDeferredOnHost(d, &carried).empty()) {
        if (carried_count) ++*carried_count;
        const std::string problem = CheckInsideStaging(carried);
        EXPECT_EQ(problem, "") << name << " column " << c.leaf->name << " round " << round
                               << " (deferred)";
        if (!problem.empty()) return staged;
      }
      StagedChunk s;
      gpu_decode::StageColumnChunk(copy.data(), length, *c.meta, *c.leaf, c.rows,
                                   /*pinned=*/false, &s);
      if (!s.on_gpu) continue;
      staged += round > 0;
      const std::string problem = CheckInsideStaging(s);
      EXPECT_EQ(problem, "") << name << " column " << c.leaf->name << " round " << round;
      if (!problem.empty()) return staged;
    }
  }
  return staged;
}

TEST(ParquetStagingDamage, ParquetTestingFiles) {
  const std::string dir = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";
  int64_t staged = 0;
  for (const char* name :
       {"alltypes_plain.snappy.parquet", "alltypes_dictionary.parquet",
        "datapage_v1-snappy-compressed-checksum.parquet", "datapage_v2.snappy.parquet",
        "nulls.snappy.parquet", "rle-dict-snappy-checksum.parquet",
        "plain-dict-uncompressed-checksum.parquet"}) {
    const std::string bytes = ReadBytes(dir + name);
    ASSERT_GT(bytes.size(), 12u) << "cannot read " << dir << name;
    staged += StageDamaged(name, bytes, 60);
    if (HasFailure()) return;
  }
  EXPECT_GT(staged, 0) << "no damaged chunk still staged";  // flips in values only stage
}

TEST(ParquetStagingDamage, TpchLineitemEveryCodecAndEncoding) {
  std::map<std::string, std::shared_ptr<Table>> tables;
  sql::Session session;
  ASSERT_TRUE(test_util::RegisterTpchTables(&session, 0.01, &tables).ok());
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_staging_damage_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  int64_t staged = 0, carried = 0;
  int n = 0;
  for (CompressionCodec codec :
       {CompressionCodec::SNAPPY, CompressionCodec::ZSTD, CompressionCodec::UNCOMPRESSED}) {
    for (bool dictionary : {true, false}) {
      WriteOptions w;
      w.codec = codec;
      w.dictionary = dictionary;
      w.data_page_bytes = 4096;  // many pages a chunk
      const std::string path = (dir / ("l" + std::to_string(n++) + ".parquet")).string();
      ASSERT_TRUE(WriteParquet(path, *tables.at("lineitem"), w).ok());
      staged += StageDamaged(path, ReadBytes(path), 8, &carried);
      if (HasFailure()) break;
    }
  }
  fs::remove_all(dir);
  EXPECT_GT(staged, 0);
  EXPECT_GT(carried, 0) << "no chunk was carried through the deferred path";
}

}  // namespace
}  // namespace tandem::parquet
