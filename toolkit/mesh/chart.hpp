#pragma once
// Boundary charts (design.md §3): the true shape of a boundary part. Refined boundary nodes
// are placed on the chart; interior nodes of a macro with a curved edge follow by transfinite
// interpolation (macro_geometry.hpp).

#include <map>
#include <string>

#include "mesh/coarse_mesh.hpp"

namespace quilt {

struct Chart {
  enum class Kind { line, circle };
  Kind kind = Kind::line;
  Point2 centre;      ///< circle only
  double radius = 0;  ///< circle only

  /// Point at parameter t in [0,1] between a (t=0) and b (t=1) along the chart: the straight
  /// segment for `line`, the shorter arc at constant angular speed for `circle`. Callers pass
  /// a and b in canonical edge order so shared nodes agree bit for bit.
  Point2 interpolate(Point2 a, Point2 b, double t) const;

  /// Parses "line" or "circle cx cy r"; throws MeshError naming the text otherwise.
  static Chart parse(const std::string& spec);
};

/// Charts bound to boundary parts, by part id. Parts without a chart are straight.
using ChartMap = std::map<int, Chart>;

/// Binds "part spec" strings (e.g. "cylinder circle 0.2 0.2 0.05") to the mesh's part ids.
/// Throws MeshError if a part name is unknown to the mesh or a spec is malformed.
ChartMap bind_charts(const CoarseMesh& mesh, const std::vector<std::string>& bindings);

}  // namespace quilt
