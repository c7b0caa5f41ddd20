// Parquet statistics: decoding of bounds as the spec encodes them (PLAIN little-endian numbers,
// big-endian two's-complement decimals, raw bytes), the deprecated-field rules, NaN and zero
// handling, predicate evaluation against bounds, and row-group pruning on a hand-built footer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tandem/io/parquet/statistics.h"

namespace tandem::parquet {
namespace {

using int128 = __int128;
using Op = ScanPredicate::Op;

template <typename T>
std::string LE(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

SchemaElement Leaf(PhysicalType t, std::optional<ConvertedType> ct = std::nullopt) {
  SchemaElement e;
  e.type = t;
  e.name = "c";
  e.repetition = Repetition::OPTIONAL;
  e.converted_type = ct;
  return e;
}

Statistics MinMax(std::string lo, std::string hi, std::optional<int64_t> nulls = std::nullopt) {
  Statistics s;
  s.min_value = std::move(lo);
  s.max_value = std::move(hi);
  s.null_count = nulls;
  return s;
}

int128 I(const std::optional<StatValue>& v) { return std::get<int128>(*v); }
double D(const std::optional<StatValue>& v) { return std::get<double>(*v); }

TEST(ParquetStatistics, Int32Signed) {
  auto st = DecodeStatistics(MinMax(LE<int32_t>(-5), LE<int32_t>(10), 3), Leaf(PhysicalType::INT32),
                             DataType::Int32());
  ASSERT_TRUE(st.min && st.max);
  EXPECT_TRUE(I(st.min) == -5);
  EXPECT_TRUE(I(st.max) == 10);
  EXPECT_EQ(st.null_count, 3);
  EXPECT_FALSE(st.from_deprecated_fields);
}

TEST(ParquetStatistics, UnsignedIntegersAreZeroExtended) {
  auto st = DecodeStatistics(MinMax(LE<uint32_t>(1), LE<uint32_t>(0xFFFFFFFFu)),
                             Leaf(PhysicalType::INT32, ConvertedType::UINT_32), DataType::UInt32());
  ASSERT_TRUE(st.max);
  EXPECT_TRUE(I(st.max) == int128{4294967295LL});
  st = DecodeStatistics(MinMax(LE<uint64_t>(0), LE<uint64_t>(~uint64_t{0})),
                        Leaf(PhysicalType::INT64, ConvertedType::UINT_64), DataType::UInt64());
  ASSERT_TRUE(st.max);
  EXPECT_TRUE(I(st.max) == int128{~uint64_t{0}});
}

TEST(ParquetStatistics, DeprecatedFieldsOnlyWhereSignedOrderIsSafe) {
  Statistics old;
  old.min = LE<int64_t>(-7);
  old.max = LE<int64_t>(7);
  auto st = DecodeStatistics(old, Leaf(PhysicalType::INT64), DataType::Int64());
  ASSERT_TRUE(st.min);
  EXPECT_TRUE(st.from_deprecated_fields);
  EXPECT_TRUE(I(st.min) == -7);
  // Unsigned: the signed order of the old fields is wrong for it.
  st = DecodeStatistics(old, Leaf(PhysicalType::INT64, ConvertedType::UINT_64), DataType::UInt64());
  EXPECT_FALSE(st.min);
  // Byte arrays: old fields compared bytes as signed chars.
  Statistics s;
  s.min = "a";
  s.max = "\xC3\xA9";
  st = DecodeStatistics(s, Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::UTF8), DataType::String());
  EXPECT_FALSE(st.min);
  // New fields win over old ones.
  Statistics both = MinMax(LE<int64_t>(1), LE<int64_t>(2));
  both.min = LE<int64_t>(-100);
  both.max = LE<int64_t>(100);
  st = DecodeStatistics(both, Leaf(PhysicalType::INT64), DataType::Int64());
  EXPECT_TRUE(I(st.min) == 1);
  EXPECT_FALSE(st.from_deprecated_fields);
}

TEST(ParquetStatistics, StringsAndBinary) {
  auto st =
      DecodeStatistics(MinMax("apple", "pear"), Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::UTF8),
                       DataType::String());
  ASSERT_TRUE(st.min);
  EXPECT_EQ(std::get<std::string>(*st.min), "apple");
  EXPECT_EQ(std::get<std::string>(*st.max), "pear");
  // Unsigned byte order: 0xC3 sorts after 'z'.
  ScanPredicate p{"c", Op::kGt, std::string("zzz")};
  auto st2 =
      DecodeStatistics(MinMax("a", "\xC3\xA9"), Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::UTF8),
                       DataType::String());
  EXPECT_TRUE(BoundsMayMatch(st2, 10, DataType::String(), p));
}

TEST(ParquetStatistics, DecimalsBigEndian) {
  SchemaElement flba = Leaf(PhysicalType::FIXED_LEN_BYTE_ARRAY, ConvertedType::DECIMAL);
  flba.type_length = 2;
  auto st = DecodeStatistics(MinMax(std::string("\xFF\x85", 2), std::string("\x01\x00", 2)), flba,
                             DataType::Decimal(4, 2));
  ASSERT_TRUE(st.min);
  EXPECT_TRUE(I(st.min) == -123);
  EXPECT_TRUE(I(st.max) == 256);
  // 17 bytes whose first byte is only sign fill still decode; real 17-byte magnitudes do not.
  std::string neg17(17, '\xFF');
  std::string big17(17, '\0');
  big17[0] = 1;
  st = DecodeStatistics(MinMax(neg17, std::string(17, '\0')),
                        Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::DECIMAL),
                        DataType::Decimal(38, 0));
  ASSERT_TRUE(st.min);
  EXPECT_TRUE(I(st.min) == -1);
  EXPECT_TRUE(I(st.max) == 0);
  st = DecodeStatistics(MinMax(std::string(17, '\0'), big17),
                        Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::DECIMAL),
                        DataType::Decimal(38, 0));
  EXPECT_FALSE(st.min);
  // INT32-backed decimal.
  st = DecodeStatistics(MinMax(LE<int32_t>(-1), LE<int32_t>(99)),
                        Leaf(PhysicalType::INT32, ConvertedType::DECIMAL), DataType::Decimal(9, 2));
  EXPECT_TRUE(I(st.min) == -1);
}

TEST(ParquetStatistics, TimestampUnitsBecomeMicrosRoundingOutward) {
  SchemaElement ns = Leaf(PhysicalType::INT64);
  LogicalType lt;
  lt.kind = LogicalType::Kind::kTimestamp;
  lt.unit = LogicalType::TimeUnit::kNanos;
  lt.adjusted_to_utc = true;
  ns.logical_type = lt;
  auto st = DecodeStatistics(MinMax(LE<int64_t>(-1500), LE<int64_t>(1500)), ns,
                             DataType::Timestamp(true));
  EXPECT_TRUE(I(st.min) == -2);
  EXPECT_TRUE(I(st.max) == 2);
  st = DecodeStatistics(MinMax(LE<int64_t>(3000), LE<int64_t>(-1000 + 5000)), ns,
                        DataType::Timestamp(true));
  EXPECT_TRUE(I(st.min) == 3);
  EXPECT_TRUE(I(st.max) == 4);
  auto ms = DecodeStatistics(MinMax(LE<int64_t>(-1), LE<int64_t>(5)),
                             Leaf(PhysicalType::INT64, ConvertedType::TIMESTAMP_MILLIS),
                             DataType::Timestamp(true));
  EXPECT_TRUE(I(ms.min) == -1000);
  EXPECT_TRUE(I(ms.max) == 5000);
  // INT96 has no defined order.
  auto i96 = DecodeStatistics(MinMax(std::string(12, '\0'), std::string(12, '\1')),
                              Leaf(PhysicalType::INT96), DataType::Timestamp(false));
  EXPECT_FALSE(i96.min);
}

TEST(ParquetStatistics, FloatsNaNAndZeros) {
  const float nan = std::nanf("");
  auto st = DecodeStatistics(MinMax(LE<float>(nan), LE<float>(1.0f)), Leaf(PhysicalType::FLOAT),
                             DataType::Float32());
  EXPECT_FALSE(st.min);
  st = DecodeStatistics(MinMax(LE<double>(0.0), LE<double>(-0.0)), Leaf(PhysicalType::DOUBLE),
                        DataType::Float64());
  ASSERT_TRUE(st.min);
  EXPECT_TRUE(std::signbit(D(st.min)));
  EXPECT_FALSE(std::signbit(D(st.max)));
  st = DecodeStatistics(MinMax(LE<float>(-2.5f), LE<float>(7.25f)), Leaf(PhysicalType::FLOAT),
                        DataType::Float32());
  EXPECT_EQ(D(st.min), -2.5);
  EXPECT_EQ(D(st.max), 7.25);
}

TEST(ParquetStatistics, Float16) {
  SchemaElement e = Leaf(PhysicalType::FIXED_LEN_BYTE_ARRAY);
  e.type_length = 2;
  LogicalType lt;
  lt.kind = LogicalType::Kind::kFloat16;
  e.logical_type = lt;
  // 0xC000 = -2.0, 0x3C00 = 1.0, 0x0001 = 2^-24 (smallest subnormal) in IEEE half precision.
  auto st = DecodeStatistics(MinMax(std::string("\x00\xC0", 2), std::string("\x00\x3C", 2)), e,
                             DataType::Float32());
  ASSERT_TRUE(st.min);
  EXPECT_EQ(D(st.min), -2.0);
  EXPECT_EQ(D(st.max), 1.0);
  st = DecodeStatistics(MinMax(std::string("\x01\x00", 2), std::string("\x01\x00", 2)), e,
                        DataType::Float32());
  EXPECT_EQ(D(st.min), std::ldexp(1.0, -24));
}

TEST(ParquetStatistics, MalformedBoundsAreIgnored) {
  auto st =
      DecodeStatistics(MinMax("abc", LE<int32_t>(1)), Leaf(PhysicalType::INT32), DataType::Int32());
  EXPECT_FALSE(st.min);
  st = DecodeStatistics(MinMax(LE<int32_t>(9), LE<int32_t>(1)), Leaf(PhysicalType::INT32),
                        DataType::Int32());
  EXPECT_FALSE(st.min);  // min > max
  Statistics only_min;
  only_min.min_value = LE<int32_t>(1);
  EXPECT_FALSE(DecodeStatistics(only_min, Leaf(PhysicalType::INT32), DataType::Int32()).min);
  Statistics neg;
  neg.null_count = -4;
  EXPECT_FALSE(DecodeStatistics(neg, Leaf(PhysicalType::INT32), DataType::Int32()).null_count);
}

ColumnStatistics IntBounds(int64_t lo, int64_t hi, std::optional<int64_t> nulls = 0) {
  ColumnStatistics s;
  s.min = StatValue(int128{lo});
  s.max = StatValue(int128{hi});
  s.null_count = nulls;
  return s;
}

bool May(const ColumnStatistics& s, Op op, int64_t c, int64_t n = 100) {
  return BoundsMayMatch(s, n, DataType::Int64(), ScanPredicate{"c", op, c});
}

TEST(ParquetStatistics, ComparisonsAgainstBounds) {
  const auto s = IntBounds(10, 20);
  EXPECT_FALSE(May(s, Op::kEq, 9));
  EXPECT_TRUE(May(s, Op::kEq, 10));
  EXPECT_TRUE(May(s, Op::kEq, 20));
  EXPECT_FALSE(May(s, Op::kEq, 21));
  EXPECT_FALSE(May(s, Op::kLt, 10));
  EXPECT_TRUE(May(s, Op::kLt, 11));
  EXPECT_FALSE(May(s, Op::kLe, 9));
  EXPECT_TRUE(May(s, Op::kLe, 10));
  EXPECT_FALSE(May(s, Op::kGt, 20));
  EXPECT_TRUE(May(s, Op::kGt, 19));
  EXPECT_FALSE(May(s, Op::kGe, 21));
  EXPECT_TRUE(May(s, Op::kGe, 20));
  EXPECT_TRUE(May(s, Op::kNe, 10));
  EXPECT_FALSE(May(IntBounds(5, 5), Op::kNe, 5));
  EXPECT_TRUE(May(IntBounds(5, 5), Op::kNe, 6));
  // int128 constants compare too.
  EXPECT_FALSE(BoundsMayMatch(s, 100, DataType::Decimal(38, 0),
                              ScanPredicate{"c", Op::kGt, int128{1} << 70}));
}

TEST(ParquetStatistics, NullCounts) {
  EXPECT_FALSE(May(IntBounds(1, 2, 0), Op::kIsNull, 0));
  EXPECT_TRUE(May(IntBounds(1, 2, 1), Op::kIsNull, 0));
  EXPECT_TRUE(May(IntBounds(1, 2, std::nullopt), Op::kIsNull, 0));
  EXPECT_TRUE(May(IntBounds(1, 2, 99), Op::kIsNotNull, 0));
  ColumnStatistics all_null;
  all_null.null_count = 100;
  EXPECT_FALSE(May(all_null, Op::kIsNotNull, 0));
  EXPECT_TRUE(May(all_null, Op::kIsNull, 0));
  EXPECT_FALSE(May(all_null, Op::kEq, 1));  // no bounds, but every value is NULL
  ColumnStatistics unknown;
  EXPECT_TRUE(May(unknown, Op::kEq, 1));
  EXPECT_TRUE(May(unknown, Op::kIsNull, 1));
  EXPECT_TRUE(May(unknown, Op::kIsNotNull, 1));
}

TEST(ParquetStatistics, FloatPredicatesAreNaNAware) {
  ColumnStatistics s;
  s.min = StatValue(1.0);
  s.max = StatValue(2.0);
  s.null_count = 0;
  auto may = [&](Op op, double c) {
    return BoundsMayMatch(s, 10, DataType::Float64(), ScanPredicate{"c", op, c});
  };
  EXPECT_FALSE(may(Op::kEq, 3.0));
  EXPECT_FALSE(may(Op::kLt, 1.0));
  EXPECT_FALSE(may(Op::kLe, 0.5));
  // NaN values are not in min/max: > and != may still be satisfied by them.
  EXPECT_TRUE(may(Op::kGt, 5.0));
  EXPECT_TRUE(may(Op::kGe, 5.0));
  EXPECT_TRUE(may(Op::kNe, 1.0));
  EXPECT_TRUE(may(Op::kEq, std::nan("")));
  // An integer constant against a float column.
  EXPECT_FALSE(BoundsMayMatch(s, 10, DataType::Float64(), ScanPredicate{"c", Op::kEq, int64_t{7}}));
}

TEST(ParquetStatistics, MismatchedConstantMayMatch) {
  const auto s = IntBounds(10, 20);
  EXPECT_TRUE(
      BoundsMayMatch(s, 100, DataType::Int64(), ScanPredicate{"c", Op::kEq, std::string("zzz")}));
  EXPECT_TRUE(BoundsMayMatch(s, 100, DataType::Int64(), ScanPredicate{"c", Op::kEq, 99.0}));
  EXPECT_TRUE(BoundsMayMatch(s, 100, DataType::Int64(), ScanPredicate{"c", Op::kEq, {}}));
}

// A footer with a root, flat columns a (int32) and s (string), and a group g { b (int64) }.
FileMetaData TwoRowGroupFile() {
  FileMetaData m;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  SchemaElement a = Leaf(PhysicalType::INT32);
  a.name = "a";
  SchemaElement s = Leaf(PhysicalType::BYTE_ARRAY, ConvertedType::UTF8);
  s.name = "s";
  SchemaElement g;
  g.name = "g";
  g.num_children = 1;
  SchemaElement b = Leaf(PhysicalType::INT64);
  b.name = "b";
  m.schema = {root, a, s, g, b};
  for (int rg = 0; rg < 2; ++rg) {
    RowGroup r;
    r.num_rows = 100;
    ColumnChunk ca, cs, cb;
    ca.meta_data.emplace();
    ca.meta_data->num_values = 100;
    ca.meta_data->statistics = MinMax(LE<int32_t>(rg * 100), LE<int32_t>(rg * 100 + 99), 0);
    cs.meta_data.emplace();
    cs.meta_data->num_values = 100;
    cs.meta_data->statistics = MinMax(rg ? "m" : "a", rg ? "z" : "l", rg ? 100 : 0);
    cb.meta_data.emplace();
    cb.meta_data->num_values = 100;
    r.columns = {ca, cs, cb};
    m.row_groups.push_back(r);
  }
  return m;
}

TEST(ParquetStatistics, LeafPaths) {
  auto leaves = LeafPaths(TwoRowGroupFile());
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_EQ(leaves[0].path, "a");
  EXPECT_EQ(leaves[1].path, "s");
  EXPECT_EQ(leaves[2].path, "g.b");
  EXPECT_EQ(leaves[2].schema_index, 4);
  // A damaged tree (children past the end) ends quietly.
  FileMetaData bad = TwoRowGroupFile();
  bad.schema[0].num_children = 1000;
  bad.schema[3].num_children = 1 << 30;
  EXPECT_EQ(LeafPaths(bad).size(), 3u);
}

TEST(ParquetStatistics, RowGroupPruning) {
  const FileMetaData m = TwoRowGroupFile();
  Schema schema;
  schema.fields = {{"a", DataType::Int32()}, {"s", DataType::String()}};
  auto may = [&](int rg, std::vector<ScanPredicate> p) {
    return RowGroupMayMatch(m, rg, schema, p);
  };
  EXPECT_TRUE(may(0, {}));
  EXPECT_TRUE(may(0, {{"a", Op::kLt, int64_t{50}}}));
  EXPECT_FALSE(may(1, {{"a", Op::kLt, int64_t{50}}}));
  EXPECT_FALSE(may(0, {{"a", Op::kGe, int64_t{100}}}));
  EXPECT_TRUE(may(1, {{"a", Op::kGe, int64_t{100}}}));
  // Conjunction: both must be possible.
  EXPECT_FALSE(may(0, {{"a", Op::kLt, int64_t{50}}, {"s", Op::kEq, std::string("x")}}));
  EXPECT_FALSE(may(1, {{"s", Op::kIsNotNull, {}}}));  // all null there
  EXPECT_FALSE(may(0, {{"s", Op::kIsNull, {}}}));
  // Unknown column and a column without statistics never prune; bad row group index neither.
  EXPECT_TRUE(may(0, {{"nope", Op::kEq, int64_t{1}}}));
  EXPECT_TRUE(may(7, {{"a", Op::kLt, int64_t{-1}}}));
}

TEST(ParquetStatistics, Formatting) {
  EXPECT_EQ(FormatStatValue(int128{-42}, DataType::Int64()), "-42");
  EXPECT_EQ(FormatStatValue(int128{~uint64_t{0}}, DataType::UInt64()), "18446744073709551615");
  EXPECT_EQ(FormatStatValue(int128{1}, DataType::Bool()), "true");
  EXPECT_EQ(FormatStatValue(int128{0}, DataType::Date32()), "1970-01-01");
  EXPECT_EQ(FormatStatValue(int128{19723}, DataType::Date32()), "2024-01-01");
  EXPECT_EQ(FormatStatValue(int128{-1}, DataType::Date32()), "1969-12-31");
  EXPECT_EQ(FormatStatValue(int128{951782400000001LL}, DataType::Timestamp(true)),
            "2000-02-29 00:00:00.000001Z");
  EXPECT_EQ(FormatStatValue(int128{-1000000}, DataType::Timestamp(false)), "1969-12-31 23:59:59");
  EXPECT_EQ(FormatStatValue(int128{-5}, DataType::Decimal(5, 2)), "-0.05");
  EXPECT_EQ(FormatStatValue(int128{12345}, DataType::Decimal(5, 2)), "123.45");
  EXPECT_EQ(FormatStatValue(2.5, DataType::Float64()), "2.5");
  EXPECT_EQ(FormatStatValue(std::string("a\"b\n"), DataType::String()), "\"a\\\"b\\x0a\"");
  EXPECT_EQ(FormatStatValue(std::string("\x01\xff", 2), DataType::Binary()), "0x01ff");
  EXPECT_EQ(FormatStatValue(std::string(100, 'x'), DataType::String()),
            "\"" + std::string(64, 'x') + "\"... (100 bytes)");
}

}  // namespace
}  // namespace tandem::parquet
