// `tandem describe PATH`: the schema and row count of a Parquet table (a file, a directory, a
// glob, hive-style partitions), read from the footers alone, so it is instant on any size.
#include <cstdio>
#include <string>
#include <vector>

#include "tandem/cli/command.h"
#include "tandem/io/file_listing.h"
#include "tandem/io/parquet/dataset.h"
#include "tandem/io/parquet/reader.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage = "describe PATH            schema and row count of a Parquet table";

// A partition key is int64 when every non-NULL value parses as one, as ReadParquet decides.
DataType PartitionType(const io::FileListing& listing, size_t key) {
  for (const auto& f : listing.files) {
    const auto& v = f.partition_values[key];
    int64_t ignored;
    if (v && !parquet::ParsePartitionInt64(*v, &ignored)) return DataType::String();
  }
  return DataType::Int64();
}

int RunDescribe(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].rfind("--", 0) == 0) {
    std::fprintf(stderr, "usage: tandem %s\n", kUsage);
    return 2;
  }
  auto listing = io::ListFiles(args[0]);
  if (!listing.ok()) return Fail(listing.status().ToString());
  int64_t rows = 0, row_groups = 0, bytes = 0;
  Schema schema;
  for (size_t i = 0; i < listing->files.size(); ++i) {
    auto file = parquet::ParquetFile::Open(listing->files[i].path);
    if (!file.ok()) return Fail(file.status().ToString());
    const auto& meta = (*file)->metadata();
    rows += meta.num_rows;
    row_groups += static_cast<int64_t>(meta.row_groups.size());
    for (const auto& rg : meta.row_groups) {
      for (const auto& chunk : rg.columns) {
        if (chunk.meta_data) bytes += chunk.meta_data->total_compressed_size;
      }
    }
    if (i == 0) schema = (*file)->schema();
  }
  for (size_t k = 0; k < listing->partition_keys.size(); ++k) {
    schema.fields.push_back({listing->partition_keys[k], PartitionType(*listing, k), true});
  }
  std::printf("%s: %lld rows, %zu file(s), %lld row group(s), %.1f MiB compressed\n",
              args[0].c_str(), static_cast<long long>(rows), listing->files.size(),
              static_cast<long long>(row_groups), bytes / (1024.0 * 1024.0));
  for (const Field& f : schema.fields) {
    std::printf("  %-20s %s%s\n", f.name.c_str(), f.type.ToString().c_str(),
                f.nullable ? "" : " not null");
  }
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(describe, "describe", kUsage, RunDescribe);

}  // namespace tandem::cli
