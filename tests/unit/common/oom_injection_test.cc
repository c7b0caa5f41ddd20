// tandem.test.injectOom: its values, and which allocations it makes fail.
#include "tandem/common/oom_injection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tandem/common/config.h"

namespace tandem {
namespace {

OomInjection Parsed(const std::string& value) { return ParseOomInjection(value).value(); }

TEST(OomInjection, ValuesParseAndNormalize) {
  EXPECT_EQ(OomInjectionText(Parsed("")), "off");
  EXPECT_EQ(OomInjectionText(Parsed("OFF")), "off");
  EXPECT_EQ(OomInjectionText(Parsed("7")), "7");
  EXPECT_EQ(OomInjectionText(Parsed("random")), "random:1");
  EXPECT_EQ(OomInjectionText(Parsed("Random:42")), "random:42");
  for (const char* bad :
       {"-1", "x", "1.5", "random:", "random:0", "random:-2", "99999999999999999999"}) {
    EXPECT_FALSE(ParseOomInjection(bad).ok()) << bad;
  }
  Config config;
  EXPECT_TRUE(config.Set(config_keys::kInjectOom, "random:5").ok());
  EXPECT_EQ(config.Get(config_keys::kInjectOom), "random:5");
  const Status bad = config.Set(config_keys::kInjectOom, "often");
  EXPECT_NE(bad.message().find("tandem.test.injectOom takes off, a positive integer N"),
            std::string::npos)
      << bad.message();
}

TEST(OomInjection, TheNthAllocationFailsOnce) {
  ArmOomInjection(Parsed("3"));
  std::vector<bool> fails;
  for (int i = 0; i < 6; ++i) fails.push_back(ShouldInjectOom());
  EXPECT_EQ(fails, (std::vector<bool>{false, false, true, false, false, false}));
  EXPECT_EQ(InjectedOomCount(), 1);
  ArmOomInjection(OomInjection{});
  EXPECT_FALSE(ShouldInjectOom());
  EXPECT_EQ(InjectedOomCount(), 0);
}

TEST(OomInjection, RandomFailuresRepeatForTheSameSeed) {
  auto draw = [](const char* value) {
    ArmOomInjection(Parsed(value));
    std::vector<bool> fails;
    for (int i = 0; i < 400; ++i) fails.push_back(ShouldInjectOom());
    return fails;
  };
  const std::vector<bool> a = draw("random:9");
  EXPECT_EQ(a, draw("random:9"));
  EXPECT_NE(a, draw("random:10"));
  const auto failed = std::count(a.begin(), a.end(), true);
  EXPECT_GT(failed, 400 / 8 / 2);  // about one in eight
  EXPECT_LT(failed, 400 / 8 * 2);
  ArmOomInjection(OomInjection{});
}

}  // namespace
}  // namespace tandem
