// GPU smoke tests: the device is found and a CUB reduction returns the right sum.
#include "gpu_test_util.h"

namespace tandem::gpu {

TEST(GpuDevice, ReportsProperties) {
  TANDEM_REQUIRE_GPU();
  auto info = QueryDevice();
  ASSERT_TRUE(info.ok());
  EXPECT_GT(info->device_count, 0);
  EXPECT_GT(info->multiprocessors, 0);
  EXPECT_GT(info->total_memory_bytes, 0);
}

TEST(GpuDevice, CubSumMatchesClosedForm) {
  TANDEM_REQUIRE_GPU();
  const int64_t n = int64_t{1} << 28;
  auto sum = SelfTestSum(n);
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_EQ(*sum, n * (n - 1) / 2);
}

}  // namespace tandem::gpu
