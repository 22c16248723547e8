// What Graphviz's dot computed for a DOT text Lathe wrote, in dot's own
// coordinates (points, y growing upwards), keyed by the ids Lathe gave:
// nodes "n3"/"in0"/"out0", edges by the index in their id "e<i>", clusters
// by the group in "cluster_<g>". The layout worker (lathe-layout-worker)
// computes it and sends it back as text; the studio's process turns it into
// a GraphLayout. No Graphviz and no Qt here.
#pragma once

#include <string>
#include <vector>

namespace lathe::views {

struct DotPoint {
  double x = 0;
  double y = 0;
};

struct DotGeometry {
  DotPoint lower_left, upper_right;  // the drawing's bounding box

  struct Node {
    std::string id;
    DotPoint centre;
    double width = 0, height = 0;  // points
  };
  struct Edge {
    int index = -1;
    std::vector<DotPoint> points;  // the first B-spline of the edge
    bool has_arrow = false;
    DotPoint arrow_tip;
    bool has_label = false;
    DotPoint label;
  };
  struct Cluster {
    int group = -1;
    DotPoint lower_left, upper_right;
    bool has_label = false;
    DotPoint label;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
};

// One line per item, numbers exact to 1/1000 of a point:
//   bbox LLX LLY URX URY
//   node ID X Y W H
//   edge INDEX ARROW(0|1) AX AY LABEL(0|1) LX LY N X0 Y0 ... XN-1 YN-1
//   cluster GROUP LLX LLY URX URY LABEL(0|1) LX LY
std::string write_dot_geometry(const DotGeometry& geometry);
// Throws lathe::Error naming the line for text that is not in that form.
DotGeometry read_dot_geometry(const std::string& text);

}  // namespace lathe::views
