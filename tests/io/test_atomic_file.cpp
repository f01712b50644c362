// Fail-safe output files (toolkit/io/atomic_file, output): a write that fails midway, on a full
// file system or in an unwritable directory leaves an existing file as it was and no temporary
// behind, as does an interruption (remove_unfinished_temporary); the output-path checks name every
// unusable --results / --vtu path.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "io/atomic_file.hpp"
#include "io/json.hpp"
#include "io/output.hpp"
#include "io/output_test_support.hpp"

using namespace quilt;
using namespace quilt::test;

namespace {

namespace fs = std::filesystem;

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const std::string kOld = "{\"good\": true}\n";

TEST(AtomicFile, WritesTheWholeContentAndLeavesNoTemporary) {
  const TempDir dir;
  const std::string path = dir.file("results.json");
  put(path, kOld);
  write_file_atomically(path, [](std::ostream& out) {
    for (int k = 0; k < 100000; ++k) out << k << '\n';
  });
  const std::string text = contents(path);
  EXPECT_EQ(text.substr(0, 4), "0\n1\n");
  EXPECT_EQ(text.substr(text.size() - 6), "99999\n");
  EXPECT_EQ(dir.listing(), "results.json");
}

TEST(AtomicFile, WriterThrowingMidwayLeavesTheOldFileAndNoTemporary) {
  const TempDir dir;
  const std::string path = dir.file("results.json");
  put(path, kOld);
  const auto half_then_throw = [](std::ostream& out) {
    for (int k = 0; k < 100000; ++k) out << "partial content " << k << '\n';
    throw std::logic_error("writer failed");
  };
  EXPECT_THROW(write_file_atomically(path, half_then_throw), std::logic_error);
  EXPECT_EQ(contents(path), kOld);
  EXPECT_EQ(dir.listing(), "results.json");
  // No old file: none is created.
  EXPECT_THROW(write_file_atomically(dir.file("new.json"), half_then_throw), std::logic_error);
  EXPECT_EQ(dir.listing(), "results.json");
}

// What the applications' SIGINT/SIGTERM handler does before it ends the process: the temporary
// of the write in progress goes, the old file stays.
TEST(AtomicFile, RemovingTheUnfinishedTemporaryLeavesTheOldFile) {
  const TempDir dir;
  const std::string path = dir.file("results.json");
  put(path, kOld);
  std::string during;
  const auto interrupted = [&](std::ostream& out) {
    out << "partial content\n";
    during = dir.listing();
    remove_unfinished_temporary();
  };
  // The process would have ended in the handler; here the rename finds no temporary.
  EXPECT_THROW(write_file_atomically(path, interrupted), IoError);
  EXPECT_NE(during.find("results.json.tmp."), std::string::npos) << during;
  EXPECT_EQ(contents(path), kOld);
  EXPECT_EQ(dir.listing(), "results.json");
  // With no write in progress there is nothing to remove.
  remove_unfinished_temporary();
  EXPECT_EQ(contents(path), kOld);
}

/// The file-size limit stands in for a full disk (writes fail with EFBIG instead of ENOSPC,
/// also for root); SIGXFSZ is ignored meanwhile so the write returns the error.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limited);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  sighandler_t previous_;
};

TEST(AtomicFile, FullDiskLeavesTheOldFileAndNoTemporary) {
  const TempDir dir;
  const std::string path = dir.file("results.json");
  put(path, kOld);
  std::string what;
  {
    const FileSizeLimit limit(4096);
    what = io_error([&] {
      write_file_atomically(path, [](std::ostream& out) {
        for (int k = 0; k < 100000; ++k) out << "{\"value\": " << k << "}\n";
      });
    });
  }
  EXPECT_TRUE(contains(what, "'" + path + "'")) << what;
  EXPECT_TRUE(contains(what, std::strerror(EFBIG))) << what;
  EXPECT_EQ(contents(path), kOld);
  EXPECT_EQ(dir.listing(), "results.json");
}

TEST(AtomicFile, UnwritableDirectoryLeavesTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  const TempDir dir;
  const std::string path = dir.file("results.json");
  put(path, kOld);
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string what =
      io_error([&] { write_file_atomically(path, [](std::ostream& out) { out << "new"; }); });
  fs::permissions(dir.path(), fs::perms::owner_all);
  EXPECT_TRUE(contains(what, "'" + path + "'")) << what;
  EXPECT_TRUE(contains(what, std::strerror(EACCES))) << what;
  EXPECT_EQ(contents(path), kOld);
  EXPECT_EQ(dir.listing(), "results.json");
}

TEST(AtomicFile, MissingDirectoryAndDirectoryTargetAreIoErrors) {
  const TempDir dir;
  const std::string missing = dir.file("gone/results.json");
  std::string what = io_error([&] { write_json(missing, Json::object()); });
  EXPECT_TRUE(contains(what, "'" + missing + "'")) << what;
  EXPECT_TRUE(contains(what, std::strerror(ENOENT))) << what;

  fs::create_directory(dir.file("out.vtu"));
  what = io_error([&] { write_json(dir.file("out.vtu"), Json::object()); });
  EXPECT_TRUE(contains(what, "'" + dir.file("out.vtu") + "'")) << what;
  EXPECT_TRUE(contains(what, std::strerror(EISDIR))) << what;
  EXPECT_EQ(dir.listing(), "out.vtu");
}

TEST(AtomicFile, KeepsPermissionsFollowsLinksAndWritesDevicesInPlace) {
  const TempDir dir;
  const std::string real = dir.file("real.json"), link = dir.file("link.json");
  put(real, kOld);
  fs::permissions(real, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::create_symlink("real.json", link);
  Json j = Json::object();
  j["value"] = 1;
  write_json(link, j);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(real), json_text(j));
  EXPECT_EQ(fs::status(real).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(dir.listing(), "link.json real.json");
  EXPECT_NO_THROW(write_json("/dev/null", j));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// --- output paths checked before the work ---------------------------------------------------

TEST(OutputPaths, ResultsFileProblemsNameThePath) {
  const TempDir dir;
  put(dir.file("plain"), "x");
  EXPECT_EQ(output_file_problem(dir.file("results.json")), "");
  EXPECT_EQ(output_file_problem(dir.file("plain")), "");  // replaced
  EXPECT_EQ(output_file_problem("/dev/null"), "");
  EXPECT_EQ(output_file_problem(dir.path().string()), "is a directory");
  const std::string missing = output_file_problem(dir.file("gone/results.json"));
  EXPECT_EQ(missing, "directory '" + dir.file("gone") + "' does not exist");
  const std::string under_file = output_file_problem(dir.file("plain/results.json"));
  EXPECT_EQ(under_file, "'" + dir.file("plain") + "' is not a directory");
  EXPECT_NE(output_file_problem(""), "");
  if (::geteuid() != 0) {
    fs::create_directory(dir.file("ro"));
    fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    const std::string ro = output_file_problem(dir.file("ro/results.json"));
    EXPECT_TRUE(contains(ro, "'" + dir.file("ro") + "' is not writable")) << ro;
    fs::permissions(dir.file("ro"), fs::perms::owner_all);
  }
}

TEST(OutputPaths, VtuDirectoryProblemsNameThePath) {
  const TempDir dir;
  put(dir.file("plain"), "x");
  EXPECT_EQ(output_directory_problem(dir.path().string()), "");
  EXPECT_EQ(output_directory_problem(dir.file("new")), "");  // created by write_vtu
  EXPECT_EQ(output_directory_problem(dir.file("new/")), "");
  EXPECT_EQ(output_directory_problem(dir.file("plain")), "exists and is not a directory");
  EXPECT_EQ(output_directory_problem(dir.file("gone/vtu")),
            "cannot be created: parent directory '" + dir.file("gone") + "' does not exist");
  EXPECT_EQ(output_directory_problem(dir.file("plain/vtu")),
            "cannot be created: parent '" + dir.file("plain") + "' is not a directory");
  if (::geteuid() != 0) {
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    const std::string ro = output_directory_problem(dir.file("new"));
    fs::permissions(dir.path(), fs::perms::owner_all);
    EXPECT_TRUE(contains(ro, "'" + dir.path().string() + "' is not writable")) << ro;
  }
}

}  // namespace
