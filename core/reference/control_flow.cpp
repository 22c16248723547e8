// Reference kernels of If and Loop (ir/control_flow.h): each runs its
// subgraphs with a reference executor of their own.
#include "ir/control_flow.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::reference {
namespace {

bool truth(const Tensor& t) {
  return t.to_int64_vector().at(0) != 0;
}

// Runs `graph` with `args` as its inputs, in order.
std::vector<Tensor> run_subgraph(const Graph& graph, const std::vector<Tensor>& args) {
  std::map<std::string, Tensor> inputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    inputs.emplace(graph.value(graph.inputs[i]).name, args.at(i));
  return Executor(graph).run(inputs);
}

void if_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  std::vector<Tensor> captures;
  for (size_t i = 1; i < ctx.num_inputs(); ++i) captures.push_back(ctx.input(i));
  const size_t branch = truth(ctx.input(0)) ? 0 : 1;
  std::vector<Tensor> results = run_subgraph(*node.subgraphs.at(branch), captures);
  for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.output(k) = results.at(k);
}

void loop_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const size_t carried = ctx.num_outputs();
  const int64_t trips = ctx.input(0).to_int64_vector().at(0);
  std::vector<Tensor> args(2);
  args[1] = ctx.input(1);
  for (size_t k = 0; k < carried; ++k) args.push_back(ctx.input(2 + k));
  for (size_t i = 2 + carried; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
  for (int64_t i = 0; i < trips && truth(args[1]); ++i) {
    args[0] = Tensor::scalar(i);
    std::vector<Tensor> results = run_subgraph(*node.subgraphs.at(0), args);
    args[1] = results.at(0);
    for (size_t k = 0; k < carried; ++k) args[2 + k] = results.at(1 + k);
  }
  for (size_t k = 0; k < carried; ++k) ctx.output(k) = args[2 + k];
}

}  // namespace

void register_control_flow_kernels(OpRegistry& registry) {
  registry.set_kernel(kIfOp, if_kernel);
  registry.set_kernel(kLoopOp, loop_kernel);
}

}  // namespace lathe::reference
