#pragma once
// Helpers of the collective output tests (test_output, test_vtu): a directory all ranks share
// and the temporaries write_file_atomically may leave in one.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/output_test_support.hpp"
#include "parallel/communicator.hpp"

namespace quilt::test {

/// A directory every rank sees (named after rank 0's pid and the test), removed at the end.
class SharedDir {
 public:
  explicit SharedDir(const Communicator& comm) : comm_(comm) {
    const auto pid = static_cast<long long>(comm.max(comm.rank() == 0 ? ::getpid() : 0.0));
    path_ = std::filesystem::temp_directory_path() /
            ("quilt_output_" + std::to_string(pid) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    if (comm.rank() == 0) {
      std::filesystem::remove_all(path_);
      std::filesystem::create_directories(path_);
    }
    barrier();
  }
  ~SharedDir() {
    barrier();
    std::error_code ec;
    if (comm_.rank() == 0) std::filesystem::remove_all(path_, ec);
  }
  SharedDir(const SharedDir&) = delete;
  SharedDir& operator=(const SharedDir&) = delete;
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  void barrier() const { comm_.max(0.0); }

 private:
  const Communicator& comm_;
  std::filesystem::path path_;
};

/// The names in `directory` that are temporaries of write_file_atomically.
inline std::vector<std::string> temporaries(const std::string& directory) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    if (contains(entry.path().filename().string(), ".tmp.")) found.push_back(entry.path());
  return found;
}

}  // namespace quilt::test
