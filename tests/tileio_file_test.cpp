#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/error.h"
#include "core/file_io.h"
#include "test_support.h"
#include "tileio/tileio.h"

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
  if (geteuid() != 0) {  // root ignores permissions
    fs::permissions(dir.file("out"), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(writeString(path, "new"), InputError);
    fs::permissions(dir.file("out"), fs::perms::owner_all);
    EXPECT_EQ(test::readBytes(path), "old");
  }
  // A regular file where a parent folder should be.
  EXPECT_THROW(writeString(dir.file("out/manifest.json/x"), "new"), InputError);
  EXPECT_THROW(writeString("", "new"), InputError);
  EXPECT_THROW(writeString(dir.file("out/"), "new"), InputError);
  EXPECT_EQ(test::readBytes(path), "old");
  EXPECT_FALSE(hasTempLeftovers(dir.path));
}

// Issue #13 (5): the temporary was path.tmp.<pid>, shared by two writers in different PID
// namespaces (both pid 1). Names are random now; a squatter on the old name changes nothing.
TEST(FileIo, TemporaryNameIsNotThePid) {
  test::TempDir dir;
  std::string path = dir.file("out.csv");
  fs::create_directories(path + ".tmp." + std::to_string(getpid()));
  fs::create_directories(path + ".tmp.1");
  writeString(path, "new");
  EXPECT_EQ(test::readBytes(path), "new");
  EXPECT_EQ(randomToken(10).size(), 10u);
  EXPECT_NE(randomToken(10), randomToken(10));
  for (char c : randomToken(200)) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) << c;
}

// Issue #13 (5): `export -o /dev/full` as root replaced the device with a regular file. A
// device or FIFO is written through, a symbolic link followed, a folder or socket refused;
// none of them is ever replaced.
TEST(FileIo, WritesThroughDevicesAndNeverReplacesThem) {
  // Private nodes when we may create them (root), so that a regression replaces a file in a
  // temporary folder and not the system's /dev/null or /dev/full.
  test::TempDir dir;
  auto device = [&dir](const char* name, unsigned minor) {
    std::string path = dir.file(name);
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0 ? path : std::string("/dev/") + name;
  };
  const std::string null = device("null", 3);
  struct stat before {}, after {};
  ASSERT_EQ(::stat(null.c_str(), &before), 0);
  writeString(null, "discarded");
  ASSERT_EQ(::stat(null.c_str(), &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << null << " was replaced";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  EXPECT_EQ(after.st_ino, before.st_ino);

  const std::string full = device("full", 7);
  try {
    writeString(full, "no room");
    FAIL() << "no error writing to " << full;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(full + ": cannot write: No space left on device", 0), 0u) << e.what();
  }
  ASSERT_EQ(::stat(full.c_str(), &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << full << " was replaced";
  EXPECT_EQ(after.st_rdev, makedev(1, 7));
  EXPECT_FALSE(hasTempLeftovers(dir.path));
}

TEST(FileIo, WritesThroughAFifoWithAReaderAndRefusesOneWithout) {
  test::TempDir dir;
  std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  // Nobody reads: an error at once (a blocking open would hang here), the FIFO stays.
  EXPECT_THROW(writeString(fifo, "lost"), InputError);

  std::string received;
  std::thread reader([&] {
    int fd = ::open(fifo.c_str(), O_RDONLY);  // waits for the writer
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) received.append(buf, size_t(n));
    ::close(fd);
  });
  // The writer's open fails while the reader has not opened yet; retry until it has.
  std::string payload(200000, 'p');  // several pipe buffers: the writer must block, not fail
  payload[123] = 'q';
  bool written = false;
  for (int i = 0; i < 500 && !written; ++i) {
    try {
      writeString(fifo, payload);
      written = true;
    } catch (const InputError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  reader.join();
  EXPECT_TRUE(written);
  EXPECT_EQ(received, payload);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_FALSE(hasTempLeftovers(dir.path));
}

TEST(FileIo, FollowsSymbolicLinksAndRefusesDanglingOnesFoldersAndSockets) {
  test::TempDir dir;
  fs::create_directories(dir.file("real"));
  writeString(dir.file("real/data.csv"), "old");
  fs::create_symlink("real/data.csv", dir.file("link.csv"));
  fs::create_symlink("link.csv", dir.file("link2.csv"));  // a chain
  writeString(dir.file("link2.csv"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.file("link.csv")));
  EXPECT_TRUE(fs::is_symlink(dir.file("link2.csv")));
  EXPECT_EQ(fs::read_symlink(dir.file("link.csv")), "real/data.csv");
  EXPECT_EQ(test::readBytes(dir.file("real/data.csv")), "new");

  fs::create_symlink("missing/nothing.csv", dir.file("dangling.csv"));
  try {
    writeString(dir.file("dangling.csv"), "x");
    FAIL() << "dangling link accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link to 'missing/nothing.csv', which does not exist"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling.csv")));
  EXPECT_FALSE(fs::exists(dir.file("missing")));

  fs::create_directories(dir.file("folder/inside"));
  EXPECT_THROW(writeString(dir.file("folder"), "x"), InputError);
  fs::create_symlink("folder", dir.file("folder-link"));
  EXPECT_THROW(writeString(dir.file("folder-link"), "x"), InputError);
  EXPECT_TRUE(fs::is_directory(dir.file("folder/inside")));

  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string socketPath = dir.file("sock");
  ASSERT_LT(socketPath.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, socketPath.c_str(), socketPath.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_THROW(writeString(socketPath, "x"), InputError);
  EXPECT_TRUE(fs::is_socket(socketPath));
  ::close(sock);
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
