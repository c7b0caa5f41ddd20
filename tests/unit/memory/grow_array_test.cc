// GrowArray (memory/grow_array.h) and the host blocks under it: contents survive growth across
// the mapped threshold (4 MiB) and remapping; elements a resize adds are zero even where an
// earlier, longer use of the array left data; TakeBuffer hands over exactly the elements, counts
// them against the host budget and gives the bytes back when the buffer dies; an array sized for
// overwriting is zero-filled again by a later resize; a mapped array grows into a kept block
// (contents kept, the rest zero); the store of freed blocks keeps the newest. Runs under ASan.
#include "tandem/memory/grow_array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(GrowArray, PushBackKeepsEveryValueAcrossTheMappedThreshold) {
  GrowArray<uint64_t> a;
  const int64_t n = 3 * kMiB;  // 24 MiB of values: small, then mapped, then remapped
  for (int64_t i = 0; i < n; ++i) a.push_back(static_cast<uint64_t>(i) * 7 + 1);
  ASSERT_EQ(a.size(), n);
  EXPECT_TRUE(host_block::IsMapped(static_cast<size_t>(a.heap_bytes())));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(a[i], static_cast<uint64_t>(i) * 7 + 1) << i;
}

TEST(GrowArray, ResizeZeroFillsWhatAnEarlierUseLeft) {
  for (int64_t size : {int64_t{100}, 2 * kMiB}) {  // aligned_alloc and mapped storage
    GrowArray<int32_t> a;
    a.resize(size);
    for (int64_t i = 0; i < size; ++i) ASSERT_EQ(a[i], 0);
    for (int64_t i = 0; i < size; ++i) a[i] = -1;
    a.resize(size / 2);
    a.resize(size * 3);  // grows past the old capacity: remapped or copied
    for (int64_t i = 0; i < size / 2; ++i) ASSERT_EQ(a[i], -1) << i;
    for (int64_t i = size / 2; i < size * 3; ++i) ASSERT_EQ(a[i], 0) << size << " at " << i;
    a.clear();
    a.resize(size);
    for (int64_t i = 0; i < size; ++i) ASSERT_EQ(a[i], 0) << i;
  }
}

TEST(GrowArray, AppendAndMoveKeepTheValues) {
  GrowArray<char> a;
  const char text[] = "group keys";
  for (int r = 0; r < 1000000; ++r) a.append(text, 10);
  GrowArray<char> b = std::move(a);
  EXPECT_TRUE(a.empty());
  ASSERT_EQ(b.size(), 10000000);
  for (int64_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], text[i % 10]) << i;
}

TEST(GrowArray, TakeBufferHandsOverTheElementsAndTheirCount) {
  for (int64_t size : {int64_t{10}, 3 * kMiB}) {
    const int64_t before = host_memory::InUse();
    GrowArray<int64_t> a;
    for (int64_t i = 0; i < size; ++i) a.push_back(i - 5);
    {
      std::shared_ptr<Buffer> b = a.TakeBuffer();
      EXPECT_TRUE(a.empty());
      EXPECT_EQ(a.heap_bytes(), 0);
      ASSERT_EQ(b->size(), size * 8);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % kBufferAlignment, 0u);
      for (int64_t i = 0; i < size; ++i) ASSERT_EQ(b->data_as<int64_t>()[i], i - 5) << i;
      EXPECT_GE(host_memory::InUse() - before, size * 8);
      a.push_back(1);  // the array is usable again
      EXPECT_EQ(a[0], 1);
    }
    a = GrowArray<int64_t>();
    EXPECT_EQ(host_memory::InUse(), before) << size;
  }
}

TEST(GrowArray, BuffersGrowByRemappingWithZerosPastTheirSize) {
  auto b = Buffer::Allocate(5 * kMiB);
  for (int64_t i = 0; i < b->size(); ++i) b->mutable_data()[i] = static_cast<uint8_t>(i % 13 + 1);
  b->Resize(b->size() - 100);  // bytes past the size are written: Resize must zero them again
  b->Resize(40 * kMiB);
  for (int64_t i = 0; i < 5 * kMiB - 100; ++i) {
    ASSERT_EQ(b->data()[i], static_cast<uint8_t>(i % 13 + 1)) << i;
  }
  for (int64_t i = 5 * kMiB - 100; i < b->size(); ++i) ASSERT_EQ(b->data()[i], 0) << i;
}

TEST(GrowArray, ResizeForOverwriteLeavesNothingAResizeTakesForZero) {
  for (int64_t size : {int64_t{100}, 2 * kMiB}) {
    GrowArray<int32_t> a;
    a.resize_for_overwrite(size);
    ASSERT_EQ(a.size(), size);
    for (int64_t i = 0; i < size; ++i) a[i] = -1;
    a.resize(size / 2);
    a.resize(size);  // within the capacity: what the overwrite left must be zeroed
    for (int64_t i = 0; i < size / 2; ++i) ASSERT_EQ(a[i], -1) << i;
    for (int64_t i = size / 2; i < size; ++i) ASSERT_EQ(a[i], 0) << size << " at " << i;
  }
}

TEST(GrowArray, AMappedArrayGrowsIntoAKeptBlockKeepingItsValuesAndZeroingTheRest) {
  host_block::ReleaseKept();
  GrowArray<int64_t> a;
  const int64_t first = 12 * kMiB / 8;  // 12 MiB: mapped
  a.resize(first);
  for (int64_t i = 0; i < first; ++i) a[i] = i + 3;
  // A freed 24 MiB block of garbage is kept; growing to 20 MiB takes it (up to twice the size).
  void* block = host_block::Allocate(24 * kMiB, false);
  std::memset(block, 0xAB, 24 * kMiB);
  host_block::Free(block, 24 * kMiB);
  a.resize(20 * kMiB / 8);
  EXPECT_EQ(static_cast<void*>(a.data()), block) << "the kept block was not taken";
  for (int64_t i = 0; i < first; ++i) ASSERT_EQ(a[i], i + 3) << i;
  for (int64_t i = first; i < a.size(); ++i) ASSERT_EQ(a[i], 0) << i;
  host_block::ReleaseKept();
}

TEST(GrowArray, TheStoreOfFreedBlocksKeepsTheNewestWhenFull) {
  // 129 blocks of 4 MiB freed in turn (never touched: no memory is used) into a store of at most
  // 128: the first one freed makes room, the other 128 come back.
  host_block::ReleaseKept();
  const size_t bytes = 4 * kMiB;
  std::vector<void*> freed;
  for (int i = 0; i < 129; ++i) freed.push_back(host_block::Allocate(bytes, false));
  for (void* p : freed) host_block::Free(p, bytes);
  std::vector<void*> back;
  for (int i = 0; i < 128; ++i) back.push_back(host_block::Allocate(bytes, false));
  std::sort(back.begin(), back.end());
  std::vector<void*> newest(freed.begin() + 1, freed.end());
  std::sort(newest.begin(), newest.end());
  EXPECT_EQ(back, newest);
  for (void* p : back) host_block::Free(p, bytes);
  host_block::ReleaseKept();
}

}  // namespace
}  // namespace tandem
