#include "parallel/rank_consistency.hpp"

namespace quilt {
namespace {

// Ends every mismatch message: the two ways ranks come to read different inputs.
constexpr const char* kLikelyCauses =
    "was a file edited while the job started, or do the nodes see different files?";

/// Element-wise maxima of `values` over all ranks.
std::vector<std::uint64_t> max_over_ranks(std::vector<std::uint64_t> values,
                                          const Communicator& comm) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                          MPI_UINT64_T, MPI_MAX, comm.handle()),
            "MPI_Allreduce(max)");
  return values;
}

/// For each value, whether it is the same on every rank: one reduction gives the minimum and
/// the maximum, since max(~v) = ~min(v).
std::vector<bool> same_on_all_ranks(const std::vector<std::uint64_t>& local,
                                    const Communicator& comm) {
  const std::size_t n = local.size();
  std::vector<std::uint64_t> both(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    both[i] = local[i];
    both[n + i] = ~local[i];
  }
  both = max_over_ranks(std::move(both), comm);
  std::vector<bool> same(n);
  for (std::size_t i = 0; i < n; ++i) same[i] = both[i] == ~both[n + i];
  return same;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::uint64_t chart_fingerprint(const ChartMap& charts) {
  Fingerprint f;
  f.add(charts.size());
  for (const auto& [part, chart] : charts)
    f.add(part).add(chart.kind).add(chart.centre.x).add(chart.centre.y).add(chart.radius);
  return f.value();
}

std::uint64_t vertex_fingerprint(const CoarseMesh& mesh) {
  Fingerprint f;
  f.add(mesh.vertices.size());
  for (const Point2& p : mesh.vertices) f.add(p.x).add(p.y);
  return f.value();
}

}  // namespace

Fingerprint& Fingerprint::add_bytes(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash_ ^= bytes[i];
    hash_ *= 1099511628211ULL;  // the FNV-1a prime
  }
  return *this;
}

Fingerprint& Fingerprint::add(std::string_view text) {
  add(text.size());
  return add_bytes(text.data(), text.size());
}

std::vector<std::string> parts_differing_across_ranks(const std::vector<InputPart>& parts,
                                                      const Communicator& comm) {
  // The counts first: reducing vectors of different lengths would be undefined (or hang).
  if (!same_on_all_ranks({parts.size()}, comm)[0]) return {"the number of parts"};
  std::vector<std::uint64_t> fingerprints;
  for (const InputPart& part : parts) fingerprints.push_back(part.fingerprint);
  const std::vector<bool> same = same_on_all_ranks(fingerprints, comm);
  std::vector<std::string> differing;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!same[i]) differing.push_back(parts[i].name);
  return differing;
}

void check_same_configuration(
    const std::string& file,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& settings,
    const Communicator& comm) {
  std::vector<InputPart> parts;
  for (const auto& [key, value] : settings)
    parts.push_back({key, Fingerprint().add(value.has_value()).add(value.value_or("")).value()});
  const std::vector<std::string> differing = parts_differing_across_ranks(parts, comm);
  if (differing.empty()) return;
  throw InconsistentInputError("the ranks read different configurations" +
                               (file.empty() ? std::string() : " from '" + file + "'") +
                               " (differing: " + joined(differing) + "): " + kLikelyCauses);
}

std::vector<InputPart> mesh_parts(const CoarseMesh& mesh, const ChartMap& charts) {
  return {{"vertices", vertex_fingerprint(mesh)},
          {"cells", Fingerprint().add(mesh.cells).value()},
          {"boundary edges", Fingerprint().add(mesh.edges).add(mesh.edge_part).value()},
          {"part names", Fingerprint().add(mesh.part_names).value()},
          {"charts", chart_fingerprint(charts)}};
}

std::uint64_t mesh_fingerprint(const CoarseMesh& mesh, const ChartMap& charts) {
  Fingerprint f;
  for (const InputPart& part : mesh_parts(mesh, charts)) f.add(part.fingerprint);
  return f.value();
}

void check_same_mesh(const CoarseMesh& mesh, const ChartMap& charts, const Communicator& comm) {
  const std::vector<std::string> differing =
      parts_differing_across_ranks(mesh_parts(mesh, charts), comm);
  if (differing.empty()) return;
  throw InconsistentInputError("the ranks read different meshes: '" + mesh.source +
                               "' (differing: " + joined(differing) + "): " + kLikelyCauses);
}

}  // namespace quilt
