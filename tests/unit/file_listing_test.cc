// File listing: single files, recursive directories with hidden files skipped, globs (* ? [..]
// **), hive partitions with URL-decoding and the default partition, sorted output, clear errors.
#include "tandem/io/file_listing.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tandem::io {
namespace {
namespace fs = std::filesystem;

class FileListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("tandem_listing_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }
  std::string Touch(const std::string& rel) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
    return p.string();
  }
  std::string R(const std::string& rel = "") const {
    return rel.empty() ? root_.string() : (root_ / rel).string();
  }
  static std::vector<std::string> Paths(const FileListing& l) {
    std::vector<std::string> v;
    for (const auto& f : l.files) v.push_back(f.path);
    return v;
  }
  fs::path root_;
};

TEST(FileListingGlob, Matcher) {
  EXPECT_TRUE(GlobMatch("*", "abc"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*.parquet", "part-0.parquet"));
  EXPECT_FALSE(GlobMatch("*.parquet", "part-0.parquet.crc"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "ac"));
  EXPECT_TRUE(GlobMatch("[ab]x", "bx"));
  EXPECT_FALSE(GlobMatch("[ab]x", "cx"));
  EXPECT_TRUE(GlobMatch("f[0-9][0-9]", "f42"));
  EXPECT_FALSE(GlobMatch("f[!0-9]", "f4"));
  EXPECT_TRUE(GlobMatch("f[^0-9]", "fa"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYbZc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYYbZ"));
  EXPECT_TRUE(GlobMatch("\\*", "*"));
  EXPECT_FALSE(GlobMatch("\\*", "a"));
  EXPECT_TRUE(GlobMatch("[", "["));  // unterminated set: a literal '['
  EXPECT_TRUE(GlobMatch("[]]", "]"));
  // Pathological backtracking stays fast.
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
}

TEST(FileListingGlob, UrlDecode) {
  EXPECT_EQ(UrlDecode("a%20b"), "a b");
  EXPECT_EQ(UrlDecode("%2F%3d"), "/=");
  EXPECT_EQ(UrlDecode("100%"), "100%");
  EXPECT_EQ(UrlDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(UrlDecode("%C3%A9"), "\xC3\xA9");
}

TEST_F(FileListingTest, SingleFile) {
  std::string f = Touch("one.parquet");
  auto l = ListFiles(f);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(Paths(*l), std::vector<std::string>{f});
  EXPECT_TRUE(l->partition_keys.empty());
}

TEST_F(FileListingTest, DirectoryRecursiveSortedSkipsHidden) {
  Touch("b.parquet");
  Touch("a.parquet");
  Touch("sub/c.parquet");
  Touch("sub/deeper/d.parquet");
  Touch("_SUCCESS");
  Touch(".a.parquet.crc");
  Touch("a.parquet.crc");
  Touch("_temporary/x.parquet");
  Touch(".hidden/y.parquet");
  auto l = ListFiles(R());
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(Paths(*l), (std::vector<std::string>{R("a.parquet"), R("b.parquet"), R("sub/c.parquet"),
                                                 R("sub/deeper/d.parquet")}));
  // A trailing slash changes nothing.
  auto l2 = ListFiles(R() + "/");
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(l2->files.size(), 4u);
}

TEST_F(FileListingTest, Globs) {
  Touch("x/f1.parquet");
  Touch("x/f2.parquet");
  Touch("x/g1.parquet");
  Touch("y/f3.parquet");
  Touch("y/z/f4.parquet");
  Touch("x/_f5.parquet");
  auto l = ListFiles(R("*/f?.parquet"));
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(Paths(*l),
            (std::vector<std::string>{R("x/f1.parquet"), R("x/f2.parquet"), R("y/f3.parquet")}));
  l = ListFiles(R("x/[fg]1.parquet"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(Paths(*l), (std::vector<std::string>{R("x/f1.parquet"), R("x/g1.parquet")}));
  l = ListFiles(R("**/f*.parquet"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(Paths(*l), (std::vector<std::string>{R("x/f1.parquet"), R("x/f2.parquet"),
                                                 R("y/f3.parquet"), R("y/z/f4.parquet")}));
  l = ListFiles(R("y/**"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(Paths(*l), (std::vector<std::string>{R("y/f3.parquet"), R("y/z/f4.parquet")}));
  // A wildcard matching folders lists them recursively.
  l = ListFiles(R("[y]"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->files.size(), 2u);
}

TEST_F(FileListingTest, HivePartitions) {
  Touch("year=2021/month=1/a.parquet");
  Touch("year=2020/month=12/b.parquet");
  Touch("year=2020/month=__HIVE_DEFAULT_PARTITION__/c.parquet");
  Touch("year=2020/month=12/_SUCCESS");
  auto l = ListFiles(R());
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->partition_keys, (std::vector<std::string>{"year", "month"}));
  ASSERT_EQ(l->files.size(), 3u);
  EXPECT_EQ(l->files[0].path, R("year=2020/month=12/b.parquet"));
  EXPECT_EQ(l->files[0].partition_values[0], "2020");
  EXPECT_EQ(l->files[0].partition_values[1], "12");
  EXPECT_EQ(l->files[1].partition_values[1], std::nullopt);
  EXPECT_EQ(l->files[2].partition_values[0], "2021");
  // Partitions are the folders below the starting point (the glob's literal prefix), as in Spark.
  l = ListFiles(R("year=2020/*/*.parquet"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->files.size(), 2u);
  EXPECT_EQ(l->partition_keys, (std::vector<std::string>{"month"}));
  l = ListFiles(R("year=*/month=1*/*.parquet"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->files.size(), 2u);
  EXPECT_EQ(l->partition_keys, (std::vector<std::string>{"year", "month"}));
}

TEST_F(FileListingTest, HiveValuesAreUrlDecoded) {
  Touch("city=New%20York/a.parquet");
  Touch("city=S%C3%A3o%20Paulo/b.parquet");
  auto l = ListFiles(R());
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->files.size(), 2u);
  EXPECT_EQ(l->files[0].partition_values[0], "New York");
  EXPECT_EQ(l->files[1].partition_values[0], "S\xC3\xA3o Paulo");
}

TEST_F(FileListingTest, InconsistentPartitionsAreAnError) {
  Touch("a=1/f.parquet");
  Touch("b=2/g.parquet");
  auto l = ListFiles(R());
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("inconsistent hive partition"), std::string::npos);
  EXPECT_NE(l.status().message().find("b=2/g.parquet"), std::string::npos);
}

TEST_F(FileListingTest, Errors) {
  auto l = ListFiles(R("missing.parquet"));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "no such file or directory: " + R("missing.parquet"));

  l = ListFiles(R("*.nothing"));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "no files match glob: " + R("*.nothing"));

  fs::create_directories(root_ / "empty");
  Touch("empty/_SUCCESS");
  l = ListFiles(R("empty"));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "no data files in directory: " + R("empty"));

  l = ListFiles(R("nodir/*.parquet"));
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("nodir"), std::string::npos);
}

TEST_F(FileListingTest, PermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores permissions";
  Touch("locked/a.parquet");
  fs::permissions(root_ / "locked", fs::perms::owner_all, fs::perm_options::remove);
  auto l = ListFiles(R("locked"));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "permission denied: " + R("locked"));
  l = ListFiles(R());
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), StatusCode::kIOError);
  fs::permissions(root_ / "locked", fs::perms::owner_all, fs::perm_options::add);
}

TEST_F(FileListingTest, LiteralBracketName) {
  std::string f = Touch("a[1].parquet");
  auto l = ListFiles(f);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(Paths(*l), std::vector<std::string>{f});
}

}  // namespace
}  // namespace tandem::io
