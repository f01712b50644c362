#pragma once
// Helpers of the fail-safe output tests (test_atomic_file, test_output).

#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "io/atomic_file.hpp"

namespace quilt::test {

/// The whole file ("" if it cannot be read).
inline std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// The message of the IoError `f` throws; "(no IoError)" if it throws none.
inline std::string io_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  }
  return "(no IoError)";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace quilt::test
