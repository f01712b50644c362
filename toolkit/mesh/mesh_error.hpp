#pragma once
#include <stdexcept>

namespace quilt {

/// A coarse mesh that cannot be used: unreadable or malformed file (message names file and
/// line), unsupported cells, bad geometry or topology, unknown boundary part.
class MeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace quilt
