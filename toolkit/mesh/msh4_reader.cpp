#include "mesh/msh4_reader.hpp"

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace quilt::msh {
namespace {

const std::array<const char*, 4> kEntityKind = {"point", "curve", "surface", "volume"};

// The integer lines of $Nodes and $Elements, with the field names of the Gmsh manual.
using Fields = std::array<const char*, 4>;
constexpr Fields kNodesHeader = {"numEntityBlocks", "numNodes", "minNodeTag", "maxNodeTag"};
constexpr Fields kNodeBlock = {"entityDim", "entityTag", "parametric", "numNodesInBlock"};
constexpr Fields kElementsHeader = {"numEntityBlocks", "numElements", "minElementTag",
                                    "maxElementTag"};
constexpr Fields kElementBlock = {"entityDim", "entityTag", "elementType", "numElementsInBlock"};

/// A point, curve, surface or volume of $Entities.
struct Entity {
  std::vector<long long> physicals;
  int line;
};

/// A line element whose physical tags come from its curve once $Entities is known.
struct CurveLine {
  long long curve;
  int block_line;
  LineRecord record;
};

/// The dimension of the entities that carry elements of a supported type.
int element_dim(long long type) {
  return type == kLine ? 1 : type == kQuadrangle ? 2 : 0;
}

class Msh4Reader {
 public:
  explicit Msh4Reader(MshLines& in) : in_(in) {}

  MshModel read() {
    const auto seen = read_sections(in_, {"MeshFormat"},
                                    [&](const std::string& name) { return read_section(name); });
    require_section(in_, seen, "Entities");
    require_section(in_, seen, "Nodes");
    require_section(in_, seen, "Elements");
    model_.sort_nodes_by_id();
    attach_physical_tags();
    return std::move(model_);
  }

 private:
  bool read_section(const std::string& name) {
    if (name == "PhysicalNames") {
      read_physical_names(in_, model_);
    } else if (name == "Entities") {
      read_entities();
    } else if (name == "Nodes") {
      read_blocks("Nodes", kNodesHeader, "nodes", [&] { return read_node_block(); });
    } else if (name == "Elements") {
      read_blocks("Elements", kElementsHeader, "elements", [&] { return read_element_block(); });
    } else {
      return false;
    }
    return true;
  }

  /// The four integers of the current line, laid out as `fields`.
  std::array<long long, 4> read_fields(const std::string& section, const Fields& fields) {
    const auto tok = in_.tokens();
    if (tok.size() != 4)
      in_.fail("expected '" + std::string(fields[0]) + " " + fields[1] + " " + fields[2] + " " +
               fields[3] + "' in $" + section + ", found '" + shorten(in_.trimmed()) + "'");
    std::array<long long, 4> values;
    for (int k = 0; k < 4; ++k) values[k] = in_.to_int(tok[k], fields[k]);
    return values;
  }

  /// `value` as the count `what` of the current line: fails if negative.
  long long count(long long value, const char* what) const {
    if (value < 0) in_.fail(std::string("negative ") + what + " " + std::to_string(value));
    return value;
  }

  /// $Nodes or $Elements: a header "numEntityBlocks num... min... max..." and entity blocks;
  /// read_block() reads the block starting at the current line and returns its entry count.
  template <typename ReadBlock>
  void read_blocks(const std::string& section, const Fields& header, const char* what,
                   ReadBlock read_block) {
    if (!in_.next()) in_.fail("unexpected end of file in $" + section + " (header missing)");
    const int header_line = in_.line();
    const auto values = read_fields(section, header);
    const long long blocks = count(values[0], header[0]);
    const long long total = count(values[1], header[1]);
    long long found = 0;
    for (long long b = 0; b < blocks; ++b) {
      in_.next_entry(section, b, blocks, "entity blocks");
      found += read_block();
    }
    if (found != total)
      in_.fail_at(header_line, "$" + section + " announces " + std::to_string(total) + " " + what +
                                   ", its entity blocks hold " + std::to_string(found));
    in_.expect_end(section);
  }

  void read_entities() {
    if (!in_.next()) in_.fail("unexpected end of file in $Entities (header missing)");
    const auto tok = in_.tokens();
    if (tok.size() != 4)
      in_.fail("expected 'numPoints numCurves numSurfaces numVolumes' in $Entities");
    std::array<long long, 4> counts;
    for (int dim = 0; dim < 4; ++dim)
      counts[dim] = count(in_.to_int(tok[dim], "an entity count"), "entity count");
    for (int dim = 0; dim < 4; ++dim)
      for (long long i = 0; i < counts[dim]; ++i) {
        in_.next_entry("Entities", i, counts[dim], std::string(kEntityKind[dim]) + "s");
        read_entity(dim);
      }
    in_.expect_end("Entities");
  }

  /// "tag x y z numPhysicalTags physicalTag..." for a point; "tag minX minY minZ maxX maxY maxZ
  /// numPhysicalTags physicalTag... numBounding... boundingTag..." otherwise.
  void read_entity(int dim) {
    const auto tok = in_.tokens();
    const std::size_t physical_at = dim == 0 ? 4 : 7;  // after the tag and 3 or 6 coordinates
    const std::string kind = kEntityKind[dim];
    if (tok.size() <= physical_at)
      in_.fail("expected 'tag " +
               std::string(dim == 0 ? "x y z" : "minX minY minZ maxX maxY maxZ") +
               " numPhysicalTags physicalTag...' for a " + kind + " in $Entities");
    const long long tag = in_.to_int(tok[0], "an entity tag");
    for (std::size_t k = 1; k < physical_at; ++k) in_.to_double(tok[k], "a coordinate");
    Entity entity{{}, in_.line()};
    std::size_t at = physical_at;
    const long long physicals = list_length(tok, at, "numPhysicalTags");
    for (long long k = 0; k < physicals; ++k)
      entity.physicals.push_back(in_.to_int(tok[at++], "a physical tag"));
    if (dim > 0) {
      const long long bounding = list_length(tok, at, "the number of bounding entities");
      for (long long k = 0; k < bounding; ++k) in_.to_int(tok[at++], "a bounding entity tag");
    }
    if (at != tok.size())
      in_.fail("the " + kind + " has " + std::to_string(tok.size() - at) + " fields too many");
    if (!entities_.emplace(std::pair(dim, tag), entity).second)
      in_.fail(kind + " " + std::to_string(tag) + " appears twice in $Entities");
  }

  /// Reads the length of a list at tok[at], advances `at` to the list and checks that the
  /// line holds it.
  long long list_length(const std::vector<std::string_view>& tok, std::size_t& at,
                        const char* what) {
    if (at >= tok.size()) in_.fail(std::string("expected ") + what + ", found the end of the line");
    const long long length = count(in_.to_int(tok[at], what), what);
    ++at;
    if (tok.size() - at < static_cast<std::size_t>(length))
      in_.fail(std::string(what) + " is " + std::to_string(length) + ", but the line ends after " +
               std::to_string(tok.size() - at) + " more fields");
    return length;
  }

  /// "entityDim entityTag parametric numNodesInBlock", the node tags, then "x y z" per node.
  long long read_node_block() {
    const auto block = read_fields("Nodes", kNodeBlock);
    if (block[2] != 0)
      in_.fail("parametric node coordinates (parametric = " + std::to_string(block[2]) +
               ") are not supported; save the mesh without them (Mesh.SaveParametric = 0)");
    const long long n = count(block[3], kNodeBlock[3]);
    std::vector<long long> ids;  // grown as read: a count is no promise of memory
    for (long long i = 0; i < n; ++i) {
      in_.next_entry("Nodes", i, n, "node tags of the entity block");
      const auto tok = in_.tokens();
      if (tok.size() != 1) in_.fail("expected one node tag (nodeTag) in $Nodes");
      ids.push_back(in_.to_int(tok[0], "a node tag"));
    }
    for (long long i = 0; i < n; ++i) {
      in_.next_entry("Nodes", i, n, "node coordinates of the entity block");
      const auto tok = in_.tokens();
      if (tok.size() != 3) in_.fail("expected 'x y z' of node " + std::to_string(ids[i]));
      model_.add_node(in_, ids[i], tok[0], tok[1], tok[2]);
    }
    return n;
  }

  /// "entityDim entityTag elementType numElementsInBlock", then "elementTag nodeTag..." each.
  long long read_element_block() {
    const int block_line = in_.line();
    const auto block = read_fields("Elements", kElementBlock);
    const long long type = block[2];
    const int nnodes = nodes_per_element(in_, type);
    if (block[0] != element_dim(type))
      in_.fail("element type " + std::to_string(type) + " in a block of dimension " +
               std::to_string(block[0]) + "; expected dimension " +
               std::to_string(element_dim(type)));
    const long long n = count(block[3], kElementBlock[3]);
    for (long long i = 0; i < n; ++i) {
      in_.next_entry("Elements", i, n, "elements of the entity block");
      const auto tok = in_.tokens();
      if (tok.size() != 1 + static_cast<std::size_t>(nnodes))
        in_.fail("element of type " + std::to_string(type) + " should have " +
                 std::to_string(1 + nnodes) + " fields (elementTag nodeTag...), found " +
                 std::to_string(tok.size()));
      in_.to_int(tok[0], "an element tag");
      std::array<long long, 4> nodes{};
      for (int k = 0; k < nnodes; ++k) nodes[k] = in_.to_int(tok[1 + k], "a node tag");
      if (type == kQuadrangle) model_.quads.push_back({nodes, in_.line()});
      if (type == kLine)
        curve_lines_.push_back({block[1], block_line, {{nodes[0], nodes[1]}, 0, in_.line()}});
    }
    return n;
  }

  /// Gives every line element the physical tags of its curve (one record per tag).
  void attach_physical_tags() {
    for (const CurveLine& l : curve_lines_) {
      const auto it = entities_.find(std::pair(1, l.curve));
      if (it == entities_.end())
        in_.fail_at(l.block_line, "element block of curve " + std::to_string(l.curve) +
                                      ", which is not in $Entities");
      const Entity& curve = it->second;
      if (curve.physicals.empty()) model_.lines.push_back(l.record);  // in no physical group
      for (long long tag : curve.physicals) {
        if (!model_.line_parts.count(tag))
          in_.fail_at(curve.line, "curve " + std::to_string(l.curve) + " has physical tag " +
                                      std::to_string(tag) +
                                      ", which is not a named physical line group "
                                      "($PhysicalNames, dimension 1)");
        LineRecord record = l.record;
        record.physical = tag;
        model_.lines.push_back(record);
      }
    }
  }

  MshLines& in_;
  MshModel model_;
  std::map<std::pair<int, long long>, Entity> entities_;
  std::vector<CurveLine> curve_lines_;
};

}  // namespace

MshModel read_msh4_sections(MshLines& in) {
  return Msh4Reader(in).read();
}

}  // namespace quilt::msh
