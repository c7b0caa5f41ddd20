// CSV reader: tokenizing (quotes, escapes, line ends, BOM), inference, explicit schemas, exact
// error places, and block boundaries (the same text read through tiny blocks must give the same
// table as read in one piece).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/format/value_format.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/csv/csv_chunk_source.h"

namespace tandem::csv {
namespace {

Table Read(const std::string& text, CsvReadOptions options = {}) {
  auto result = ReadCsvBuffer(text, options, "t.csv");
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? std::move(result).value() : Table{};
}

std::string ReadError(const std::string& text, CsvReadOptions options = {}) {
  auto result = ReadCsvBuffer(text, options, "t.csv");
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.status().ToString();
}

// All rows of column `c` as text ("NULL" for nulls), across batches.
std::vector<std::string> Texts(const Table& t, int c) {
  std::vector<std::string> out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::string s;
      if (b->column(c)->IsNull(r)) {
        s = "NULL";
      } else {
        format::AppendText(*b->column(c), r, &s);
      }
      out.push_back(s);
    }
  }
  return out;
}

using V = std::vector<std::string>;

TEST(CsvReader, InfersTypes) {
  Table t = Read(
      "b,i,f,d,ts,tz,s\n"
      "true,1,1.5,2024-01-02,2024-01-02T03:04:05,2024-01-02T03:04:05+01:00,x\n"
      "FALSE,-9223372036854775808,1e3,1969-12-31,2024-01-02 03:04,2024-01-02T00:00:00Z,1\n"
      ",9223372036854775807,-inf,,,,\n");
  ASSERT_EQ(t.schema.num_fields(), 7);
  EXPECT_EQ(t.schema.field(0).type, DataType::Bool());
  EXPECT_EQ(t.schema.field(1).type, DataType::Int64());
  EXPECT_EQ(t.schema.field(2).type, DataType::Float64());
  EXPECT_EQ(t.schema.field(3).type, DataType::Date32());
  EXPECT_EQ(t.schema.field(4).type, DataType::Timestamp(false));
  EXPECT_EQ(t.schema.field(5).type, DataType::Timestamp(true));
  EXPECT_EQ(t.schema.field(6).type, DataType::String());
  EXPECT_EQ(Texts(t, 0), (V{"true", "false", "NULL"}));
  EXPECT_EQ(Texts(t, 1), (V{"1", "-9223372036854775808", "9223372036854775807"}));
  EXPECT_EQ(Texts(t, 2), (V{"1.5", "1000.0", "-Infinity"}));
  EXPECT_EQ(Texts(t, 4), (V{"2024-01-02T03:04:05.000000", "2024-01-02T03:04:00.000000", "NULL"}));
  EXPECT_EQ(Texts(t, 5), (V{"2024-01-02T02:04:05.000000Z", "2024-01-02T00:00:00.000000Z", "NULL"}));
  EXPECT_EQ(Texts(t, 6), (V{"x", "1", "NULL"}));
}

TEST(CsvReader, IntWidensToFloatAndDateToTimestamp) {
  Table t = Read("a,b,c\n1,2024-01-01,1\n2.5,2024-01-02T10:00:00,2024-01-01\n");
  EXPECT_EQ(t.schema.field(0).type, DataType::Float64());
  EXPECT_EQ(t.schema.field(1).type, DataType::Timestamp(false));
  EXPECT_EQ(t.schema.field(2).type, DataType::String());
  EXPECT_EQ(Texts(t, 1), (V{"2024-01-01T00:00:00.000000", "2024-01-02T10:00:00.000000"}));
}

TEST(CsvReader, QuotesDelimitersAndNewlines) {
  Table t = Read("a,b\n\"x,y\",\"line1\nline2\"\n\"say \"\"hi\"\"\",\"\"\nplain,\n");
  EXPECT_EQ(Texts(t, 0), (V{"x,y", "say \"hi\"", "plain"}));
  // A quoted empty field is an empty string, an unquoted one is NULL.
  EXPECT_EQ(Texts(t, 1), (V{"line1\nline2", "", "NULL"}));
}

TEST(CsvReader, BackslashEscapeAndOtherDelimiter) {
  CsvReadOptions o;
  o.escape = '\\';
  o.delimiter = ';';
  Table t = Read("a;b\n\"q\\\"x\";a\\;b\n", o);
  EXPECT_EQ(Texts(t, 0), (V{"q\"x"}));
  EXPECT_EQ(Texts(t, 1), (V{"a;b"}));
}

TEST(CsvReader, CrlfBomAndMissingFinalNewline) {
  Table t = Read("\xEF\xBB\xBFid,name\r\n1,a\r\n\r\n2,\"b\r\nc\"\r\n3,z");
  EXPECT_EQ(t.schema.field(0).name, "id");
  EXPECT_EQ(Texts(t, 0), (V{"1", "2", "3"}));
  EXPECT_EQ(Texts(t, 1), (V{"a", "b\r\nc", "z"}));
}

TEST(CsvReader, TrailingDelimiterMakesEmptyLastField) {
  Table t = Read("a,b\n1,\n2,");
  EXPECT_EQ(Texts(t, 1), (V{"NULL", "NULL"}));
}

TEST(CsvReader, EmptyFileAndHeaderOnly) {
  Table empty = Read("");
  EXPECT_EQ(empty.schema.num_fields(), 0);
  EXPECT_EQ(empty.num_rows(), 0);
  Table header = Read("a,b\n");
  ASSERT_EQ(header.schema.num_fields(), 2);
  EXPECT_EQ(header.schema.field(1).name, "b");
  EXPECT_EQ(header.schema.field(1).type, DataType::String());
  EXPECT_EQ(header.num_rows(), 0);
}

TEST(CsvReader, NoHeaderNamesColumnsAndEmptyHeaderNames) {
  CsvReadOptions o;
  o.header = false;
  Table t = Read("1,x\n2,y\n", o);
  EXPECT_EQ(t.schema.field(0).name, "column_1");
  EXPECT_EQ(t.schema.field(1).name, "column_2");
  EXPECT_EQ(t.num_rows(), 2);
  Table named = Read("a,\n1,2\n");
  EXPECT_EQ(named.schema.field(1).name, "column_2");
}

TEST(CsvReader, OneColumnEmptyLinesAreNulls) {
  Table t = Read("a\n1\n\n3\n");
  EXPECT_EQ(Texts(t, 0), (V{"1", "NULL", "3"}));
}

TEST(CsvReader, NullMarkers) {
  CsvReadOptions o;
  o.null_markers = {"NA", "null"};
  Table t = Read("a,b\nNA,\"NA\"\n5,null\n", o);
  EXPECT_EQ(t.schema.field(0).type, DataType::Int64());
  EXPECT_EQ(Texts(t, 0), (V{"NULL", "5"}));
  EXPECT_EQ(Texts(t, 1), (V{"NA", "NULL"}));
}

TEST(CsvReader, RaggedRowNamesLine) {
  EXPECT_EQ(ReadError("a,b\n1,2\n\"x\ny\",3\n4\n"),
            "file t.csv, line 5: expected 2 fields, found 1");
  EXPECT_EQ(ReadError("a,b\n1,2,3\n"), "file t.csv, line 2: expected 2 fields, found 3");
}

TEST(CsvReader, BadValuePastInferenceNamesPlace) {
  CsvReadOptions o;
  o.inference_rows = 2;
  // Line numbers are physical: the quoted newline in row 1 moves everything down one line.
  EXPECT_EQ(ReadError("s,n\n\"a\nb\",1\nc,2\nd,3\ne,abc\n", o),
            "file t.csv, line 6, column 2 (n): cannot parse 'abc' as int64");
  EXPECT_EQ(ReadError("d\n2024-01-01\n2024-01-02\n2024-02-30\n", o),
            "file t.csv, line 4, column 1 (d): cannot parse '2024-02-30' as date32");
}

TEST(CsvReader, UnclosedQuoteAndJunkAfterQuote) {
  EXPECT_EQ(ReadError("a\n1\n\"abc\n"),
            "file t.csv, line 3: quoted field not closed before the end of the file");
  EXPECT_EQ(ReadError("a,b\n\"x\"y,1\n"),
            "file t.csv, line 2, column 1: 'y' after the closing quote of a field");
}

TEST(CsvReader, ExplicitSchemaEveryType) {
  CsvReadOptions o;
  o.schema = Schema{{{"i8", DataType::Int8()},
                     {"u64", DataType::UInt64()},
                     {"f32", DataType::Float32()},
                     {"d", DataType::Decimal(38, 4)},
                     {"n", DataType::Decimal(18, 2)},
                     {"ts", DataType::Timestamp(true)},
                     {"b", DataType::Bool()},
                     {"bin", DataType::Binary()}}};
  const std::string max38 = std::string(34, '9') + "." + std::string(4, '9');
  Table t = Read(
      "a,b,c,d,e,f,g,h\n"
      "-128,18446744073709551615,0.1," +
          max38 +
          ",-0.05,2024-01-02T03:04:05.1234560+00:00,1,xy\n"
          "127,0,NaN,-" +
          max38 +
          ",9999999999999999.99,1969-12-31T23:59:59.999999Z,false,\n"
          "0,1,-0.0,1.5e3,12.3,1900-01-01,TRUE,\"\"\n",
      o);
  ASSERT_EQ(t.schema.field(0).name, "i8");
  EXPECT_EQ(Texts(t, 0), (V{"-128", "127", "0"}));
  EXPECT_EQ(Texts(t, 1), (V{"18446744073709551615", "0", "1"}));
  EXPECT_EQ(Texts(t, 2), (V{"0.1", "NaN", "-0.0"}));
  EXPECT_EQ(Texts(t, 3), (V{max38, "-" + max38, "1500.0000"}));
  EXPECT_EQ(Texts(t, 4), (V{"-0.05", "9999999999999999.99", "12.30"}));
  EXPECT_EQ(Texts(t, 6), (V{"true", "false", "true"}));
  EXPECT_EQ(Texts(t, 7), (V{"eHk=", "NULL", ""}));
}

TEST(CsvReader, ExplicitSchemaRejectsLossAndOverflow) {
  auto err = [](const std::string& type_text, DataType type, const std::string& value) {
    CsvReadOptions o;
    o.schema = Schema{{{"x", type}}};
    return ReadError("x\n" + value + "\n", o);
  };
  EXPECT_EQ(err("int8", DataType::Int8(), "128"),
            "file t.csv, line 2, column 1 (x): cannot parse '128' as int8");
  EXPECT_EQ(err("uint8", DataType::UInt8(), "-1"),
            "file t.csv, line 2, column 1 (x): cannot parse '-1' as uint8");
  EXPECT_EQ(err("int64", DataType::Int64(), "9223372036854775808"),
            "file t.csv, line 2, column 1 (x): cannot parse '9223372036854775808' as int64");
  EXPECT_EQ(err("dec", DataType::Decimal(5, 2), "1.234"),
            "file t.csv, line 2, column 1 (x): cannot parse '1.234' as decimal(5,2): more "
            "fractional digits than the scale");
  EXPECT_EQ(err("dec", DataType::Decimal(5, 2), "1000"),
            "file t.csv, line 2, column 1 (x): cannot parse '1000' as decimal(5,2): too many "
            "digits for the precision");
  EXPECT_EQ(err("dec", DataType::Decimal(38, 0), std::string(39, '9')),
            "file t.csv, line 2, column 1 (x): cannot parse '" + std::string(39, '9') +
                "' as decimal(38,0): too many digits for the precision");
  EXPECT_EQ(err("ts", DataType::Timestamp(false), "2024-01-01T00:00:00Z"),
            "file t.csv, line 2, column 1 (x): cannot parse '2024-01-01T00:00:00Z' as "
            "timestamp[us]: a time zone in a column without one");
  EXPECT_EQ(err("ts", DataType::Timestamp(false), "2024-01-01T00:00:00.0000001"),
            "file t.csv, line 2, column 1 (x): cannot parse '2024-01-01T00:00:00.0000001' as "
            "timestamp[us]");
}

TEST(CsvReader, SchemaFieldCountMismatch) {
  CsvReadOptions o;
  o.schema = Schema{{{"x", DataType::Int64()}}};
  EXPECT_EQ(ReadError("a,b\n1,2\n", o),
            "file t.csv: the schema has 1 fields but the CSV has 2 columns");
}

TEST(CsvReader, ProjectionAndUnknownColumn) {
  CsvReadOptions o;
  o.columns = {"c", "a"};
  Table t = Read("a,b,c\n1,x,2.5\n", o);
  ASSERT_EQ(t.schema.num_fields(), 2);
  EXPECT_EQ(t.schema.field(0).name, "c");
  EXPECT_EQ(t.schema.field(0).type, DataType::Float64());
  EXPECT_EQ(Texts(t, 1), (V{"1"}));
  o.columns = {"zz"};
  EXPECT_EQ(ReadError("a,b\n1,2\n", o), "file t.csv: no column 'zz' (columns: a, b)");
}

TEST(CsvReader, StreamingReaderHonoursBatchRows) {
  CsvReadOptions o;
  o.batch_rows = 3;
  std::string text = "n\n";
  for (int i = 0; i < 10; ++i) text += std::to_string(i) + "\n";
  auto reader = CsvReader::OpenBuffer(text, o, "t.csv");
  ASSERT_TRUE(reader.ok());
  std::vector<int64_t> sizes;
  int64_t expect = 0;
  while (true) {
    auto batch = (*reader)->Next();
    ASSERT_TRUE(batch.ok());
    if (!*batch) break;
    sizes.push_back((*batch)->num_rows);
    for (int64_t r = 0; r < (*batch)->num_rows; ++r) {
      EXPECT_EQ((*batch)->column(0)->Value<int64_t>(r), expect++);
    }
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
}

TEST(CsvReader, MissingFileIsIOError) {
  auto r = ReadCsv("/nonexistent/dir/x.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("/nonexistent/dir/x.csv"), std::string::npos);
}

// Random CSV with quotes, CRLF, embedded newlines and escapes: reading the file through blocks of
// 1..64 bytes gives the same values as reading the whole text at once.
TEST(CsvReader, TinyBlocksGiveSameTable) {
  std::mt19937 rng(42);
  const char* pieces[] = {"a", "1", ",", "\"", "\n", "x y", "\r\n", "é", "2.5"};
  std::string text = "c1,c2,c3\n";
  for (int row = 0; row < 300; ++row) {
    for (int c = 0; c < 3; ++c) {
      if (c) text += ",";
      std::string v;
      const int n = rng() % 5;
      for (int k = 0; k < n; ++k) v += pieces[rng() % 9];
      const bool quote = v.find_first_of(",\"\r\n") != std::string::npos || rng() % 4 == 0;
      if (quote) {
        std::string q = "\"";
        for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        text += q + "\"";
      } else {
        text += v;
      }
    }
    text += rng() % 2 ? "\n" : "\r\n";
  }
  char path[] = "/tmp/tandem_csv_blocks_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  CsvReadOptions o;
  o.batch_rows = 7;
  Table whole = Read(text, o);
  ASSERT_EQ(whole.num_rows(), 300);
  for (int64_t block : {1, 2, 3, 5, 17, 64}) {
    internal::SetBlockSizeForTesting(block);
    auto r = ReadCsv(path, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (int c = 0; c < 3; ++c) EXPECT_EQ(Texts(*r, c), Texts(whole, c)) << "block " << block;
  }
  internal::SetBlockSizeForTesting(8 << 20);
  unlink(path);
}

}  // namespace
}  // namespace tandem::csv
