// ParquetFile::ReadColumnCodes and the row conditions tested on dictionaries
// (io/parquet/row_conditions.h), against the whole read: every column of every file of the
// parquet-testing corpus that reads as codes (dictionary pages from parquet-mr, Arrow, Impala ...,
// strings, integers, floats, decimals, INT96 timestamps, data pages v1 and v2, NULLs) gives the
// same values as its ordinary decode, and the rows a condition keeps are exactly the rows whose
// decoded value meets it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/row_conditions.h"

namespace tandem::parquet {
namespace {

const std::string kData = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";

// A test every value can be put to: strings of even length, fixed-width values whose first byte
// is even.
bool Even(const Column& c, int64_t i) {
  if (c.type().is_string_like()) return c.GetString(i).size() % 2 == 0;
  return c.values()->data()[i * c.type().byte_width()] % 2 == 0;
}

// Whether row i of a and row j of b hold the same value (or are both NULL).
bool Same(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsNull(i) != b.IsNull(j)) return false;
  if (a.IsNull(i)) return true;
  if (a.type().is_string_like()) return a.GetString(i) == b.GetString(j);
  const int w = a.type().byte_width();
  return std::memcmp(a.values()->data() + i * w, b.values()->data() + j * w, w) == 0;
}

// A condition that holds for Even values, and for NULL when `null_kept`.
RowCondition EvenCondition(bool null_kept) {
  RowCondition c;
  c.column = "any";
  c.keep_null = null_kept;
  c.keep = [](const ColumnPtr& values) -> Result<std::vector<uint8_t>> {
    std::vector<uint8_t> keep(static_cast<size_t>(values->length()));
    for (int64_t i = 0; i < values->length(); ++i) {
      keep[static_cast<size_t>(i)] = values->IsValid(i) && Even(*values, i);
    }
    return keep;
  };
  return c;
}

// Compares the codes of one chunk with its decoded column; returns whether it read as codes.
bool ExpectCodesMatch(const ParquetFile& file, int g, int c, const std::string& what) {
  auto codes = file.ReadColumnCodes(g, c);
  auto whole = file.ReadRowGroup(g, {c});
  // A chunk that decodes reads as codes or says it is not dictionary-encoded; it never fails
  // where the ordinary decode succeeds, nor succeeds where that fails.
  if (!codes.ok()) {
    EXPECT_FALSE(whole.ok()) << what << ": " << codes.status().ToString();
    return false;
  }
  if (!*codes) return false;
  if (!whole.ok()) {
    ADD_FAILURE() << what << ": read as codes, but its decode fails: " << whole.status().ToString();
    return false;
  }
  const Column& expected = *(*whole)->column(0);
  const DictionaryCodes& dc = **codes;
  EXPECT_EQ(dc.num_rows, expected.length()) << what;
  EXPECT_EQ(dc.null_count, expected.null_count()) << what;
  const ColumnPtr values = MaterializeCodes(dc, nullptr);
  EXPECT_EQ(values->length(), expected.length()) << what;
  for (int64_t r = 0; r < expected.length() && r < values->length(); ++r) {
    if (!Same(*values, r, expected, r)) {
      ADD_FAILURE() << what << ", row " << r << " differs";
      return true;
    }
  }
  for (bool null_kept : {false, true}) {
    const RowCondition condition = EvenCondition(null_kept);
    bool all = false;
    auto rows = RowsMeetingConditions({&condition}, {&dc}, dc.num_rows, &all);
    EXPECT_TRUE(rows.ok()) << what;
    if (!rows.ok()) continue;
    std::vector<int32_t> want;
    for (int64_t r = 0; r < expected.length(); ++r) {
      const bool kept = expected.IsNull(r) ? null_kept : Even(expected, r);
      if (kept) want.push_back(static_cast<int32_t>(r));
    }
    if (all) {
      EXPECT_EQ(static_cast<int64_t>(want.size()), expected.length()) << what;
    } else {
      EXPECT_EQ(*rows, want) << what << (null_kept ? ", NULL kept" : "");
      const ColumnPtr kept = MaterializeCodes(dc, &*rows);
      EXPECT_EQ(kept->length(), static_cast<int64_t>(want.size())) << what;
      for (size_t i = 0; i < want.size() && static_cast<int64_t>(i) < kept->length(); ++i) {
        const auto k = static_cast<int64_t>(i);
        if (!Same(*kept, k, expected, want[i])) {
          ADD_FAILURE() << what << ", kept row " << i << " differs";
          break;
        }
      }
    }
  }
  return true;
}

TEST(ParquetDictionaryCodes, CorpusColumnsReadAsCodesAsWhole) {
  int as_codes = 0, not_codes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".parquet") continue;
    auto file = ParquetFile::Open(path);
    if (!file.ok()) continue;
    for (int c = 0; c < (*file)->schema().num_fields(); ++c) {
      if ((*file)->schema().field(c).type.id == TypeId::kBool) continue;
      for (int g = 0; g < (*file)->num_row_groups(); ++g) {
        const std::string what = path + ", row group " + std::to_string(g) + ", column " +
                                 (*file)->schema().field(c).name;
        if (ExpectCodesMatch(**file, g, c, what)) {
          ++as_codes;
        } else {
          ++not_codes;
        }
      }
    }
  }
  // The corpus holds both: dictionary-encoded chunks and PLAIN, DELTA or BYTE_STREAM_SPLIT ones.
  EXPECT_GE(as_codes, 50);
  EXPECT_GT(not_codes, 20);
  std::printf("%d chunks read as codes, %d not\n", as_codes, not_codes);
}

TEST(ParquetDictionaryCodes, ConditionsOfSeveralColumnsAllMustHold) {
  DictionaryCodes a, b;
  auto dictionary = [](std::vector<std::string> values) {
    std::vector<int32_t> offsets{0};
    std::string bytes;
    for (const auto& v : values) {
      bytes += v;
      offsets.push_back(static_cast<int32_t>(bytes.size()));
    }
    return std::make_shared<Column>(DataType::String(), static_cast<int64_t>(values.size()), 0,
                                    nullptr, Buffer::CopyOf(offsets.data(), offsets.size() * 4),
                                    Buffer::CopyOf(bytes.data(), bytes.size()));
  };
  const std::vector<uint32_t> codes_a{0, 1, 0, 1, 0}, codes_b{1, 1, 0, 0, 1};
  a = {dictionary({"xx", "y"}), Buffer::CopyOf(codes_a.data(), 20), nullptr, 5, 0};
  b = {dictionary({"z", "ww"}), Buffer::CopyOf(codes_b.data(), 20), nullptr, 5, 0};
  const RowCondition even = EvenCondition(false);
  bool all = true;
  auto rows = RowsMeetingConditions({&even, &even}, {&a, &b}, 5, &all);
  ASSERT_TRUE(rows.ok());
  EXPECT_FALSE(all);
  // a keeps rows 0, 2, 4 ("xx"); b keeps rows 0, 1, 4 ("ww").
  EXPECT_EQ(*rows, (std::vector<int32_t>{0, 4}));
}

}  // namespace
}  // namespace tandem::parquet
