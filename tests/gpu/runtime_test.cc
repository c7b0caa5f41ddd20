// GPU runtime: pooled device memory (alloc/free, statistics, OutOfMemory on an absurd request),
// pinned memory (reuse of freed ranges, fallback beyond the pool), and copies that round-trip.
#include "tandem/gpu/runtime.h"

#include <cstring>
#include <numeric>
#include <vector>

#include "gpu_test_util.h"

namespace tandem::gpu {
namespace {

TEST(GpuRuntime, InitIsIdempotentAndSetsALimit) {
  TANDEM_REQUIRE_GPU();
  ASSERT_TRUE(InitRuntime(DeviceMemoryConfig{}).ok());
  DeviceMemoryConfig other;
  other.alloc_fraction = 0.5;
  EXPECT_TRUE(InitRuntime(other).ok());  // already set up: ignored
  std::string why;
  EXPECT_TRUE(DeviceUsable(&why)) << why;
  const PoolStats stats = GetPoolStats();
  EXPECT_GT(stats.pool_limit_bytes, 0);
  EXPECT_GT(stats.pinned_bytes, 0);
}

TEST(GpuRuntime, AllocateAndFreeUpdateStats) {
  TANDEM_REQUIRE_GPU();
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  const int64_t before = GetPoolStats().used_bytes;
  {
    auto a = DeviceBuffer::Allocate(int64_t{64} << 20, *stream);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_NE(a->data(), nullptr);
    EXPECT_EQ(a->size(), int64_t{64} << 20);
    const PoolStats during = GetPoolStats();
    EXPECT_EQ(during.used_bytes, before + (int64_t{64} << 20));
    EXPECT_GE(during.peak_bytes, during.used_bytes);
    DeviceBuffer moved = std::move(*a);
    EXPECT_EQ(a->data(), nullptr);
    EXPECT_EQ(moved.size(), int64_t{64} << 20);
  }
  EXPECT_EQ(GetPoolStats().used_bytes, before);
  auto empty = DeviceBuffer::Allocate(0, *stream);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_TRUE(stream->Synchronize().ok());
}

TEST(GpuRuntime, AbsurdAllocationIsOutOfMemory) {
  TANDEM_REQUIRE_GPU();
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  const int64_t before = GetPoolStats().used_bytes;
  auto huge = DeviceBuffer::Allocate(int64_t{1} << 50, *stream);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(huge.status().message().find(std::to_string(int64_t{1} << 50)), std::string::npos)
      << huge.status().message();
  EXPECT_NE(huge.status().message().find("pool limit"), std::string::npos);
  EXPECT_EQ(GetPoolStats().used_bytes, before);
  // The device still works afterwards.
  auto small = DeviceBuffer::Allocate(1024, *stream);
  EXPECT_TRUE(small.ok());
  EXPECT_TRUE(stream->Synchronize().ok());
}

TEST(GpuRuntime, CopiesRoundTripThroughPinnedMemory) {
  TANDEM_REQUIRE_GPU();
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  const int64_t n = (int64_t{3} << 20) + 5;
  auto src = PinnedBuffer::Allocate(n);
  auto dst = PinnedBuffer::Allocate(n);
  ASSERT_TRUE(src.ok() && dst.ok());
  for (int64_t i = 0; i < n; ++i) src->data()[i] = static_cast<uint8_t>(i * 131 + 7);
  auto a = DeviceBuffer::Allocate(n, *stream);
  auto b = DeviceBuffer::Allocate(n, *stream);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(CopyToDevice(a->data(), src->data(), n, *stream).ok());
  ASSERT_TRUE(CopyDeviceToDevice(b->data(), a->data(), n, *stream).ok());
  ASSERT_TRUE(MemsetDevice(b->data_as<uint8_t>() + 10, 0xAB, 20, *stream).ok());
  ASSERT_TRUE(CopyToHost(dst->data(), b->data(), n, *stream).ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t want = (i >= 10 && i < 30) ? 0xAB : static_cast<uint8_t>(i * 131 + 7);
    ASSERT_EQ(dst->data()[i], want) << "byte " << i;
  }
  // Pageable host memory works too.
  std::vector<uint8_t> pageable(100, 0);
  ASSERT_TRUE(CopyToHost(pageable.data(), a->data(), 100, *stream).ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  EXPECT_EQ(std::memcmp(pageable.data(), src->data(), 100), 0);
}

TEST(GpuRuntime, PinnedPoolReusesFreedRangesGrowsAndFallsBack) {
  TANDEM_REQUIRE_GPU();
  ASSERT_TRUE(InitRuntime(DeviceMemoryConfig{}).ok());
  uint8_t* first = nullptr;
  {
    auto a = PinnedBuffer::Allocate(1 << 20);
    ASSERT_TRUE(a.ok());
    first = a->data();
  }
  auto again = PinnedBuffer::Allocate(1 << 20);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->data(), first);  // first fit finds the freed range
  // Bigger than the configured pool: the pool grows by a block, once; the block is kept, so the
  // same request later is served without a new allocation.
  const PoolStats before = GetPoolStats();
  const int64_t beyond = before.pinned_bytes + 4096;
  {
    auto big = PinnedBuffer::Allocate(beyond);
    ASSERT_TRUE(big.ok()) << big.status().ToString();
    EXPECT_EQ(big->size(), beyond);
    big->data()[beyond - 1] = 1;
  }
  const PoolStats grown = GetPoolStats();
  EXPECT_EQ(grown.pinned_misses, before.pinned_misses + 1);
  EXPECT_GE(grown.pinned_grown_bytes, before.pinned_grown_bytes + beyond);
  {
    auto big = PinnedBuffer::Allocate(beyond);
    ASSERT_TRUE(big.ok()) << big.status().ToString();
  }
  EXPECT_EQ(GetPoolStats().pinned_misses, grown.pinned_misses);
  EXPECT_EQ(GetPoolStats().pinned_grown_bytes, grown.pinned_grown_bytes);
  // Past tandem.memory.pinned.maxPoolSize: a page-locked allocation of its own, freed with it.
  const int64_t past_max = DeviceMemoryConfig{}.pinned_pool_max_bytes + 4096;
  {
    auto huge = PinnedBuffer::Allocate(past_max);
    ASSERT_TRUE(huge.ok()) << huge.status().ToString();
    huge->data()[past_max - 1] = 1;
  }
  EXPECT_EQ(GetPoolStats().pinned_misses, grown.pinned_misses + 1);
  EXPECT_EQ(GetPoolStats().pinned_grown_bytes, grown.pinned_grown_bytes);
  auto zero = PinnedBuffer::Allocate(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->data(), nullptr);
}

TEST(GpuRuntime, StreamsAreIndependentAndMovable) {
  TANDEM_REQUIRE_GPU();
  auto s1 = Stream::Create();
  auto s2 = Stream::Create();
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_NE(s1->handle(), s2->handle());
  Stream moved = std::move(*s1);
  EXPECT_EQ(s1->handle(), nullptr);
  EXPECT_TRUE(moved.Synchronize().ok());
}

}  // namespace
}  // namespace tandem::gpu
