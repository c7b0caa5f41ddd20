// libFuzzer target for the Parquet reader: the input bytes become a file, which is opened and
// every column of every row group decoded, one column at a time so that an unsupported column
// does not hide the others. Any crash, sanitizer report, timeout or memory blow-up is a bug;
// error Statuses are the expected outcome for most inputs. Decoded batches must be consistent.
// Seeds: fuzz/seeds/parquet_reader_fuzz (small files from apache/parquet-testing).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/statistics.h"

namespace {

// One scratch file per fuzzing process (libFuzzer's -fork/-jobs run several processes).
const std::string& ScratchPath() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tandem_parquet_fuzz_" +
           std::to_string(::getpid()) + ".parquet";
  }();
  return path;
}

bool WriteScratch(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(ScratchPath().c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!WriteScratch(data, size)) return 0;
  auto file = tandem::parquet::ParquetFile::Open(ScratchPath());
  if (!file.ok()) return 0;
  const auto& parquet_file = **file;
  // Statistics decoding, formatting and pruning see the same damaged footer.
  const auto& meta = parquet_file.metadata();
  const auto& schema = parquet_file.schema();
  const auto leaves = tandem::parquet::LeafPaths(meta);
  for (int rg = 0; rg < parquet_file.num_row_groups(); ++rg) {
    const auto& chunks = meta.row_groups[rg].columns;
    for (size_t c = 0; c < chunks.size() && c < leaves.size(); ++c) {
      if (!chunks[c].meta_data || !chunks[c].meta_data->statistics ||
          static_cast<int>(c) >= schema.num_fields()) {
        continue;
      }
      const auto& type = schema.field(static_cast<int>(c)).type;
      auto stats = tandem::parquet::DecodeStatistics(*chunks[c].meta_data->statistics,
                                                     meta.schema[leaves[c].schema_index], type);
      if (stats.min) tandem::parquet::FormatStatValue(*stats.min, type);
      std::vector<tandem::parquet::ScanPredicate> predicates = {
          {schema.field(static_cast<int>(c)).name, tandem::parquet::ScanPredicate::Op::kGt,
           int64_t{0}},
          {schema.field(static_cast<int>(c)).name,
           tandem::parquet::ScanPredicate::Op::kIsNull,
           {}}};
      tandem::parquet::RowGroupMayMatch(meta, rg, schema, predicates);
    }
  }
  for (int rg = 0; rg < parquet_file.num_row_groups(); ++rg) {
    for (int c = 0; c < parquet_file.schema().num_fields(); ++c) {
      auto batch = parquet_file.ReadRowGroup(rg, {c});
      if (!batch.ok()) continue;
      if (!(*batch)->Validate().ok()) {
        std::fprintf(stderr, "inconsistent batch: %s\n", (*batch)->Validate().message().c_str());
        std::abort();
      }
    }
  }
  return 0;
}
