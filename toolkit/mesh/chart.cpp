#include "mesh/chart.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numbers>
#include <sstream>
#include <vector>

#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

std::vector<std::string> split(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool parse_number(const std::string& word, double& value) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && end == word.data() + word.size() && std::isfinite(value);
}

// Charted vertices farther than this from the circle, relative to the shorter of the radius and
// the vertex's shortest edge on the part, mean the chart is bound to the wrong part or has the
// wrong centre or radius; coordinates printed with ~6 significant digits still pass. Relative
// to the radius alone, a huge circle through the ends of a straight part passed and bent it.
constexpr double kOnCircleTol = 1e-4;

}  // namespace

Point2 Chart::interpolate(Point2 a, Point2 b, double t) const {
  if (kind == Kind::line) return {(1.0 - t) * a.x + t * b.x, (1.0 - t) * a.y + t * b.y};
  // Constant angular speed along the shorter arc; the radius is the chart's, so every
  // refined node lies on the circle even where a or b carry rounding from the file.
  const double from = std::atan2(a.y - centre.y, a.x - centre.x);
  const double to = std::atan2(b.y - centre.y, b.x - centre.x);
  double sweep = to - from;
  if (sweep > std::numbers::pi) sweep -= 2.0 * std::numbers::pi;
  if (sweep <= -std::numbers::pi) sweep += 2.0 * std::numbers::pi;
  const double angle = from + t * sweep;
  return {centre.x + radius * std::cos(angle), centre.y + radius * std::sin(angle)};
}

Chart Chart::parse(const std::string& spec) {
  const std::vector<std::string> words = split(spec);
  Chart chart;
  if (words.size() == 1 && words[0] == "line") return chart;
  if (words.size() == 4 && words[0] == "circle") {
    double v[3];
    bool ok = true;
    for (int i = 0; i < 3; ++i) ok = ok && parse_number(words[i + 1], v[i]);
    if (ok && v[2] > 0.0) {
      chart.kind = Kind::circle;
      chart.centre = {v[0], v[1]};
      chart.radius = v[2];
      return chart;
    }
  }
  throw MeshError("chart '" + spec + "': expected 'line' or 'circle cx cy r' with r > 0");
}

ChartMap bind_charts(const CoarseMesh& mesh, const std::vector<std::string>& bindings) {
  ChartMap charts;
  for (const std::string& binding : bindings) {
    const auto start = binding.find_first_not_of(" \t");
    if (start == std::string::npos)
      throw MeshError("empty chart binding; expected 'part line' or 'part circle cx cy r'");
    const auto stop = std::min(binding.find_first_of(" \t", start), binding.size());
    const std::string name = binding.substr(start, stop - start);
    const int part = mesh.part_id(name);
    if (part < 0) {
      std::string known;
      for (const std::string& p : mesh.part_names) known += (known.empty() ? "" : ", ") + p;
      throw MeshError("chart binding '" + binding + "': the mesh " +
                      (mesh.source.empty() ? std::string("<coarse mesh>") : mesh.source) +
                      " has no boundary part '" + name + "' (its parts: " + known + ")");
    }
    Chart chart;
    try {
      chart = Chart::parse(binding.substr(stop));
    } catch (const MeshError& e) {
      throw MeshError("chart binding '" + binding + "': " + e.what());
    }
    if (!charts.emplace(part, chart).second)
      throw MeshError("chart binding '" + binding + "': part '" + name + "' is bound twice");
    if (chart.kind != Chart::Kind::circle) continue;
    std::map<int, double> scale;  // vertex on the part -> min(radius, its shortest edge there)
    for (int e = 0; e < mesh.num_edges(); ++e) {
      if (mesh.edge_part[e] != part) continue;
      const Point2 a = mesh.vertices[mesh.edges[e][0]], b = mesh.vertices[mesh.edges[e][1]];
      const double length = std::hypot(b.x - a.x, b.y - a.y);
      for (int v : mesh.edges[e]) {
        const auto [it, fresh] = scale.emplace(v, std::min(chart.radius, length));
        if (!fresh) it->second = std::min(it->second, length);
      }
    }
    for (const auto& [v, h] : scale) {
      const Point2 p = mesh.vertices[v];
      const double r = std::hypot(p.x - chart.centre.x, p.y - chart.centre.y);
      if (std::abs(r - chart.radius) > kOnCircleTol * h) {
        std::ostringstream msg;
        msg << "chart binding '" << binding << "': vertex " << v << " (" << p.x << ", " << p.y
            << ") of part '" << name << "' in " << mesh.source << " is at distance " << r
            << " from the centre, not on the circle of radius " << chart.radius;
        throw MeshError(msg.str());
      }
    }
  }
  return charts;
}

}  // namespace quilt
