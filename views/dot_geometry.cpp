#include "views/dot_geometry.h"

#include <iomanip>
#include <sstream>

#include "support/error.h"

namespace lathe::views {

namespace {

std::ostream& operator<<(std::ostream& os, const DotPoint& p) {
  return os << p.x << ' ' << p.y;
}
std::istream& operator>>(std::istream& is, DotPoint& p) {
  return is >> p.x >> p.y;
}

}  // namespace

std::string write_dot_geometry(const DotGeometry& g) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "bbox " << g.lower_left << ' ' << g.upper_right << '\n';
  for (const DotGeometry::Node& n : g.nodes)
    os << "node " << n.id << ' ' << n.centre << ' ' << n.width << ' ' << n.height << '\n';
  for (const DotGeometry::Edge& e : g.edges) {
    os << "edge " << e.index << ' ' << e.has_arrow << ' ' << e.arrow_tip << ' ' << e.has_label
       << ' ' << e.label << ' ' << e.points.size();
    for (const DotPoint& p : e.points) os << ' ' << p;
    os << '\n';
  }
  for (const DotGeometry::Cluster& c : g.clusters)
    os << "cluster " << c.group << ' ' << c.lower_left << ' ' << c.upper_right << ' ' << c.has_label
       << ' ' << c.label << '\n';
  return os.str();
}

DotGeometry read_dot_geometry(const std::string& text) {
  DotGeometry g;
  std::istringstream lines(text);
  int number = 0;
  bool has_bbox = false;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string kind;
    in >> kind;
    if (kind == "bbox") {
      in >> g.lower_left >> g.upper_right;
      has_bbox = true;
    } else if (kind == "node") {
      DotGeometry::Node n;
      in >> n.id >> n.centre >> n.width >> n.height;
      g.nodes.push_back(std::move(n));
    } else if (kind == "edge") {
      DotGeometry::Edge e;
      size_t count = 0;
      in >> e.index >> e.has_arrow >> e.arrow_tip >> e.has_label >> e.label >> count;
      for (size_t i = 0; in && i < count; ++i) {
        DotPoint p;
        if (in >> p) e.points.push_back(p);
      }
      g.edges.push_back(std::move(e));
    } else if (kind == "cluster") {
      DotGeometry::Cluster c;
      in >> c.group >> c.lower_left >> c.upper_right >> c.has_label >> c.label;
      g.clusters.push_back(c);
    } else {
      fail(str("layout geometry line ", number, ": unknown item '", kind, "'"));
    }
    LATHE_CHECK(!in.fail(), "layout geometry line ", number, ": malformed: ", line);
  }
  LATHE_CHECK(has_bbox, "layout geometry: no bounding box");
  return g;
}

}  // namespace lathe::views
