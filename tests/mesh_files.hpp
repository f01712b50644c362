#pragma once
// Path of a shipped coarse mesh (meshes/NAME) for the test executables, which are compiled with
// QUILT_SOURCE_DIR set to the source tree (tests/CMakeLists.txt).
#include <string>

inline std::string mesh_path(const std::string& name) {
  return std::string(QUILT_SOURCE_DIR) + "/meshes/" + name;
}
