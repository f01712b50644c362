#include "mesh/msh_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace quilt::msh {
namespace {

std::string element_name(long long type) {
  switch (type) {
    case 1:
      return "line";
    case 2:
      return "triangle";
    case 3:
      return "quadrangle";
    case 4:
      return "tetrahedron";
    case 5:
      return "hexahedron";
    case 6:
      return "prism";
    case 7:
      return "pyramid";
    case 8:
      return "second-order line";
    case 9:
      return "second-order triangle";
    case 10:
      return "second-order quadrangle";
    case 11:
      return "second-order tetrahedron";
    case 15:
      return "point";
    case 16:
      return "serendipity quadrangle";
    default:
      return "unknown";
  }
}

/// The part of a physical line tag; fails at `line` for a tag that names no line group.
int part_of(const MshModel& model, const MshLines& in, long long physical, int line) {
  const auto part = model.line_parts.find(physical);
  if (part == model.line_parts.end())
    in.fail_at(line, "line element has physical tag " + std::to_string(physical) +
                         ", which is not a named physical line group ($PhysicalNames, "
                         "dimension 1)");
  return part->second;
}

std::size_t node(const MshModel& model, const MshLines& in, long long id, int line) {
  const auto it = model.node_index.find(id);
  if (it == model.node_index.end())
    in.fail_at(line, "element refers to node " + std::to_string(id) + ", which is not in $Nodes");
  return it->second;
}

/// Marks the nodes of quadrilaterals and numbers them densely in the order of model.nodes.
std::vector<int> number_vertices(const MshModel& model, const MshLines& in, CoarseMesh& mesh) {
  std::vector<int> vertex_of(model.nodes.size(), -1);
  for (const QuadRecord& q : model.quads)
    for (long long id : q.nodes) vertex_of[node(model, in, id, q.line)] = 0;
  for (std::size_t i = 0; i < model.nodes.size(); ++i)
    if (vertex_of[i] == 0) {
      vertex_of[i] = mesh.num_vertices();
      mesh.vertices.push_back({model.nodes[i].x, model.nodes[i].y});
    }
  return vertex_of;
}

std::array<int, 3> boundary_edge(const MshModel& model, const MshLines& in, const LineRecord& l,
                                 const std::vector<int>& vertex_of) {
  std::array<int, 3> edge{0, 0, part_of(model, in, l.physical, l.line)};
  for (int k = 0; k < 2; ++k) {
    const std::size_t n = node(model, in, l.nodes[k], l.line);
    if (vertex_of[n] < 0) {
      char where[64];
      std::snprintf(where, sizeof where, "(%.9g, %.9g)", model.nodes[n].x, model.nodes[n].y);
      in.fail_at(l.line, "line element uses node " + std::to_string(l.nodes[k]) + " at " + where +
                             ", which belongs to no quadrilateral (dangling boundary node)");
    }
    edge[k] = vertex_of[n];
  }
  return edge;
}

}  // namespace

void MshModel::add_node(const MshLines& in, long long id, std::string_view x, std::string_view y,
                        std::string_view z) {
  NodeRecord record{id, in.to_double(x, "the x coordinate"), in.to_double(y, "the y coordinate")};
  if (std::abs(in.to_double(z, "the z coordinate")) >= 1e-12)
    in.fail("node " + std::to_string(id) + " has z = " + std::string(z) +
            "; coarse meshes are planar (z = 0)");
  if (!node_index.emplace(id, nodes.size()).second)
    in.fail("node id " + std::to_string(id) + " appears twice");
  nodes.push_back(record);
}

void MshModel::sort_nodes_by_id() {
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeRecord& a, const NodeRecord& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index[nodes[i].id] = i;
}

void read_physical_names(MshLines& in, MshModel& model) {
  const long long count = in.read_count("PhysicalNames");
  for (long long i = 0; i < count; ++i) {
    in.next_entry("PhysicalNames", i, count, "names");
    const auto tok = in.tokens();
    if (tok.size() < 3) in.fail("expected 'dimension tag \"name\"' in $PhysicalNames");
    const long long dim = in.to_int(tok[0], "the physical dimension");
    const long long tag = in.to_int(tok[1], "the physical tag");
    const std::string_view rest = std::string_view(in.text()).substr(
        static_cast<std::size_t>(tok[2].data() - in.text().data()));
    const std::string_view quoted = rest.substr(0, rest.find_last_not_of(" \t") + 1);
    if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
      in.fail("expected a quoted physical name, found '" + shorten(quoted) + "'");
    const std::string name(quoted.substr(1, quoted.size() - 2));
    if (dim != 1) continue;  // surface groups and points carry no boundary part
    if (name.empty()) in.fail("empty physical line name");
    auto& names = model.part_names;
    const int part = static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
    if (part == static_cast<int>(names.size())) names.push_back(name);
    if (!model.line_parts.emplace(tag, part).second)
      in.fail("physical line tag " + std::to_string(tag) + " is named twice");
  }
  in.expect_end("PhysicalNames");
}

int nodes_per_element(const MshLines& in, long long type) {
  if (type == kLine) return 2;
  if (type == kQuadrangle) return 4;
  if (type == kPoint) return 1;
  in.fail("element type " + std::to_string(type) + " (" + element_name(type) +
          ") is not supported; Quilt needs quadrilateral macros (type 3) bounded by lines "
          "(type 1)");
}

CoarseMesh to_coarse_mesh(const MshModel& model, const MshLines& in) {
  if (model.quads.empty())
    in.fail("no quadrilateral elements (type 3); Quilt needs quadrilateral macros");
  CoarseMesh mesh;
  mesh.source = in.path();
  mesh.part_names = model.part_names;
  const std::vector<int> vertex_of = number_vertices(model, in, mesh);
  for (const QuadRecord& q : model.quads) {
    std::array<int, 4> cell;
    for (int k = 0; k < 4; ++k) cell[k] = vertex_of[node(model, in, q.nodes[k], q.line)];
    mesh.cells.push_back(cell);
    mesh.cell_lines.push_back(q.line);
  }
  std::vector<std::array<int, 3>> boundary;
  for (const LineRecord& l : model.lines) {
    if (l.physical == 0) continue;  // a line in no physical group names no boundary part
    boundary.push_back(boundary_edge(model, in, l, vertex_of));
    mesh.boundary_lines.push_back(l.line);
  }
  mesh.build_topology(boundary);
  return mesh;
}

}  // namespace quilt::msh
