// Graph layout benchmark: how long Graphviz takes to draw each model's graph
// before and after fusion, as the studio's two graph panes do, with the graph's
// size beside it. The studio's target is two seconds on a 2-core machine.
//   bench_layout MODEL.onnx ... [--dot DIR]
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "driver/model_loader.h"
#include "passes/pipeline.h"
#include "support/error.h"
#include "support/timer.h"
#include "views/graph_layout.h"

using namespace lathe;
namespace fs = std::filesystem;

namespace {

void report(const std::string& model, const char* pane, const views::GraphLayout& layout) {
  std::printf("%-28s %-8s %6zu nodes %6zu edges %5zu clusters %9.1f ms %s\n", model.c_str(), pane,
              layout.nodes.size(), layout.edges.size(), layout.clusters.size(), layout.milliseconds,
              layout.effort == views::LayoutEffort::Bounded ? "bounded" : "detailed");
}

// The DOT text, written before the layout starts, so that a layout that
// never ends can still be studied with Graphviz's own tools.
void write_dot(const std::string& dir, const std::string& model, const char* pane,
               const Graph& graph, const std::vector<passes::FusedGroup>& groups = {}) {
  if (!dir.empty())
    std::ofstream(fs::path(dir) / (model + "." + pane + ".dot")) << views::to_dot(graph, groups);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> models;
  std::string dot_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dot") && i + 1 < argc)
      dot_dir = argv[++i];
    else if (argv[i][0] == '-') {
      std::fprintf(stderr, "usage: bench_layout MODEL.onnx ... [--dot DIR]\n");
      return 2;
    } else {
      models.push_back(argv[i]);
    }
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: bench_layout MODEL.onnx ... [--dot DIR]\n");
    return 2;
  }
  try {
    for (const std::string& path : models) {
      const std::string name = fs::path(path).stem().string();
      const Graph graph = driver::load_model(path);
      const passes::OptimizedGraph optimized =
          passes::optimize_graph(graph, {.alter_layout = true,
                                         .record_snapshots = false,
                                         .vector_unit = {},
                                         .external_codegens = std::nullopt});
      write_dot(dot_dir, name, "original", graph);
      write_dot(dot_dir, name, "fused", optimized.graph, optimized.groups);
      report(name, "original", views::layout_graph(graph));
      report(name, "fused", views::layout_graph(optimized.graph, optimized.groups));
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_layout: %s\n", e.what());
    return 1;
  }
  return 0;
}
