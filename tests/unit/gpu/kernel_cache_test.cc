// The kernel cache (gpu/jit/kernel_cache.h) with NVRTC: compiling needs no GPU, so these run in
// the unit suite wherever the CUDA toolkit or PyPI's NVRTC is installed (and are reported as
// skipped, naming why, where it is not). Reuse from memory and from disk, a corrupted or
// truncated file compiled again and replaced, a folder that cannot be written, a compile error.
#include "tandem/gpu/jit/kernel_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tandem::gpu::jit {
namespace {

namespace fs = std::filesystem;

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<const Nvrtc*> nvrtc = Nvrtc::Get();
    if (!nvrtc.ok()) GTEST_SKIP() << "skipped: " << nvrtc.status().message();
    std::string pattern = fs::temp_directory_path().string() + "/tandem_kernels_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern + "/cache";  // made by the cache on first store
    ForgetKernelsInMemory();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(fs::path(dir_).parent_path());
  }

  // A small kernel; `tag` makes its source (and key) distinct.
  static KernelSource Kernel(const std::string& tag) {
    KernelSource k;
    k.name = "tandem_test_add_" + tag;
    k.source = "#include \"tq_types.h\"\nextern \"C\" __global__ void " + k.name +
               "(tq_i64* x, tq_i64 n) {\n  tq_i64 i = blockIdx.x * (tq_i64)blockDim.x + "
               "threadIdx.x;\n  if (i < n) x[i] += 1;\n}\n";
    k.headers.push_back({"tq_types.h", "typedef long long tq_i64;\n"});
    return k;
  }

  std::string FileOf(const KernelSource& k) const {
    char hex[17];
    std::snprintf(
        hex, sizeof(hex), "%016llx",
        static_cast<unsigned long long>(KernelKey(k, Nvrtc::Get().ValueOrDie()->version())));
    return dir_ + "/" + hex + ".cubin";
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void Write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  std::string dir_;
};

TEST_F(KernelCacheTest, CompilesOnceThenReusesFromMemoryAndFromDisk) {
  const KernelSource k = Kernel("reuse");
  const KernelCacheCounts before = KernelCacheCountsNow();
  Result<std::string> first = CubinFor(k, dir_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_GT(first->size(), 4u);
  EXPECT_EQ(first->substr(0, 4), std::string("\x7f"
                                             "ELF"));  // a CUBIN is an ELF file
  EXPECT_TRUE(fs::exists(FileOf(k)));

  Result<std::string> again = CubinFor(k, dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  ForgetKernelsInMemory();  // as a second process would start
  Result<std::string> from_disk = CubinFor(k, dir_);
  ASSERT_TRUE(from_disk.ok());
  EXPECT_EQ(*from_disk, *first);

  const KernelCacheCounts after = KernelCacheCountsNow();
  EXPECT_EQ(after.compiled - before.compiled, 1);
  EXPECT_EQ(after.memory_hits - before.memory_hits, 1);
  EXPECT_EQ(after.disk_hits - before.disk_hits, 1);
  EXPECT_EQ(after.corrupt_files - before.corrupt_files, 0);
}

TEST_F(KernelCacheTest, ACorruptedOrTruncatedFileIsCompiledAgainAndReplaced) {
  const KernelSource k = Kernel("corrupt");
  Result<std::string> good = CubinFor(k, dir_);
  ASSERT_TRUE(good.ok()) << good.status().message();
  const std::string file = FileOf(k);
  const std::string intact = Read(file);
  ASSERT_GT(intact.size(), 64u);

  std::string flipped = intact;
  flipped[flipped.size() / 2] ^= 0x5a;  // one byte of the CUBIN, inside the checksum
  const std::string truncated = intact.substr(0, intact.size() - 100);
  const std::string garbage = "not a kernel";
  for (const std::string& damaged : {flipped, truncated, garbage}) {
    Write(file, damaged);
    ForgetKernelsInMemory();
    const KernelCacheCounts before = KernelCacheCountsNow();
    Result<std::string> cubin = CubinFor(k, dir_);
    ASSERT_TRUE(cubin.ok()) << cubin.status().message();
    EXPECT_EQ(*cubin, *good);
    const KernelCacheCounts after = KernelCacheCountsNow();
    EXPECT_EQ(after.corrupt_files - before.corrupt_files, 1);
    EXPECT_EQ(after.compiled - before.compiled, 1);
    EXPECT_EQ(Read(file), intact);  // replaced by a whole file
  }
}

TEST_F(KernelCacheTest, AFileOfAnotherKeyIsNotUsed) {
  const KernelSource a = Kernel("key_a");
  const KernelSource b = Kernel("key_b");
  ASSERT_NE(KernelKey(a, "13.0"), KernelKey(b, "13.0"));
  ASSERT_NE(KernelKey(a, "13.0"), KernelKey(a, "13.1"));  // a new NVRTC compiles again
  ASSERT_TRUE(CubinFor(a, dir_).ok());
  ASSERT_TRUE(CubinFor(b, dir_).ok());
  fs::copy_file(FileOf(a), FileOf(b), fs::copy_options::overwrite_existing);
  ForgetKernelsInMemory();
  const KernelCacheCounts before = KernelCacheCountsNow();
  ASSERT_TRUE(CubinFor(b, dir_).ok());
  EXPECT_EQ(KernelCacheCountsNow().corrupt_files - before.corrupt_files, 1);
}

TEST_F(KernelCacheTest, AFolderThatCannotBeWrittenStillGivesTheKernel) {
  const KernelSource k = Kernel("readonly");
  const std::string blocked = dir_ + "_file";
  Write(blocked, "a file where the folder would go");
  const KernelCacheCounts before = KernelCacheCountsNow();
  Result<std::string> cubin = CubinFor(k, blocked + "/kernels");
  ASSERT_TRUE(cubin.ok()) << cubin.status().message();
  EXPECT_EQ(KernelCacheCountsNow().write_failures - before.write_failures, 1);
  fs::remove(blocked);
}

TEST_F(KernelCacheTest, ACompileErrorNamesTheKernelAndQuotesNvrtc) {
  KernelSource k = Kernel("broken");
  k.source += "this is not CUDA;\n";
  Result<std::string> cubin = CubinFor(k, dir_);
  ASSERT_FALSE(cubin.ok());
  EXPECT_NE(cubin.status().message().find("could not compile the generated kernel "
                                          "tandem_test_add_broken"),
            std::string::npos)
      << cubin.status().message();
  EXPECT_NE(cubin.status().message().find("error"), std::string::npos);
  EXPECT_FALSE(fs::exists(FileOf(k)));
}

TEST(KernelCacheDir, TheSettingWinsThenXdgThenHome) {
  EXPECT_EQ(KernelCacheDir("/some/where"), "/some/where");
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  ::setenv("XDG_CACHE_HOME", "/tmp", 1);
  EXPECT_EQ(KernelCacheDir(""), "/tmp/tandem/kernels");
  ::setenv("XDG_CACHE_HOME", "/no/such/folder/anywhere", 1);
  EXPECT_NE(KernelCacheDir(""), "/no/such/folder/anywhere/tandem/kernels");
  if (old_xdg) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

// A file named for NVRTC that does not load, or is not NVRTC, is reported by name and reason
// (TANDEM_NVRTC_LIBRARY's error is this message); no NVRTC is needed.
TEST(NvrtcLoad, AFileThatIsNotNvrtcIsNamedWithTheReason) {
  Result<const Nvrtc*> missing = Nvrtc::Load("/nonexistent/libnvrtc.so.13");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/libnvrtc.so.13"), std::string::npos)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("No such file"), std::string::npos)
      << missing.status().message();
  Result<const Nvrtc*> other = Nvrtc::Load("libz.so.1");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("lacks NVRTC's functions"), std::string::npos)
      << other.status().message();
}

}  // namespace
}  // namespace tandem::gpu::jit
