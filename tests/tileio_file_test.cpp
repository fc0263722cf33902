#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include <sys/resource.h>
#include <unistd.h>

#include "core/error.h"
#include "test_support.h"
#include "tileio/tile_io.h"

using namespace eco;
namespace fs = std::filesystem;

namespace {

void writeString(const std::string& path, const std::string& s) { writeFileAtomic(path, s.data(), s.size()); }

bool hasTempLeftovers(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(FileIo, WritesCreatingFoldersAndReplaces) {
  test::TempDir dir;
  std::string path = dir.file("a/b/c.bin");
  writeString(path, "first");
  EXPECT_EQ(test::readBytes(path), "first");
  writeString(path, "second, longer");
  EXPECT_EQ(test::readBytes(path), "second, longer");
  writeString(path, "");
  EXPECT_EQ(test::readBytes(path), "");
  EXPECT_FALSE(hasTempLeftovers(dir.path));
  std::vector<uint8_t> bytes = readFileBytes(path, 1 << 20);
  EXPECT_TRUE(bytes.empty());
}

TEST(FileIo, ReadErrorsNameThePath) {
  test::TempDir dir;
  for (const std::string& path : {dir.file("missing.bin"), dir.path.string()}) {
    try {
      readFileBytes(path, 1 << 20);
      FAIL() << path;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
    }
  }
}

// A write that fails halfway (the file-size limit stops it after 4 KiB) must leave the
// previous file untouched and no temporary behind.
TEST(FileIo, FailedWriteKeepsPreviousFile) {
  test::TempDir dir;
  std::string path = dir.file("tile.ecot");
  writeString(path, "previous contents");

  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string big(1 << 20, 'x');
  EXPECT_THROW(writeString(path, big), InputError);
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previousHandler);

  EXPECT_EQ(test::readBytes(path), "previous contents");
  EXPECT_FALSE(hasTempLeftovers(dir.path));
}

TEST(FileIo, UnwritableDestinationKeepsPreviousFile) {
  test::TempDir dir;
  std::string path = dir.file("out/manifest.json");
  writeString(path, "old");
  // A folder squatting on the temporary name makes the write fail before any byte lands.
  fs::create_directories(path + ".tmp." + std::to_string(getpid()));
  EXPECT_THROW(writeString(path, "new"), InputError);
  EXPECT_EQ(test::readBytes(path), "old");
  fs::remove(path + ".tmp." + std::to_string(getpid()));

  if (geteuid() != 0) {  // root ignores permissions
    fs::permissions(dir.file("out"), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(writeString(path, "new"), InputError);
    fs::permissions(dir.file("out"), fs::perms::owner_all);
    EXPECT_EQ(test::readBytes(path), "old");
  }
  // A regular file where a parent folder should be.
  EXPECT_THROW(writeString(dir.file("out/manifest.json/x"), "new"), InputError);
  EXPECT_FALSE(hasTempLeftovers(dir.path));
}

TEST(FileIo, PlainWriteReplacesAndNamesThePathOnFailure) {
  test::TempDir dir;
  const std::string path = dir.file("tile.ecot");
  writeFilePlain(path, "first", 5);
  writeFilePlain(path, "new", 3);
  EXPECT_EQ(test::readBytes(path), "new");
  syncFileSystemOf(dir.path.string());

  const std::string missing = dir.file("no/such/folder/tile.ecot");
  try {
    writeFilePlain(missing, "x", 1);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_THROW(syncFileSystemOf(dir.file("no/such/folder")), InputError);
}
