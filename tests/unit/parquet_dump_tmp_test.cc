// THROWAWAY (reader engineer): dumps every corpus file to /tmp/reader/dump for a pyarrow diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tandem/io/parquet/reader.h"

namespace tandem::parquet {

TEST(ParquetDumpTmp, Dump) {
  const std::string dir = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";
  std::filesystem::create_directories("/tmp/reader/dump");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".parquet") continue;
    auto file = ParquetFile::Open(entry.path().string());
    if (!file.ok()) continue;
    FILE* out = std::fopen(("/tmp/reader/dump/" + entry.path().filename().string() + ".txt").c_str(), "w");
    const Schema& s = (*file)->schema();
    for (int c = 0; c < s.num_fields(); ++c) {
      std::fprintf(out, "col %s %s\n", s.field(c).name.c_str(), s.field(c).type.ToString().c_str());
      for (int g = 0; g < (*file)->num_row_groups(); ++g) {
        auto b = (*file)->ReadRowGroup(g, {c});
        if (!b.ok()) { std::fprintf(out, "error\n"); break; }
        const Column& col = *(*b)->column(0);
        for (int64_t i = 0; i < col.length(); ++i) {
          if (col.IsNull(i)) { std::fprintf(out, "None\n"); continue; }
          const DataType& t = col.type();
          switch (t.id) {
            case TypeId::kBool: std::fprintf(out, "%d\n", col.GetBool(i)); break;
            case TypeId::kInt8: std::fprintf(out, "%d\n", col.Value<int8_t>(i)); break;
            case TypeId::kUInt8: std::fprintf(out, "%u\n", col.Value<uint8_t>(i)); break;
            case TypeId::kInt16: std::fprintf(out, "%d\n", col.Value<int16_t>(i)); break;
            case TypeId::kUInt16: std::fprintf(out, "%u\n", col.Value<uint16_t>(i)); break;
            case TypeId::kInt32: case TypeId::kDate32: std::fprintf(out, "%d\n", col.Value<int32_t>(i)); break;
            case TypeId::kUInt32: std::fprintf(out, "%u\n", col.Value<uint32_t>(i)); break;
            case TypeId::kInt64: case TypeId::kTimestamp: std::fprintf(out, "%lld\n", (long long)col.Value<int64_t>(i)); break;
            case TypeId::kUInt64: std::fprintf(out, "%llu\n", (unsigned long long)col.Value<uint64_t>(i)); break;
            case TypeId::kFloat32: std::fprintf(out, "%.17g\n", (double)col.Value<float>(i)); break;
            case TypeId::kFloat64: std::fprintf(out, "%.17g\n", col.Value<double>(i)); break;
            case TypeId::kDecimal:
              if (t.is_wide_decimal()) {
                __int128 v = col.Value<__int128>(i);
                bool neg = v < 0; unsigned __int128 u = neg ? -(unsigned __int128)v : v;
                std::string s; do { s.insert(s.begin(), char('0' + int(u % 10))); u /= 10; } while (u);
                std::fprintf(out, "%s%s\n", neg ? "-" : "", s.c_str());
              } else {
                std::fprintf(out, "%lld\n", (long long)col.Value<int64_t>(i));
              }
              break;
            case TypeId::kString: case TypeId::kBinary: {
              auto sv = col.GetString(i);
              for (unsigned char ch : sv) std::fprintf(out, "%02x", ch);
              std::fprintf(out, "\n");
              break;
            }
          }
        }
      }
    }
    std::fclose(out);
  }
}

}  // namespace tandem::parquet

#include <chrono>
namespace tandem::parquet {
TEST(ParquetDumpTmp, Bench) {
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto f = ParquetFile::Open("/tmp/reader/lineitem.parquet");
    ASSERT_TRUE(f.ok());
    std::vector<int> cols;
    for (int i = 0; i < (*f)->schema().num_fields(); ++i) cols.push_back(i);
    int64_t rows = 0;
    for (int g = 0; g < (*f)->num_row_groups(); ++g) {
      auto b = (*f)->ReadRowGroup(g, cols);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      rows += (*b)->num_rows;
    }
    auto t1 = std::chrono::steady_clock::now();
    std::printf("rows %lld: %.3f s\n", (long long)rows, std::chrono::duration<double>(t1 - t0).count());
  }
}
}  // namespace tandem::parquet
