#include "mesh/msh_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

// Gmsh element type numbers (MSH 2.2 reference manual, "MSH file format version 2").
constexpr int kLine = 1;
constexpr int kTriangle = 2;
constexpr int kQuadrangle = 3;
constexpr int kPoint = 15;

std::string element_name(int type) {
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

struct NodeRecord {
  double x, y;
};

struct QuadRecord {
  std::array<long long, 4> nodes;
  int line;
};

struct LineRecord {
  std::array<long long, 2> nodes;
  long long physical;
  int line;
};

/// One pass over the file, line by line; every failure names the file and the line.
class MshParser {
 public:
  MshParser(std::string path, std::istream& in) : path_(std::move(path)), in_(in) {}

  CoarseMesh parse() {
    bool first = true;
    while (next()) {
      const std::string header(trimmed());
      if (first && header != "$MeshFormat")
        fail("expected $MeshFormat, found '" + shorten(header) +
             "' (not a Gmsh MSH 2.2 file; write one with gmsh -format msh22)");
      first = false;
      if (header.empty() || header[0] != '$')
        fail("expected a section header ($Name), found '" + shorten(header) + "'");
      const std::string name = header.substr(1);
      if (!seen_.emplace(name, line_no_).second) fail("section " + header + " appears twice");
      if (name == "MeshFormat") {
        read_format();
      } else if (name == "PhysicalNames") {
        read_physical_names();
      } else if (name == "Nodes") {
        read_nodes();
      } else if (name == "Elements") {
        read_elements();
      } else {
        skip_section(name);
      }
    }
    if (first) fail("empty file (expected $MeshFormat)");
    if (!seen_.count("Nodes")) fail("no $Nodes section");
    if (!seen_.count("Elements")) fail("no $Elements section");
    return assemble();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  [[noreturn]] void fail_at(int line, const std::string& what) const {
    throw MeshError(path_ + ":" + std::to_string(line) + ": " + what);
  }

  static std::string shorten(std::string_view text) {
    return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
  }

  /// Advances to the next non-blank line; false at end of file.
  bool next() {
    while (std::getline(in_, text_)) {
      ++line_no_;
      if (!text_.empty() && text_.back() == '\r') text_.pop_back();
      if (!trimmed().empty()) return true;
    }
    return false;
  }

  std::string_view trimmed() const {
    const auto first = text_.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    const auto last = text_.find_last_not_of(" \t");
    return std::string_view(text_).substr(first, last - first + 1);
  }

  std::vector<std::string_view> tokens() const {
    std::vector<std::string_view> result;
    const std::string_view s(text_);
    std::size_t pos = 0;
    while (true) {
      pos = s.find_first_not_of(" \t", pos);
      if (pos == std::string_view::npos) break;
      const std::size_t end = std::min(s.find_first_of(" \t", pos), s.size());
      result.push_back(s.substr(pos, end - pos));
      pos = end;
    }
    return result;
  }

  /// Next line of `section`, which promised `expected` entries and has `read` so far.
  void next_entry(const std::string& section, long long read, long long expected,
                  const char* what) {
    if (!next())
      fail("unexpected end of file in $" + section + " (read " + std::to_string(read) + " of " +
           std::to_string(expected) + " " + what + ")");
    if (trimmed().front() == '$')
      fail("$" + section + " ends after " + std::to_string(read) + " of " +
           std::to_string(expected) + " " + what + " (found '" + shorten(trimmed()) + "')");
  }

  void expect_end(const std::string& section) {
    const std::string end = "$End" + section;
    if (!next()) fail("unexpected end of file: " + end + " missing");
    if (trimmed() != end)
      fail("expected " + end + ", found '" + shorten(trimmed()) +
           "' (more entries than the section's count?)");
  }

  long long to_int(std::string_view token, const char* what) const {
    long long value = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size())
      fail(std::string("expected ") + what + " (an integer), found '" + shorten(token) + "'");
    return value;
  }

  double to_double(std::string_view token, const char* what) const {
    std::string_view digits = token;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value))
      fail(std::string("expected ") + what + " (a number), found '" + shorten(token) + "'");
    return value;
  }

  long long read_count(const std::string& section) {
    if (!next()) fail("unexpected end of file in $" + section + " (count missing)");
    const auto tok = tokens();
    if (tok.size() != 1) fail("expected the number of entries of $" + section);
    const long long count = to_int(tok[0], "the number of entries");
    if (count < 0) fail("negative entry count in $" + section);
    return count;
  }

  void read_format() {
    if (!next()) fail("unexpected end of file in $MeshFormat");
    const auto tok = tokens();
    if (tok.size() != 3) fail("expected 'version file-type data-size' in $MeshFormat");
    const double version = to_double(tok[0], "the MSH version");
    if (std::abs(version - 2.2) > 1e-9)
      fail("MSH version " + std::string(tok[0]) +
           " is not supported; Quilt reads MSH 2.2 ASCII (gmsh -format msh22)");
    const long long file_type = to_int(tok[1], "the file type");
    if (file_type == 1)
      fail("binary MSH files are not supported; write ASCII (gmsh -format msh22, without -bin)");
    if (file_type != 0) fail("unknown MSH file type " + std::string(tok[1]) + " (0 = ASCII)");
    to_int(tok[2], "the data size");
    expect_end("MeshFormat");
  }

  void read_physical_names() {
    const long long count = read_count("PhysicalNames");
    for (long long i = 0; i < count; ++i) {
      next_entry("PhysicalNames", i, count, "names");
      const auto tok = tokens();
      if (tok.size() < 3) fail("expected 'dimension tag \"name\"' in $PhysicalNames");
      const long long dim = to_int(tok[0], "the physical dimension");
      const long long tag = to_int(tok[1], "the physical tag");
      const std::string_view rest =
          std::string_view(text_).substr(static_cast<std::size_t>(tok[2].data() - text_.data()));
      const std::string_view quoted = rest.substr(0, rest.find_last_not_of(" \t") + 1);
      if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
        fail("expected a quoted physical name, found '" + shorten(quoted) + "'");
      const std::string name(quoted.substr(1, quoted.size() - 2));
      if (dim != 1) continue;  // surface groups and points carry no boundary part
      if (name.empty()) fail("empty physical line name");
      int part = -1;
      for (int p = 0; p < static_cast<int>(part_names_.size()); ++p)
        if (part_names_[p] == name) part = p;
      if (part < 0) {
        part = static_cast<int>(part_names_.size());
        part_names_.push_back(name);
      }
      if (!line_parts_.emplace(tag, part).second)
        fail("physical line tag " + std::to_string(tag) + " is named twice");
    }
    expect_end("PhysicalNames");
  }

  void read_nodes() {
    const long long count = read_count("Nodes");
    for (long long i = 0; i < count; ++i) {
      next_entry("Nodes", i, count, "nodes");
      const auto tok = tokens();
      if (tok.size() != 4) fail("expected 'id x y z' in $Nodes");
      const long long id = to_int(tok[0], "a node id");
      const double x = to_double(tok[1], "the x coordinate");
      const double y = to_double(tok[2], "the y coordinate");
      const double z = to_double(tok[3], "the z coordinate");
      if (std::abs(z) >= 1e-12)
        fail("node " + std::to_string(id) + " has z = " + std::string(tok[3]) +
             "; coarse meshes are planar (z = 0)");
      if (!node_index_.emplace(id, nodes_.size()).second)
        fail("node id " + std::to_string(id) + " appears twice");
      nodes_.push_back({x, y});
    }
    expect_end("Nodes");
  }

  void read_elements() {
    const long long count = read_count("Elements");
    for (long long i = 0; i < count; ++i) {
      next_entry("Elements", i, count, "elements");
      const auto tok = tokens();
      if (tok.size() < 3) fail("expected 'id type tag-count tags... nodes...' in $Elements");
      to_int(tok[0], "an element id");
      const long long type = to_int(tok[1], "the element type");
      const long long ntags = to_int(tok[2], "the tag count");
      int nnodes = 0;
      if (type == kLine) {
        nnodes = 2;
      } else if (type == kQuadrangle) {
        nnodes = 4;
      } else if (type == kPoint) {
        nnodes = 1;
      } else {
        fail("element type " + std::to_string(type) + " (" + element_name(static_cast<int>(type)) +
             ") is not supported; Quilt needs quadrilateral macros (type 3) bounded by lines "
             "(type 1)");
      }
      if (ntags < 0 || tok.size() != 3 + static_cast<std::size_t>(ntags) + nnodes)
        fail("element of type " + std::to_string(type) + " with " + std::to_string(ntags) +
             " tags should have " + std::to_string(3 + std::max(ntags, 0LL) + nnodes) +
             " fields, found " + std::to_string(tok.size()));
      const long long physical = ntags > 0 ? to_int(tok[3], "the physical tag") : 0;
      const std::size_t first_node = 3 + static_cast<std::size_t>(ntags);
      if (type == kQuadrangle) {
        QuadRecord q{{}, line_no_};
        for (int k = 0; k < 4; ++k) q.nodes[k] = to_int(tok[first_node + k], "a node id");
        quads_.push_back(q);
      } else if (type == kLine) {
        LineRecord l{{}, physical, line_no_};
        for (int k = 0; k < 2; ++k) l.nodes[k] = to_int(tok[first_node + k], "a node id");
        lines_.push_back(l);
      } else {
        to_int(tok[first_node], "a node id");
      }
    }
    expect_end("Elements");
  }

  void skip_section(const std::string& name) {
    const int start = line_no_;
    const std::string end = "$End" + name;
    while (next())
      if (trimmed() == end) return;
    fail_at(start, "section $" + name + " is not closed (" + end + " missing)");
  }

  std::size_t node(long long id, int line) const {
    const auto it = node_index_.find(id);
    if (it == node_index_.end())
      fail_at(line, "element refers to node " + std::to_string(id) + ", which is not in $Nodes");
    return it->second;
  }

  CoarseMesh assemble() const {
    if (quads_.empty())
      fail("no quadrilateral elements (type 3); Quilt needs quadrilateral macros");
    // Keep the nodes of quadrilaterals only, renumbered densely in file order.
    std::vector<int> vertex_of(nodes_.size(), -1);
    for (const QuadRecord& q : quads_)
      for (long long id : q.nodes) vertex_of[node(id, q.line)] = 0;
    CoarseMesh mesh;
    mesh.source = path_;
    mesh.part_names = part_names_;
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (vertex_of[i] == 0) {
        vertex_of[i] = mesh.num_vertices();
        mesh.vertices.push_back({nodes_[i].x, nodes_[i].y});
      }
    for (const QuadRecord& q : quads_) {
      std::array<int, 4> cell;
      for (int k = 0; k < 4; ++k) cell[k] = vertex_of[node(q.nodes[k], q.line)];
      mesh.cells.push_back(cell);
      mesh.cell_lines.push_back(q.line);
    }
    std::vector<std::array<int, 3>> boundary;
    for (const LineRecord& l : lines_) {
      if (l.physical == 0) continue;  // a line in no physical group names no boundary part
      const auto part = line_parts_.find(l.physical);
      if (part == line_parts_.end())
        fail_at(l.line, "line element has physical tag " + std::to_string(l.physical) +
                            ", which is not a named physical line group ($PhysicalNames, "
                            "dimension 1)");
      std::array<int, 3> edge{0, 0, part->second};
      for (int k = 0; k < 2; ++k) {
        const std::size_t n = node(l.nodes[k], l.line);
        if (vertex_of[n] < 0) {
          char where[64];
          std::snprintf(where, sizeof where, "(%.9g, %.9g)", nodes_[n].x, nodes_[n].y);
          fail_at(l.line, "line element uses node " + std::to_string(l.nodes[k]) + " at " + where +
                              ", which belongs to no quadrilateral (dangling boundary node)");
        }
        edge[k] = vertex_of[n];
      }
      boundary.push_back(edge);
      mesh.boundary_lines.push_back(l.line);
    }
    mesh.build_topology(boundary);
    return mesh;
  }

  std::string path_;
  std::istream& in_;
  std::string text_;
  int line_no_ = 0;
  std::map<std::string, int> seen_;
  std::vector<std::string> part_names_;
  std::map<long long, int> line_parts_;  // physical line tag -> part id
  std::vector<NodeRecord> nodes_;
  std::unordered_map<long long, std::size_t> node_index_;
  std::vector<QuadRecord> quads_;
  std::vector<LineRecord> lines_;
};

}  // namespace

CoarseMesh read_msh(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MeshError(path + ": cannot open the mesh file");
  return MshParser(path, in).parse();
}

}  // namespace quilt
