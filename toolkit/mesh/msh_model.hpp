#pragma once
// Internal to the MSH readers: what a reader of either version collects from the file, the
// parts both versions share ($PhysicalNames, node and element checks) and the conversion of
// the collected records into a CoarseMesh.

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mesh/coarse_mesh.hpp"
#include "mesh/msh_lines.hpp"

namespace quilt::msh {

// Gmsh element type numbers (the same in MSH 2.2 and 4.1).
constexpr int kLine = 1;
constexpr int kQuadrangle = 3;
constexpr int kPoint = 15;

struct NodeRecord {
  long long id;
  double x, y;
};

struct QuadRecord {
  std::array<long long, 4> nodes;
  int line;
};

struct LineRecord {
  std::array<long long, 2> nodes;
  long long physical;  ///< physical tag, 0 for a line in no physical group
  int line;
};

struct MshModel {
  std::vector<std::string> part_names;
  std::map<long long, int> line_parts;  ///< physical line tag -> part id
  std::vector<NodeRecord> nodes;        ///< in the order the mesh numbers its vertices
  std::unordered_map<long long, std::size_t> node_index;  ///< node id -> index in nodes
  std::vector<QuadRecord> quads;
  std::vector<LineRecord> lines;

  /// Adds node `id` at (x, y, z) read from the current line of `in`: fails if z != 0 or the id
  /// was read before.
  void add_node(const MshLines& in, long long id, std::string_view x, std::string_view y,
                std::string_view z);
  /// Renumbers the nodes in ascending id order.
  void sort_nodes_by_id();
};

/// Reads a $PhysicalNames section (the same in both versions) after its header line: every
/// dimension-1 name becomes a boundary part, in file order; one name used by several tags is
/// one part.
void read_physical_names(MshLines& in, MshModel& model);

/// Nodes per element of a supported element type: 2 for a line, 4 for a quadrangle, 1 for a
/// point; any other type fails at the current line.
int nodes_per_element(const MshLines& in, long long type);

/// The coarse mesh of the collected records: the nodes of quadrilaterals, numbered in the
/// order of `model.nodes`, the quadrilaterals as cells in file order, and the lines with a
/// named physical line tag as boundary edges of that part (lines with physical tag 0 are
/// skipped). Calls build_topology(); failures name the file line of the offending element.
CoarseMesh to_coarse_mesh(const MshModel& model, const MshLines& in);

}  // namespace quilt::msh
