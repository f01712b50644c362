#pragma once
// Inputs every rank reads for itself (the configuration file, the coarse mesh) must be the same
// on all ranks. Ranks that read different inputs (a file edited while the job started, different
// files on different nodes) take different paths through the program and end up waiting for each
// other in a collective for ever; comparing a fingerprint of what each rank parsed, right after
// reading, turns that into an error on every rank.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "mesh/chart.hpp"
#include "mesh/coarse_mesh.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// The ranks read different inputs; thrown on every rank alike.
class InconsistentInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// 64-bit FNV-1a over the values added. Numbers count bitwise (0.0 and -0.0 differ): ranks that
/// parsed different bits would compute different results. Not a defence against deliberate
/// collisions, which nothing here needs.
class Fingerprint {
 public:
  Fingerprint& add_bytes(const void* data, std::size_t size);

  /// Integers, bool, enums and doubles, by their bytes (none has padding).
  template <class T>
  requires std::is_integral_v<T> || std::is_enum_v<T> || std::is_same_v<T, double> Fingerprint& add(
      T value) {
    return add_bytes(&value, sizeof value);
  }
  /// The length first, so that ("ab", "c") and ("a", "bc") differ.
  Fingerprint& add(std::string_view text);
  template <class T, std::size_t N>
  Fingerprint& add(const std::array<T, N>& items) {
    for (const T& item : items) add(item);
    return *this;
  }
  template <class T>
  Fingerprint& add(const std::vector<T>& items) {
    add(items.size());
    for (const T& item : items) add(item);
    return *this;
  }

  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;  // the FNV-1a offset basis
};

/// A named part of an input (a configuration key, the mesh's vertices) and its fingerprint.
struct InputPart {
  std::string name;
  std::uint64_t fingerprint = 0;
};

/// Collective: the names of the parts whose fingerprints are not the same on every rank, the
/// same list on every rank. `parts` must name the same parts in the same order on every rank;
/// a different number of parts is reported as a part of its own.
std::vector<std::string> parts_differing_across_ranks(const std::vector<InputPart>& parts,
                                                      const Communicator& comm);

/// Collective: throws InconsistentInputError on every rank unless every rank parsed the same
/// configuration: `settings` are all keys in the same order on every rank with their values
/// (std::nullopt: unset), `file` the configuration file (for the message, may be "").
void check_same_configuration(
    const std::string& file,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& settings,
    const Communicator& comm);

/// The parts of a coarse mesh that check_same_mesh compares: vertices (bitwise), cells,
/// boundary edges with their parts, part names, charts.
std::vector<InputPart> mesh_parts(const CoarseMesh& mesh, const ChartMap& charts);
/// One fingerprint of all mesh_parts (e.g. to recognise the mesh a checkpoint was written on).
std::uint64_t mesh_fingerprint(const CoarseMesh& mesh, const ChartMap& charts);

/// Collective: throws InconsistentInputError on every rank (naming mesh.source and what
/// differs) unless every rank holds the same coarse mesh: vertices bitwise, cells, boundary
/// parts and their names, and charts.
void check_same_mesh(const CoarseMesh& mesh, const ChartMap& charts, const Communicator& comm);

}  // namespace quilt
