// Host buffers (memory/buffer.h): Allocate is zero-filled at every size, also over memory a
// freed buffer had filled (small buffers in alignment units, large ones in transparent huge
// pages); the host budget counts a large buffer in whole 2 MiB pages and gets it all back when
// it dies; growing keeps the contents and zero-fills the new bytes; CopyOf copies.
#include "tandem/memory/buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

bool AllZero(const Buffer& b) {
  return std::all_of(b.data(), b.data() + b.size(), [](uint8_t v) { return v == 0; });
}

TEST(Buffer, AllocateIsZeroFilledAtEverySizeAfterReuse) {
  for (int64_t size : {int64_t{1}, int64_t{1000}, 3 * kMiB, 5 * kMiB + 3, 33 * kMiB}) {
    {
      auto dirty = Buffer::AllocateUninitialized(size);
      std::memset(dirty->mutable_data(), 0xFF, static_cast<size_t>(size));
    }
    auto b = Buffer::Allocate(size);
    ASSERT_EQ(b->size(), size);
    EXPECT_TRUE(AllZero(*b)) << size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % kBufferAlignment, 0u) << size;
  }
}

TEST(Buffer, LargeBuffersCountWholeHugePagesAndGiveThemBack) {
  const int64_t before = host_memory::InUse();
  {
    auto b = Buffer::Allocate(5 * kMiB + 1);
    EXPECT_EQ(host_memory::InUse() - before, 6 * kMiB);
    auto small = Buffer::Allocate(100);
    EXPECT_EQ(host_memory::InUse() - before, 6 * kMiB + kBufferAlignment * 2);
  }
  EXPECT_EQ(host_memory::InUse(), before);
}

TEST(Buffer, GrowingKeepsTheContentsAndZeroFillsTheRest) {
  auto b = Buffer::Allocate(1000);
  for (int i = 0; i < 1000; ++i) b->mutable_data()[i] = static_cast<uint8_t>(i % 251 + 1);
  b->Resize(6 * kMiB);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(b->data()[i], static_cast<uint8_t>(i % 251 + 1));
  EXPECT_TRUE(
      std::all_of(b->data() + 1000, b->data() + b->size(), [](uint8_t v) { return v == 0; }));
  const char text[] = "copied bytes";
  auto c = Buffer::CopyOf(text, sizeof(text));
  EXPECT_EQ(std::memcmp(c->data(), text, sizeof(text)), 0);
}

}  // namespace
}  // namespace tandem
