// Value formatting: decimals, dates, timestamps, floats, JSON strings and base64 against
// independent oracles (Python's datetime / numpy day counts, RFC 4648 vectors, from_chars).
#include "tandem/format/value_format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "tandem/column/column_builder.h"

namespace tandem::format {
namespace {

template <typename F, typename... A>
std::string Str(F fn, A... args) {
  std::string out;
  fn(args..., &out);
  return out;
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

TEST(ValueFormat, DecimalsKeepTheirScale) {
  EXPECT_EQ(Str(AppendDecimal, int128_t{1230}, 2), "12.30");
  EXPECT_EQ(Str(AppendDecimal, int128_t{-5}, 2), "-0.05");
  EXPECT_EQ(Str(AppendDecimal, int128_t{0}, 3), "0.000");
  EXPECT_EQ(Str(AppendDecimal, int128_t{-7}, 0), "-7");
  const int128_t max38 = Pow10(38) - 1;
  EXPECT_EQ(Str(AppendDecimal, max38, 0), std::string(38, '9'));
  EXPECT_EQ(Str(AppendDecimal, -max38, 38), "-0." + std::string(38, '9'));
  EXPECT_EQ(Str(AppendDecimal, max38, 10), std::string(28, '9') + "." + std::string(10, '9'));
  EXPECT_EQ(Str(AppendInt128, std::numeric_limits<int128_t>::min()),
            "-170141183460469231731687303715884105728");
}

TEST(ValueFormat, DatesMatchPythonDayCounts) {
  // Day numbers from Python: (date(y, m, d) - date(1970, 1, 1)).days and numpy datetime64[D].
  const std::pair<int32_t, const char*> cases[] = {
      {0, "1970-01-01"},
      {-1, "1969-12-31"},
      {19724, "2024-01-02"},
      {11016, "2000-02-29"},
      {-719162, "0001-01-01"},
      {2932896, "9999-12-31"},
      {-25508, "1900-03-01"},
      {-735525, "-0044-03-15"},
      {-2147483648, "-5877641-06-23"},
      {2147483647, "5881580-07-11"},
  };
  for (const auto& [days, text] : cases) {
    EXPECT_EQ(Str(AppendDate, days), text);
    const CivilDate c = CivilFromDays(days);
    EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), days);
  }
}

TEST(ValueFormat, CivilRoundTripOverManyYears) {
  for (int64_t d = -1000000; d <= 1000000; d += 13) {
    const CivilDate c = CivilFromDays(d);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
    ASSERT_GE(c.day, 1);
    ASSERT_LE(c.day, DaysInMonth(c.year, c.month));
  }
}

TEST(ValueFormat, Timestamps) {
  EXPECT_EQ(Str(AppendTimestamp, int64_t{0}, false), "1970-01-01T00:00:00.000000");
  EXPECT_EQ(Str(AppendTimestamp, int64_t{-1}, true), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(Str(AppendTimestamp, int64_t{1704164645123456}, false), "2024-01-02T03:04:05.123456");
  // numpy: np.datetime64(-2**63 + 1, 'us') and np.datetime64(2**63 - 1, 'us').
  EXPECT_EQ(Str(AppendTimestamp, std::numeric_limits<int64_t>::min() + 1, false),
            "-290308-12-21T19:59:05.224193");
  EXPECT_EQ(Str(AppendTimestamp, std::numeric_limits<int64_t>::max(), false),
            "294247-01-10T04:00:54.775807");
  // int64 min itself must not overflow.
  EXPECT_EQ(Str(AppendTimestamp, std::numeric_limits<int64_t>::min(), false),
            "-290308-12-21T19:59:05.224192");
}

TEST(ValueFormat, FloatsRoundTripAndSpecials) {
  EXPECT_EQ(Str(AppendDouble, std::nan("")), "NaN");
  EXPECT_EQ(Str(AppendDouble, std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(Str(AppendDouble, -std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(Str(AppendDouble, -0.0), "-0.0");
  EXPECT_EQ(Str(AppendDouble, 1.0), "1.0");
  EXPECT_EQ(Str(AppendDouble, 0.1), "0.1");
  EXPECT_EQ(Str(AppendDouble, 1e20), "1e+20");
  EXPECT_EQ(Str(AppendFloat, 0.1f), "0.1");
  const double values[] = {std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::denorm_min(), 1.0 / 3, -123456.789e-300};
  for (double v : values) {
    const std::string s = Str(AppendDouble, v);
    double back = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), back);
    ASSERT_EQ(res.ec, std::errc()) << s;
    EXPECT_EQ(back, v) << s;
  }
}

TEST(ValueFormat, JsonFloatsSpecialsAreStrings) {
  ColumnBuilder b(DataType::Float64());
  b.Append<double>(std::nan(""));
  b.Append<double>(-std::numeric_limits<double>::infinity());
  b.Append<double>(2.5);
  b.AppendNull();
  auto c = b.Finish();
  EXPECT_EQ(Str(AppendJson, *c, int64_t{0}), "\"NaN\"");
  EXPECT_EQ(Str(AppendJson, *c, int64_t{1}), "\"-Infinity\"");
  EXPECT_EQ(Str(AppendJson, *c, int64_t{2}), "2.5");
  EXPECT_EQ(Str(AppendJson, *c, int64_t{3}), "null");
}

TEST(ValueFormat, JsonOfEveryType) {
  ColumnBuilder dec(DataType::Decimal(5, 2));
  dec.Append<int64_t>(-5);
  EXPECT_EQ(Str(AppendJson, *dec.Finish(), int64_t{0}), "\"-0.05\"");
  ColumnBuilder wide(DataType::Decimal(38, 1));
  wide.Append<int128_t>(Pow10(37) + 1);
  EXPECT_EQ(Str(AppendJson, *wide.Finish(), int64_t{0}), "\"1" + std::string(35, '0') + "0.1\"");
  ColumnBuilder date(DataType::Date32());
  date.Append<int32_t>(-1);
  EXPECT_EQ(Str(AppendJson, *date.Finish(), int64_t{0}), "\"1969-12-31\"");
  ColumnBuilder ts(DataType::Timestamp(true));
  ts.Append<int64_t>(0);
  EXPECT_EQ(Str(AppendJson, *ts.Finish(), int64_t{0}), "\"1970-01-01T00:00:00.000000Z\"");
  ColumnBuilder bin(DataType::Binary());
  bin.AppendString("foo");
  EXPECT_EQ(Str(AppendJson, *bin.Finish(), int64_t{0}), "\"Zm9v\"");
  ColumnBuilder flag(DataType::Bool());
  flag.AppendBool(false);
  EXPECT_EQ(Str(AppendJson, *flag.Finish(), int64_t{0}), "false");
  ColumnBuilder i64(DataType::Int64());
  i64.Append<int64_t>(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Str(AppendJson, *i64.Finish(), int64_t{0}), "-9223372036854775808");
  ColumnBuilder u64(DataType::UInt64());
  u64.Append<uint64_t>(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Str(AppendJson, *u64.Finish(), int64_t{0}), "18446744073709551615");
}

TEST(ValueFormat, JsonStringEscaping) {
  EXPECT_EQ(Str(AppendJsonString, std::string_view("a\"b\\c\n\t\x01")),
            "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(Str(AppendJsonString, std::string_view("h\xC3\xA9 \xF0\x9F\x98\x80")),
            "\"h\xC3\xA9 \xF0\x9F\x98\x80\"");
  // Invalid UTF-8: lone continuation byte, truncated sequence, overlong, surrogate.
  EXPECT_EQ(Str(AppendJsonString, std::string_view("x\x80y")), "\"x\xEF\xBF\xBDy\"");
  EXPECT_EQ(Str(AppendJsonString, std::string_view("\xE2\x82")), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Str(AppendJsonString, std::string_view("\xC0\xAF")), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Str(AppendJsonString, std::string_view("\xED\xA0\x80")),
            "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Str(AppendJsonString, std::string_view("nul\0x", 5)), "\"nul\\u0000x\"");
}

TEST(ValueFormat, Base64Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [in, out] : vectors) EXPECT_EQ(Str(AppendBase64, std::string_view(in)), out);
}

}  // namespace
}  // namespace tandem::format
