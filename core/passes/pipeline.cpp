#include "passes/pipeline.h"

#include <functional>

#include "passes/alter_conv_layout.h"
#include "passes/alter_int8_conv_layout.h"
#include "passes/cancel_layout_transforms.h"
#include "passes/canonicalize_qnn.h"
#include "passes/drop_qdq_pairs.h"
#include "passes/eliminate_dead_code.h"
#include "passes/expand_dynamic_quantize.h"
#include "passes/external_codegen.h"
#include "passes/fold_constants.h"
#include "passes/lower_conv3d.h"
#include "passes/lower_conv_transpose.h"
#include "passes/pack_matmul_integer.h"
#include "passes/pad_matmul_integer_columns.h"
#include "passes/partition_external.h"
#include "passes/prune_padding_taps.h"
#include "passes/shift_matmul_integer_data.h"
#include "passes/simplify.h"
#include "passes/split_shared_outputs.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::passes {

OptimizedGraph optimize_graph(const Graph& input, const PassOptions& options) {
  OptimizedGraph result;
  Graph graph = input;
  auto run = [&](const char* name, const std::function<Graph(const Graph&)>& pass) {
    Timer timer;
    try {
      graph = pass(graph);
      graph.verify();
    } catch (const UnsupportedError& e) {
      throw UnsupportedError(str("graph pass ", name, ": ", e.what()));
    } catch (const Error& e) {
      throw Error(str("graph pass ", name, ": ", e.what()));
    }
    const double ms = timer.milliseconds();
    if (options.record_snapshots) result.snapshots.push_back({name, graph, {}, ms});
  };

  run("eliminate_dead_code", eliminate_dead_code);
  // MaxPool and data movement between a DequantizeLinear and a QuantizeLinear
  // of the same parameters run on the integers, so the products beside them
  // canonicalize with integer outputs.
  run("drop_qdq_pairs", drop_qdq_pairs);
  // Before folding constants: it reads the quantized weights behind their
  // DequantizeLinear, which folding would turn into float constants.
  run("canonicalize_qnn", canonicalize_qnn);
  run("fold_constants", fold_constants);
  run("simplify", simplify);
  run("fold_constants", fold_constants);
  const std::vector<std::string> codegens =
      options.external_codegens.value_or(ExternalCodegenRegistry::global().names());
  if (!codegens.empty())
    run("partition_external", [&](const Graph& g) { return partition_external(g, codegens); });
  if (options.gpu) run("expand_dynamic_quantize", expand_dynamic_quantize);
  if (options.gpu) run("split_shared_outputs", split_shared_outputs);
  run("lower_conv_transpose", lower_conv_transpose);
  run("prune_padding_taps", prune_padding_taps);
  run("lower_conv3d", lower_conv3d);
  // The lowerings' weights are slices and transposes of constants: folded,
  // the layout pass sees constants it may pad (padded_filters).
  run("fold_constants", fold_constants);
  if (options.alter_layout) run("alter_int8_conv_layout", alter_int8_conv_layout);
  // A constant MatMulInteger B packed once, not on every call; int8 A
  // shifted to uint8 and B's columns padded to whole vectors first.
  if (options.alter_layout) run("shift_matmul_integer_data", shift_matmul_integer_data);
  if (options.alter_layout) run("pad_matmul_integer_columns", pad_matmul_integer_columns);
  if (options.alter_layout) run("pack_matmul_integer", pack_matmul_integer);
  if (options.alter_layout)
    run("alter_conv_layout",
        [&](const Graph& g) { return alter_conv_layout(g, options.vector_unit); });
  run("fold_constants", fold_constants);
  run("cancel_layout_transforms", cancel_layout_transforms);
  run("eliminate_dead_code", eliminate_dead_code);

  Timer timer;
  result.groups = fuse_ops(graph);
  if (options.record_snapshots)
    result.snapshots.push_back({"fuse_ops", graph, result.groups, timer.milliseconds()});
  result.graph = std::move(graph);
  result.vector_unit = options.vector_unit;
  return result;
}

}  // namespace lathe::passes
