// Graphviz's headers define macros that clash with Qt's, and Graphviz keeps
// global state: it runs only here, in a process of its own per layout.
#include "views/layout_worker/run_dot.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <charconv>
#include <string_view>

#include "support/error.h"

namespace lathe::views {

namespace {

constexpr double kPointsPerInch = 72.0;

int index_after_prefix(const char* name, const char* prefix) {
  const std::string_view s(name ? name : "");
  const std::string_view p(prefix);
  if (s.substr(0, p.size()) != p) return -1;
  int value = -1;
  const auto* begin = s.data() + p.size();
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() ? value : -1;
}

DotPoint point(pointf p) {
  return {p.x, p.y};
}

}  // namespace

DotGeometry run_dot(const std::string& dot_text) {
  GVC_t* gvc = gvContext();
  LATHE_CHECK(gvc, "cannot create a Graphviz context");
  Agraph_t* g = agmemread(dot_text.c_str());
  if (!g) {
    gvFreeContext(gvc);
    fail("Graphviz cannot parse the DOT text");
  }
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    gvFreeContext(gvc);
    fail("Graphviz's dot layout failed");
  }

  DotGeometry geometry;
  const boxf bb = GD_bb(g);
  geometry.lower_left = point(bb.LL);
  geometry.upper_right = point(bb.UR);
  for (Agnode_t* node = agfstnode(g); node; node = agnxtnode(g, node)) {
    geometry.nodes.push_back({agnameof(node), point(ND_coord(node)),
                              ND_width(node) * kPointsPerInch, ND_height(node) * kPointsPerInch});
    for (Agedge_t* edge = agfstout(g, node); edge; edge = agnxtout(g, edge)) {
      DotGeometry::Edge e;
      e.index = index_after_prefix(agget(edge, const_cast<char*>("id")), "e");
      if (e.index < 0) continue;
      if (const splines* spl = ED_spl(edge); spl && spl->size > 0) {
        const bezier& bz = spl->list[0];
        for (int i = 0; i < bz.size; ++i) e.points.push_back(point(bz.list[i]));
        e.has_arrow = bz.eflag != 0;
        if (e.has_arrow) e.arrow_tip = point(bz.ep);
      }
      if (const textlabel_t* label = ED_xlabel(edge); label && label->set) {
        e.has_label = true;
        e.label = point(label->pos);
      }
      geometry.edges.push_back(std::move(e));
    }
  }
  for (int c = 1; c <= GD_n_cluster(g); ++c) {
    Agraph_t* sub = GD_clust(g)[c];
    DotGeometry::Cluster cluster;
    cluster.group = index_after_prefix(agnameof(sub), "cluster_");
    if (cluster.group < 0) continue;
    const boxf cb = GD_bb(sub);
    cluster.lower_left = point(cb.LL);
    cluster.upper_right = point(cb.UR);
    if (const textlabel_t* label = GD_label(sub); label && label->set) {
      cluster.has_label = true;
      cluster.label = point(label->pos);
    }
    geometry.clusters.push_back(cluster);
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  return geometry;
}

}  // namespace lathe::views
