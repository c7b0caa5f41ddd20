// TPC-H generator at SF 0.01: row counts, value domains and derivations of clause 4.2.3, checked
// row by row against the specification's rules (recomputed here, not read back from the code).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "tandem/tpch/dates.h"
#include "tandem/tpch/distributions.h"
#include "tandem/tpch/generator.h"
#include "tandem/tpch/text_pool.h"

namespace tandem::tpch {
namespace {

TpchSizes Sf(double sf) { return TpchSizes::ForScaleFactor(sf).ValueOrDie(); }

BatchPtr Whole(const TpchSizes& sizes, TpchTable table) {
  auto r = GenerateTpchRows(sizes, table, 0, sizes.DriverRows(table));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)->Validate().ok());
  return *r;
}

const Column& Col(const BatchPtr& b, const char* name) {
  const int i = b->schema.FieldIndex(name);
  EXPECT_GE(i, 0) << name;
  return *b->columns[i];
}

int64_t RetailCents(int64_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }

}  // namespace

TEST(TpchGenerator, RowCountsAtScaleFactorHundredth) {
  const TpchSizes s = Sf(0.01);
  EXPECT_EQ(Whole(s, TpchTable::kPart)->num_rows, 2000);
  EXPECT_EQ(Whole(s, TpchTable::kPartsupp)->num_rows, 8000);
  EXPECT_EQ(Whole(s, TpchTable::kSupplier)->num_rows, 100);
  EXPECT_EQ(Whole(s, TpchTable::kCustomer)->num_rows, 1500);
  EXPECT_EQ(Whole(s, TpchTable::kOrders)->num_rows, 15000);
  EXPECT_EQ(Whole(s, TpchTable::kNation)->num_rows, 25);
  EXPECT_EQ(Whole(s, TpchTable::kRegion)->num_rows, 5);
  const int64_t lines = Whole(s, TpchTable::kLineitem)->num_rows;
  EXPECT_GT(lines, 59000);  // 4 per order on average; 15000 orders give sd ~ 245
  EXPECT_LT(lines, 61000);
}

TEST(TpchGenerator, RejectsRowRangesOutsideTheTable) {
  const TpchSizes s = Sf(0.01);
  EXPECT_FALSE(GenerateTpchRows(s, TpchTable::kPart, 0, 2001).ok());
  EXPECT_FALSE(GenerateTpchRows(s, TpchTable::kNation, 5, 4).ok());
  EXPECT_FALSE(GenerateTpchRows(s, TpchTable::kRegion, -1, 2).ok());
}

TEST(TpchGenerator, LineitemsFollowTheSpecRules) {
  const TpchSizes s = Sf(0.01);
  auto both = GenerateOrdersAndLines(s, 0, s.orders);
  ASSERT_TRUE(both.ok());
  const BatchPtr& o = both->orders;
  const BatchPtr& l = both->lineitem;
  ASSERT_TRUE(l->Validate().ok());
  ASSERT_TRUE(o->Validate().ok());

  std::set<std::pair<int64_t, int64_t>> partsupp;
  const BatchPtr ps = Whole(s, TpchTable::kPartsupp);
  for (int64_t i = 0; i < ps->num_rows; ++i) {
    partsupp.insert(
        {Col(ps, "ps_partkey").Value<int64_t>(i), Col(ps, "ps_suppkey").Value<int64_t>(i)});
  }
  EXPECT_EQ(partsupp.size(), 8000u);  // (partkey, suppkey) is unique

  std::map<int64_t, int32_t> order_date;
  for (int64_t i = 0; i < o->num_rows; ++i) {
    order_date[Col(o, "o_orderkey").Value<int64_t>(i)] = Col(o, "o_orderdate").Value<int32_t>(i);
  }
  std::map<int64_t, int64_t> total;
  std::map<int64_t, std::string> statuses;
  int64_t previous_key = 0, expected_line = 1;
  for (int64_t i = 0; i < l->num_rows; ++i) {
    const int64_t key = Col(l, "l_orderkey").Value<int64_t>(i);
    expected_line = key == previous_key ? expected_line + 1 : 1;
    previous_key = key;
    ASSERT_EQ(Col(l, "l_linenumber").Value<int32_t>(i), expected_line);
    ASSERT_LE(expected_line, 7);
    ASSERT_TRUE(order_date.count(key));
    const int32_t od = order_date[key];
    const int64_t pk = Col(l, "l_partkey").Value<int64_t>(i);
    const int64_t sk = Col(l, "l_suppkey").Value<int64_t>(i);
    ASSERT_TRUE(partsupp.count({pk, sk})) << pk << "," << sk;
    const int64_t qty = Col(l, "l_quantity").Value<int64_t>(i);
    ASSERT_EQ(qty % 100, 0);
    ASSERT_GE(qty, 100);
    ASSERT_LE(qty, 5000);
    const int64_t price = Col(l, "l_extendedprice").Value<int64_t>(i);
    ASSERT_EQ(price, qty / 100 * RetailCents(pk));
    const int64_t disc = Col(l, "l_discount").Value<int64_t>(i);
    const int64_t tax = Col(l, "l_tax").Value<int64_t>(i);
    ASSERT_GE(disc, 0);
    ASSERT_LE(disc, 10);
    ASSERT_GE(tax, 0);
    ASSERT_LE(tax, 8);
    const int32_t ship = Col(l, "l_shipdate").Value<int32_t>(i);
    const int32_t commit = Col(l, "l_commitdate").Value<int32_t>(i);
    const int32_t receipt = Col(l, "l_receiptdate").Value<int32_t>(i);
    ASSERT_GE(ship - od, 1);
    ASSERT_LE(ship - od, 121);
    ASSERT_GE(commit - od, 30);
    ASSERT_LE(commit - od, 90);
    ASSERT_GE(receipt - ship, 1);
    ASSERT_LE(receipt - ship, 30);
    ASSERT_LE(receipt, DaysFromCivil(1998, 12, 31));
    const std::string_view flag = Col(l, "l_returnflag").GetString(i);
    if (receipt <= DaysFromCivil(1995, 6, 17)) {
      ASSERT_TRUE(flag == "R" || flag == "A");
    } else {
      ASSERT_EQ(flag, "N");
    }
    const std::string_view status = Col(l, "l_linestatus").GetString(i);
    ASSERT_EQ(status, ship > DaysFromCivil(1995, 6, 17) ? "O" : "F");
    statuses[key] += std::string(status);
    // extendedprice * (1 + tax) * (1 - discount), rounded half up to cents
    total[key] += (price * (100 + tax) * (100 - disc) + 5000) / 10000;
    const size_t comment = Col(l, "l_comment").GetString(i).size();
    ASSERT_GE(comment, 10u);
    ASSERT_LE(comment, 43u);
  }
  for (int64_t i = 0; i < o->num_rows; ++i) {
    const int64_t key = Col(o, "o_orderkey").Value<int64_t>(i);
    ASSERT_EQ(Col(o, "o_totalprice").Value<int64_t>(i), total[key]);
    const std::string& st = statuses[key];
    const char* expected = st.find('O') == std::string::npos   ? "F"
                           : st.find('F') == std::string::npos ? "O"
                                                               : "P";
    ASSERT_EQ(Col(o, "o_orderstatus").GetString(i), expected);
    const int64_t cust = Col(o, "o_custkey").Value<int64_t>(i);
    ASSERT_NE(cust % 3, 0);
    ASSERT_GE(cust, 1);
    ASSERT_LE(cust, 1500);
    const int32_t od = Col(o, "o_orderdate").Value<int32_t>(i);
    ASSERT_GE(od, DaysFromCivil(1992, 1, 1));
    ASSERT_LE(od, DaysFromCivil(1998, 8, 2));
    ASSERT_TRUE(std::regex_match(std::string(Col(o, "o_clerk").GetString(i)),
                                 std::regex("Clerk#0000000(0[1-9]|10)")));
  }
}

TEST(TpchGenerator, PartColumns) {
  const BatchPtr p = Whole(Sf(0.01), TpchTable::kPart);
  std::set<std::string_view> colors(kColors.begin(), kColors.end());
  ASSERT_EQ(colors.size(), 92u);
  const std::regex type_re(
      "(STANDARD|SMALL|MEDIUM|LARGE|ECONOMY|PROMO) (ANODIZED|BURNISHED|PLATED|POLISHED|BRUSHED) "
      "(TIN|NICKEL|BRASS|STEEL|COPPER)");
  const std::regex container_re("(SM|LG|MED|JUMBO|WRAP) (CASE|BOX|BAG|JAR|PKG|PACK|CAN|DRUM)");
  for (int64_t i = 0; i < p->num_rows; ++i) {
    ASSERT_EQ(Col(p, "p_partkey").Value<int64_t>(i), i + 1);
    std::string name(Col(p, "p_name").GetString(i));
    std::set<std::string> words;
    size_t start = 0;
    for (size_t sp; (sp = name.find(' ', start)) != std::string::npos; start = sp + 1) {
      words.insert(name.substr(start, sp - start));
    }
    words.insert(name.substr(start));
    ASSERT_EQ(words.size(), 5u) << name;
    for (const auto& w : words) ASSERT_TRUE(colors.count(w)) << w;
    const std::string mfgr(Col(p, "p_mfgr").GetString(i));
    const std::string brand(Col(p, "p_brand").GetString(i));
    ASSERT_TRUE(std::regex_match(mfgr, std::regex("Manufacturer#[1-5]"))) << mfgr;
    ASSERT_TRUE(std::regex_match(brand, std::regex("Brand#[1-5][1-5]"))) << brand;
    ASSERT_EQ(brand[6], mfgr[13]);
    ASSERT_TRUE(std::regex_match(std::string(Col(p, "p_type").GetString(i)), type_re));
    ASSERT_TRUE(std::regex_match(std::string(Col(p, "p_container").GetString(i)), container_re));
    const int32_t size = Col(p, "p_size").Value<int32_t>(i);
    ASSERT_GE(size, 1);
    ASSERT_LE(size, 50);
    ASSERT_EQ(Col(p, "p_retailprice").Value<int64_t>(i), RetailCents(i + 1));
  }
}

TEST(TpchGenerator, CustomersSuppliersNationsRegions) {
  const TpchSizes s = Sf(0.01);
  const BatchPtr c = Whole(s, TpchTable::kCustomer);
  const std::regex phone_re("([0-9]{2})-[1-9][0-9]{2}-[1-9][0-9]{2}-[1-9][0-9]{3}");
  std::set<std::string_view> segments;
  for (int64_t i = 0; i < c->num_rows; ++i) {
    const int64_t nation = Col(c, "c_nationkey").Value<int64_t>(i);
    ASSERT_GE(nation, 0);
    ASSERT_LE(nation, 24);
    std::smatch m;
    const std::string phone(Col(c, "c_phone").GetString(i));
    ASSERT_TRUE(std::regex_match(phone, m, phone_re)) << phone;
    ASSERT_EQ(std::stoi(m[1]), nation + 10);
    const int64_t bal = Col(c, "c_acctbal").Value<int64_t>(i);
    ASSERT_GE(bal, -99999);
    ASSERT_LE(bal, 999999);
    const size_t addr = Col(c, "c_address").GetString(i).size();
    ASSERT_GE(addr, 10u);
    ASSERT_LE(addr, 40u);
    ASSERT_EQ(
        Col(c, "c_name").GetString(i),
        "Customer#" + std::string(9 - std::to_string(i + 1).size(), '0') + std::to_string(i + 1));
    segments.insert(Col(c, "c_mktsegment").GetString(i));
  }
  EXPECT_EQ(segments.size(), 5u);
  const BatchPtr n = Whole(s, TpchTable::kNation);
  EXPECT_EQ(Col(n, "n_name").GetString(7), "GERMANY");
  EXPECT_EQ(Col(n, "n_regionkey").Value<int64_t>(7), 3);
  EXPECT_EQ(Col(n, "n_name").GetString(24), "UNITED STATES");
  const BatchPtr r = Whole(s, TpchTable::kRegion);
  EXPECT_EQ(Col(r, "r_name").GetString(3), "EUROPE");
}

TEST(TpchGenerator, SupplierComplaintsAppearAtAboutFivePerScaleFactor) {
  const BatchPtr sup = Whole(Sf(1), TpchTable::kSupplier);
  const std::regex complaints(".*Customer .*Complaints.*"), recommends(".*Customer .*Recommends.*");
  int64_t c = 0, r = 0;
  for (int64_t i = 0; i < sup->num_rows; ++i) {
    const std::string text(Col(sup, "s_comment").GetString(i));
    ASSERT_GE(text.size(), 25u);
    ASSERT_LE(text.size(), 100u);
    c += std::regex_match(text, complaints);
    r += std::regex_match(text, recommends);
  }
  EXPECT_GE(c, 1);
  EXPECT_LE(c, 15);
  EXPECT_GE(r, 1);
  EXPECT_LE(r, 15);
}

TEST(TpchGenerator, OrderCommentsSometimesMentionSpecialRequests) {
  const TpchSizes s = Sf(0.01);
  const BatchPtr o = Whole(s, TpchTable::kOrders);
  const std::regex special(".*special.*requests.*");
  int64_t hits = 0;
  for (int64_t i = 0; i < o->num_rows; ++i) {
    hits += std::regex_match(std::string(Col(o, "o_comment").GetString(i)), special);
  }
  EXPECT_GT(hits, 15);  // Q13 excludes these; dbgen data has ~1%
  EXPECT_LT(hits, o->num_rows / 10);
}

TEST(TpchGenerator, TextPoolUsesTheGrammarWords) {
  const TextPool pool(1 << 16);
  const std::string_view text = pool.text();
  EXPECT_GE(pool.size(), 1 << 16);
  for (const char* word : {"furiously", "regular", "packages", "deposits", "accounts", "special"}) {
    EXPECT_NE(text.find(word), std::string_view::npos) << word;
  }
}

}  // namespace tandem::tpch
