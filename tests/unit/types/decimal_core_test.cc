// types/decimal_core.h (the arithmetic the CPU and the GPU share) against Python's decimal module:
// the expected values below were computed with decimal.Decimal at 200 digits and ROUND_HALF_UP
// (away from zero on a tie, as Spark's HALF_UP), for operands near 10^37 whose intermediates pass
// 128 bits, and at the edges of rounding by 10^38.
#include "tandem/types/decimal_core.h"

#include <gtest/gtest.h>

#include <string>

namespace tandem::decimal {
namespace {

i128 I128(const std::string& text) {
  const bool negative = text[0] == '-';
  i128 v = 0;
  for (size_t i = negative ? 1 : 0; i < text.size(); ++i) v = v * 10 + (text[i] - '0');
  return negative ? -v : v;
}

std::string Text(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  u128 m = Magnitude(v);
  std::string out;
  while (m > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + out : out;
}

TEST(DecimalCore, DividingBy10To38RoundsHalfUpWithoutOverflow) {
  // |r| = 9.9e37 in the last step: twice it passes 2^127.
  EXPECT_EQ(DivPow10Round(I128("99000000000000000000000000000000000000"), 38), 1);
  EXPECT_EQ(DivPow10Round(I128("-99000000000000000000000000000000000000"), 38), -1);
  EXPECT_EQ(DivPow10Round(I128("50000000000000000000000000000000000000"), 38), 1);
  EXPECT_EQ(DivPow10Round(I128("49999999999999999999999999999999999999"), 38), 0);
  EXPECT_EQ(DivPow10Round(I128("-50000000000000000000000000000000000000"), 38), -1);
  EXPECT_EQ(DivPow10Round(15, 1), 2);
  EXPECT_EQ(DivPow10Round(-15, 1), -2);
  EXPECT_EQ(DivPow10Round(14, 1), 1);
  EXPECT_EQ(DivPow10Round(-14, 1), -1);
  EXPECT_EQ(DivPow10Round(7, 39), 0);
}

TEST(DecimalCore, RescaleChecks128Bits) {
  i128 out = 0;
  ASSERT_TRUE(Rescale(1, 0, 38, &out));
  EXPECT_EQ(out, Pow10(38));
  EXPECT_FALSE(Rescale(2, 0, 38, &out));  // 2e38 > 2^127
  ASSERT_TRUE(Rescale(125, 2, 0, &out));
  EXPECT_EQ(out, 1);
  EXPECT_TRUE(FitsPrecision(Pow10(38) - 1, 38));
  EXPECT_FALSE(FitsPrecision(Pow10(38), 38));
  EXPECT_FALSE(FitsPrecision(-Pow10(18), 18));
}

TEST(DecimalCore, AddRescaledMatchesPython) {
  struct Case {
    const char* a;
    int sa;
    const char* b;
    int sb;
    bool subtract;
    int rs;
    const char* want;
  };
  const Case cases[] = {
      {"7466572418957622328623708341469946960", 20, "2394530227881200277476361429331185707", 14,
       true, 12, "-23945227613087813198540328056228442"},
      {"-8514339450238808187580438517959842982", 26, "-971475310409706730902572403135867100", 16,
       true, 1, "971475309558272785879"},
      {"-1563539205645155386616635127245688591", 28, "-9009295940329737980117230546968255844", 13,
       false, 7, "-9009295940329739543656436192124"},
      {"2141991390964534087670244096625993380", 14, "4504593316488679329610332638977501752", 19,
       true, 13, "214194634503136920087694799329960360"},
      {"1649236348599113623065396389539762373", 28, "-8732423274933533539544168965560540126", 28,
       false, 20, "-70831869263344199164787725760"},
      {"-97743429247919747051561576617824130", 25, "-2309993687512703621284625507744783919", 31,
       true, 17, "-977411192542322343479402920"},
  };
  for (const Case& c : cases) {
    i128 out = 0;
    ASSERT_TRUE(AddRescaled(I128(c.a), c.sa, I128(c.b), c.sb, c.subtract, c.rs, &out)) << c.a;
    EXPECT_EQ(Text(out), c.want) << c.a << (c.subtract ? " - " : " + ") << c.b;
  }
}

TEST(DecimalCore, MultiplyRescaledThrough256BitsMatchesPython) {
  struct Case {
    const char* a;
    const char* b;
    int drop;
    const char* want;
  };
  const Case cases[] = {
      {"6585142047344379237202077110907991079", "-3614407413192582253029300788395172869", 38,
       "-238013862328477027708220359627316566"},
      {"5513585557948957975122509889829597702", "-1107511019283612380679592543365805362", 36,
       "-6106356761191455123186631100158736684"},
      {"9848462233164272248303883222376512767", "1868958676133784739584740572647141840", 38,
       "184063689372482755068676035857299250"},
      {"-3327328346088662232582431864570899618", "2640849237030414692535696457219588674", 37,
       "-878697252411791525987762580265858440"},
      {"-8537573818936280178727757054042963173", "-4259026491148340378158627628206513922", 37,
       "3636175306498412165105793841534337331"},
  };
  for (const Case& c : cases) {
    i128 out = 0;
    ASSERT_TRUE(MultiplyRescaled(I128(c.a), I128(c.b), c.drop, &out)) << c.a;
    EXPECT_EQ(Text(out), c.want) << c.a << " * " << c.b;
  }
  i128 out = 0;
  EXPECT_FALSE(MultiplyRescaled(Pow10(37), Pow10(37), 35, &out));  // 10^39
  ASSERT_TRUE(MultiplyRescaled(Pow10(37), Pow10(37), 36, &out));   // 10^38
  EXPECT_EQ(out, Pow10(38));
}

TEST(DecimalCore, DivideScaledThrough256BitsMatchesPython) {
  struct Case {
    const char* a;
    int up;
    const char* b;
    const char* want;
  };
  const Case cases[] = {
      {"-8709704084299464560537028943003166395", 4, "49833731989248492048",
       "-1747752724234773805785"},
      {"4220670645095642028433669661109054290", 7, "-25003899547330652563",
       "-1688004959828847656584795"},
      {"-3886998863046057218855658173592263936", 6, "32067144362787369168",
       "-121214375033554999319208"},
      {"-8286225243152460928579550028650743854", 2, "63626277201678629659",
       "-13023275300057706923"},
      {"1701875838190734691651358350550782681", 10, "68370951591508220494",
       "248917968607315733499434555"},
  };
  for (const Case& c : cases) {
    i128 out = 0;
    ASSERT_TRUE(DivideScaled(I128(c.a), c.up, I128(c.b), &out)) << c.a;
    EXPECT_EQ(Text(out), c.want) << c.a << " * 10^" << c.up << " / " << c.b;
  }
  i128 out = 0;
  ASSERT_TRUE(DivideScaled(2, 0, 3, &out));
  EXPECT_EQ(out, 1);
  ASSERT_TRUE(DivideScaled(-2, 0, 3, &out));
  EXPECT_EQ(out, -1);
  ASSERT_TRUE(DivideScaled(1, 0, 3, &out));
  EXPECT_EQ(out, 0);
  EXPECT_FALSE(DivideScaled(Pow10(38), 1, 1, &out));  // 10^39
}

// Quotients that round up past 2^127 - 1 (2^128 - 1 plus a half once wrapped to 0 and passed).
TEST(DecimalCore, RoundingPast128BitsIsAnOverflow) {
  i128 out = 0;
  EXPECT_FALSE(MultiplyRescaled(107, I128("31802090366442847052651832470258711351"), 1, &out))
      << Text(out);
  EXPECT_FALSE(DivideScaled(I128("30625413022884461711703714668859139031"), 2, 9, &out))
      << Text(out);
  // The largest magnitudes that fit, and no more.
  ASSERT_TRUE(DivideScaled(kI128Max, 0, 1, &out));
  EXPECT_EQ(out, kI128Max);
  ASSERT_TRUE(MultiplyRescaled(kI128Min, 1, 0, &out));
  EXPECT_EQ(out, kI128Min);
}

TEST(DecimalCore, ExactTiesRoundAwayFromZero) {
  i128 out = 0;
  ASSERT_TRUE(DivideScaled(-25, 0, 10, &out));
  EXPECT_EQ(out, -3);
  ASSERT_TRUE(DivideScaled(25, 0, -10, &out));
  EXPECT_EQ(out, -3);
  ASSERT_TRUE(DivideScaled(25, 0, 10, &out));
  EXPECT_EQ(out, 3);
  ASSERT_TRUE(MultiplyRescaled(-5, 5, 1, &out));
  EXPECT_EQ(out, -3);
  ASSERT_TRUE(MultiplyRescaled(5, 5, 1, &out));
  EXPECT_EQ(out, 3);
  ASSERT_TRUE(AddRescaled(-20, 1, -5, 1, false, 0, &out));  // -2.0 + -0.5
  EXPECT_EQ(out, -3);
  ASSERT_TRUE(AddRescaled(20, 1, -5, 1, true, 0, &out));  // 2.0 - -0.5
  EXPECT_EQ(out, 3);
  ASSERT_TRUE(AddRescaled(-30, 1, -5, 1, true, 0, &out));  // -3.0 - -0.5
  EXPECT_EQ(out, -3);
  // Dropping more than 37 digits is refused (the remainders could pass 128 bits).
  EXPECT_FALSE(AddRescaled(Pow10(37) * 9, 38, Pow10(37) * 9, 38, false, 0, &out));
}

TEST(DecimalCore, OverflowCheckedArithmeticAgreesWithTheBuiltins) {
  const i128 values[] = {
      0,         1,          -1,        kI128Max,      kI128Min, kI128Max / 2, kI128Min / 2,
      Pow10(38), -Pow10(38), Pow10(19), -Pow10(19) + 7};
  for (i128 a : values) {
    for (i128 b : values) {
      i128 mine = 0, theirs = 0;
      EXPECT_EQ(AddOverflow(a, b, &mine), __builtin_add_overflow(a, b, &theirs));
      EXPECT_EQ(mine, theirs);
      EXPECT_EQ(SubOverflow(a, b, &mine), __builtin_sub_overflow(a, b, &theirs));
      EXPECT_EQ(mine, theirs);
    }
  }
}

}  // namespace
}  // namespace tandem::decimal
