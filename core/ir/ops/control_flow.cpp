// Inference for If and Loop (ir/control_flow.h): the outputs' types come from
// the subgraphs, which must agree with each other and with the node.
#include "ir/control_flow.h"
#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

void check_scalar(const InferContext& ctx, size_t i, const char* what) {
  const TensorType& t = ctx.input(i);
  LATHE_CHECK(t.numel() == 1, what, " must have one element, got ", t.to_string());
}

// The subgraph's inputs from position `first` on take the node's captures.
void check_captures(const InferContext& ctx, const Graph& sub, size_t first, const char* role) {
  const size_t leading = control_flow_leading_inputs(ctx.node());
  const size_t captures = ctx.num_inputs() - leading;
  LATHE_CHECK(sub.inputs.size() == first + captures, "the ", role, " graph takes ",
              sub.inputs.size(), " inputs; the node gives it ", first + captures);
  for (size_t k = 0; k < captures; ++k) {
    const TensorType& given = ctx.input(leading + k);
    const TensorType& taken = sub.type(sub.inputs[first + k]);
    LATHE_CHECK(given == taken, "the ", role, " graph reads '",
                sub.value(sub.inputs[first + k]).name, "' as ", taken.to_string(),
                ", the node passes ", given.to_string());
  }
}

void infer_if(InferContext& ctx) {
  const Node& node = ctx.node();
  LATHE_CHECK(node.subgraphs.size() == 2, "If needs a then and an else graph");
  check_scalar(ctx, 0, "the condition");
  const Graph& then_g = *node.subgraphs[0];
  const Graph& else_g = *node.subgraphs[1];
  check_captures(ctx, then_g, 0, "then");
  check_captures(ctx, else_g, 0, "else");
  for (const Graph* g : {&then_g, &else_g})
    LATHE_CHECK(g->outputs.size() == ctx.num_outputs(), "the ", g == &then_g ? "then" : "else",
                " graph has ", g->outputs.size(), " outputs, the If ", ctx.num_outputs());
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    const TensorType& a = then_g.type(then_g.outputs[k]);
    const TensorType& b = else_g.type(else_g.outputs[k]);
    // The IR's shapes are static: what follows the If must not depend on
    // which branch ran.
    LATHE_CHECK(a == b, "output ", k, " differs between the branches: then gives '",
                then_g.value(then_g.outputs[k]).name, "' as ", a.to_string(), ", else gives '",
                else_g.value(else_g.outputs[k]).name, "' as ", b.to_string(),
                "; Lathe runs an If at run time only when both branches give the same types");
    ctx.set_output(k, a);
  }
}

void infer_loop(InferContext& ctx) {
  const Node& node = ctx.node();
  LATHE_CHECK(node.subgraphs.size() == 1, "Loop needs a body graph");
  const size_t carried = ctx.num_outputs();
  LATHE_CHECK(ctx.num_inputs() >= 2 + carried, "Loop takes M, cond and ", carried,
              " loop-carried values");
  check_scalar(ctx, 0, "the trip count M");
  check_scalar(ctx, 1, "the condition");
  LATHE_CHECK(ctx.input(0).dtype == DType::Int64, "the trip count M must be int64, got ",
              ctx.input(0).to_string());
  const Graph& body = *node.subgraphs[0];
  check_captures(ctx, body, 2 + carried, "body");
  LATHE_CHECK(body.outputs.size() == 1 + carried, "the body has ", body.outputs.size(),
              " outputs for the condition and ", carried, " loop-carried values");
  const TensorType& next_cond = body.type(body.outputs[0]);
  LATHE_CHECK(next_cond.numel() == 1, "the body's condition '", body.value(body.outputs[0]).name,
              "' must have one element, got ", next_cond.to_string());
  for (size_t k = 0; k < carried; ++k) {
    const TensorType& before = ctx.input(2 + k);
    const TensorType& in = body.type(body.inputs[2 + k]);
    const TensorType& out = body.type(body.outputs[1 + k]);
    LATHE_CHECK(before == in, "loop-carried value ", k, " enters as ", before.to_string(),
                " but the body reads it as ", in.to_string());
    LATHE_CHECK(out == in, "loop-carried value ", k, " ('", body.value(body.outputs[1 + k]).name,
                "') changes from ", in.to_string(), " to ", out.to_string(),
                " in an iteration; a Loop run at run time must keep its carried values' types");
    ctx.set_output(k, out);
  }
}

}  // namespace

void register_control_flow_ops(OpRegistry& registry) {
  registry.define(kIfOp, FusionKind::Opaque, infer_if);
  registry.define(kLoopOp, FusionKind::Opaque, infer_loop);
}

}  // namespace lathe
