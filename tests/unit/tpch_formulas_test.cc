// TPC-H generator: sizes per scale factor and the closed-form rules of clause 4.2.3 (sparse order
// keys, retail price, the four suppliers of a part, customers with orders).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tandem/tpch/dates.h"
#include "tandem/tpch/formulas.h"
#include "tandem/tpch/tpch_schema.h"

namespace tandem::tpch {

TEST(TpchSizes, ScaleFactorOne) {
  auto s = TpchSizes::ForScaleFactor(1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->parts, 200000);
  EXPECT_EQ(s->ExpectedRows(TpchTable::kPartsupp), 800000);
  EXPECT_EQ(s->suppliers, 10000);
  EXPECT_EQ(s->customers, 150000);
  EXPECT_EQ(s->orders, 1500000);
  EXPECT_EQ(s->DriverRows(TpchTable::kNation), 25);
  EXPECT_EQ(s->DriverRows(TpchTable::kRegion), 5);
}

TEST(TpchSizes, FractionalAndLargeScaleFactors) {
  auto s = TpchSizes::ForScaleFactor(0.01);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->parts, 2000);
  EXPECT_EQ(s->suppliers, 100);
  EXPECT_EQ(s->customers, 1500);
  EXPECT_EQ(s->orders, 15000);
  EXPECT_EQ(s->clerks, 10);
  auto big = TpchSizes::ForScaleFactor(100);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->orders, 150000000);
  EXPECT_EQ(big->DriverRows(TpchTable::kNation), 25);
}

TEST(TpchSizes, RejectsBadScaleFactors) {
  for (double sf : {0.0, -1.0, 0.001, 1000.5, std::nan("")}) {
    auto s = TpchSizes::ForScaleFactor(sf);
    EXPECT_FALSE(s.ok()) << sf;
  }
}

TEST(TpchFormulas, DatesMatchTheCalendar) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(kLastOrderDate, DaysFromCivil(1998, 8, 2));
}

TEST(TpchFormulas, SparseOrderKeysUseFirstEightOfEach32) {
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(OrderKeyOf(i), i + 1);
  EXPECT_EQ(OrderKeyOf(7), 32);
  EXPECT_EQ(OrderKeyOf(14), 39);
  EXPECT_EQ(OrderKeyOf(15), 64);
  int64_t previous = 0;
  for (int64_t i = 0; i < 100000; ++i) {
    const int64_t key = OrderKeyOf(i);
    ASSERT_GT(key, previous);
    ASSERT_LT(key % 32, 8);
    previous = key;
  }
  EXPECT_EQ(OrderKeyOf(1500000 - 1), 6000000);  // SF1's last key, as in the spec
}

TEST(TpchFormulas, RetailPrice) {
  EXPECT_EQ(RetailPriceCents(1), 90100);     // 901.00
  EXPECT_EQ(RetailPriceCents(10), 91001);    // 900 + 1/100 + 10
  EXPECT_EQ(RetailPriceCents(1000), 90100);  // (1000/10) % 20001 = 100, 1000 % 1000 = 0
  EXPECT_EQ(RetailPriceCents(200000), 90000 + 20000);
}

TEST(TpchFormulas, PartSuppliersFollowTheSpecFormulaAtScaleFactorOne) {
  const int64_t s = 10000;
  for (int64_t pk : {1, 2, 9999, 10000, 10001, 123457, 200000}) {
    std::set<int64_t> keys;
    for (int i = 0; i < 4; ++i) {
      const int64_t expected = (pk + i * (s / 4 + (pk - 1) / s)) % s + 1;
      EXPECT_EQ(PartSupplierKey(pk, i, s), expected) << pk << " " << i;
      keys.insert(expected);
    }
    EXPECT_EQ(keys.size(), 4u);
  }
  EXPECT_EQ(PartSupplierKey(1, 0, s), 2);
  EXPECT_EQ(PartSupplierKey(1, 1, s), 2502);
}

TEST(TpchFormulas, PartSuppliersAreDistinctAtEveryScaleFactor) {
  // S = 102, 120, ... make the spec formula repeat a supplier; the generator must not.
  for (int64_t s : {100, 102, 105, 120, 150, 228, 1000, 10000}) {
    for (int64_t pk = 1; pk <= 20 * s; pk += (s > 1000 ? 7 : 1)) {
      std::set<int64_t> keys;
      for (int i = 0; i < 4; ++i) {
        const int64_t k = PartSupplierKey(pk, i, s);
        ASSERT_GE(k, 1);
        ASSERT_LE(k, s);
        keys.insert(k);
      }
      ASSERT_EQ(keys.size(), 4u) << "S=" << s << " partkey=" << pk;
    }
  }
}

TEST(TpchFormulas, OrderingCustomersSkipMultiplesOfThree) {
  for (int64_t customers : {1500, 1501, 1502, 150000}) {
    const int64_t n = OrderingCustomerCount(customers);
    int64_t expected = 0;
    for (int64_t j = 0; j < n; ++j) {
      do ++expected;
      while (expected % 3 == 0);
      ASSERT_EQ(OrderingCustomerKey(j), expected);
    }
    ASSERT_LE(expected, customers);
    ASSERT_TRUE(expected == customers || (expected + 1 == customers && customers % 3 == 0));
  }
}

}  // namespace tandem::tpch
