// AtomicFile: a file appears under its name only when committed; an abandoned or failed one
// leaves nothing; the signal-time cleanup removes every unfinished one and says which.
#include "tandem/common/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tandem {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tandem_atomic_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int Entries() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.is_regular_file() ? 1 : 0;
    return n;
  }
  std::string Read(const fs::path& p) const {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, CommitRenamesOntoThePath) {
  const std::string path = (dir_ / "out.txt").string();
  auto file = AtomicFile::Create(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Write("hello ", 6).ok());
  struct iovec iov[2] = {{const_cast<char*>("wor"), 3}, {const_cast<char*>("ld"), 2}};
  ASSERT_TRUE((*file)->WriteV(iov, 2).ok());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::exists((*file)->temp_path()));
  ASSERT_TRUE((*file)->Commit().ok());
  EXPECT_EQ(Read(path), "hello world");
  file->reset();
  EXPECT_EQ(Entries(), 1);
}

TEST_F(AtomicFileTest, AnAbandonedFileLeavesNothing) {
  {
    auto file = AtomicFile::Create((dir_ / "gone.txt").string());
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Write("x", 1).ok());
  }
  EXPECT_EQ(Entries(), 0);
}

TEST_F(AtomicFileTest, AMissingDirectoryIsNamed) {
  auto file = AtomicFile::Create((dir_ / "no" / "such" / "f.txt").string());
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("does not exist"), std::string::npos)
      << file.status().ToString();
}

TEST_F(AtomicFileTest, SignalCleanupRemovesUnfinishedFilesAndNamesThem) {
  auto a = AtomicFile::Create((dir_ / "a.parquet").string());
  auto b = AtomicFile::Create((dir_ / "b.csv").string());
  auto done = AtomicFile::Create((dir_ / "done.txt").string());
  ASSERT_TRUE(a.ok() && b.ok() && done.ok());
  ASSERT_TRUE((*done)->Commit().ok());
  EXPECT_EQ(Entries(), 3);
  char line[8192];
  size_t len = 0;
  EXPECT_EQ(RemoveUnfinishedFiles(line, &len, sizeof(line)), 2);
  const std::string text(line, len);
  EXPECT_NE(text.find((*a)->temp_path()), std::string::npos) << text;
  EXPECT_NE(text.find((dir_ / "b.csv").string() + " was not written"), std::string::npos) << text;
  EXPECT_EQ(Entries(), 1);  // only the committed file
  EXPECT_TRUE(fs::exists(dir_ / "done.txt"));
}

TEST_F(AtomicFileTest, TheCleanupLineIsTruncatedNotOverrun) {
  auto a = AtomicFile::Create((dir_ / std::string(200, 'x')).string());
  ASSERT_TRUE(a.ok());
  char line[64];
  size_t len = 0;
  AppendSignalSafe(line, &len, sizeof(line), "tandem: ");
  EXPECT_EQ(RemoveUnfinishedFiles(line, &len, sizeof(line)), 1);
  EXPECT_LT(len, sizeof(line));
}

TEST_F(AtomicFileTest, NothingIsCreatedOnceTheCleanupHasBegun) {
  // The process is about to die: a file created now could outlive the cleanup.
  char line[256];
  size_t len = 0;
  RemoveUnfinishedFiles(line, &len, sizeof(line));
  auto late = AtomicFile::Create((dir_ / "late.parquet").string());
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("being cancelled"), std::string::npos)
      << late.status().ToString();
  EXPECT_EQ(Entries(), 0);
}

}  // namespace
}  // namespace tandem
