#include "mesh/msh2_reader.hpp"

#include <algorithm>
#include <string>

namespace quilt::msh {
namespace {

void read_nodes(MshLines& in, MshModel& model) {
  const long long count = in.read_count("Nodes");
  for (long long i = 0; i < count; ++i) {
    in.next_entry("Nodes", i, count, "nodes");
    const auto tok = in.tokens();
    if (tok.size() != 4) in.fail("expected 'id x y z' in $Nodes");
    model.add_node(in, in.to_int(tok[0], "a node id"), tok[1], tok[2], tok[3]);
  }
  in.expect_end("Nodes");
}

/// One element line: "id type tag-count tags... nodes...".
void read_element(MshLines& in, MshModel& model) {
  const auto tok = in.tokens();
  if (tok.size() < 3) in.fail("expected 'id type tag-count tags... nodes...' in $Elements");
  in.to_int(tok[0], "an element id");
  const long long type = in.to_int(tok[1], "the element type");
  const long long ntags = in.to_int(tok[2], "the tag count");
  const int nnodes = nodes_per_element(in, type);
  // Unsigned: a tag count near LLONG_MAX must not overflow (fuzz/corpus/msh).
  const std::size_t fields = 3 + static_cast<std::size_t>(std::max(ntags, 0LL)) + nnodes;
  if (ntags < 0 || tok.size() != fields)
    in.fail("element of type " + std::to_string(type) + " with " + std::to_string(ntags) +
            " tags should have " + std::to_string(fields) + " fields, found " +
            std::to_string(tok.size()));
  const long long physical = ntags > 0 ? in.to_int(tok[3], "the physical tag") : 0;
  const std::size_t first_node = 3 + static_cast<std::size_t>(ntags);
  if (type == kQuadrangle) {
    QuadRecord q{{}, in.line()};
    for (int k = 0; k < 4; ++k) q.nodes[k] = in.to_int(tok[first_node + k], "a node id");
    model.quads.push_back(q);
  } else if (type == kLine) {
    LineRecord l{{}, physical, in.line()};
    for (int k = 0; k < 2; ++k) l.nodes[k] = in.to_int(tok[first_node + k], "a node id");
    model.lines.push_back(l);
  } else {
    in.to_int(tok[first_node], "a node id");
  }
}

void read_elements(MshLines& in, MshModel& model) {
  const long long count = in.read_count("Elements");
  for (long long i = 0; i < count; ++i) {
    in.next_entry("Elements", i, count, "elements");
    read_element(in, model);
  }
  in.expect_end("Elements");
}

}  // namespace

MshModel read_msh2_sections(MshLines& in) {
  MshModel model;
  const auto seen = read_sections(in, {"MeshFormat"}, [&](const std::string& name) {
    if (name == "PhysicalNames") {
      read_physical_names(in, model);
    } else if (name == "Nodes") {
      read_nodes(in, model);
    } else if (name == "Elements") {
      read_elements(in, model);
    } else {
      return false;
    }
    return true;
  });
  require_section(in, seen, "Nodes");
  require_section(in, seen, "Elements");
  return model;
}

}  // namespace quilt::msh
