// Host control flow in the graph executor: an If runs one of its branches'
// executors, a Loop its body's executor while the trip count and condition
// allow (ir/control_flow.h gives the order of inputs and outputs). Each
// subgraph has its own storage; values are copied in and out at its
// boundary only, and a Loop's carried values stay in its body's inputs
// between iterations. On a device the subgraphs' storage is the device's
// too: only a condition and a trip count cross to the host, and an
// iteration's number and condition to the device.
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/graph_executor.h"

namespace lathe::runtime {
namespace {

// The bytes of a small array (a condition, a trip count) on the host.
std::vector<unsigned char> host_bytes(const NDArray& a) {
  std::vector<unsigned char> bytes(a.nbytes());
  a.copy_to(bytes.data(), bytes.size());
  return bytes;
}

// A condition's truth, whatever its element type (ONNX's are bool, exports
// sometimes give an integer).
bool truth_of(const NDArray& a) {
  const DataType t = a.dtype();
  const std::vector<unsigned char> bytes = host_bytes(a);
  if (bytes.size() < static_cast<size_t>(t.bytes())) return false;
  if (t.code == DataType::kFloat && t.bits == 32) {
    float v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v != 0;
  }
  if (t.code == DataType::kFloat && t.bits == 64) {
    double v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v != 0;
  }
  for (int64_t i = 0; i < t.bytes(); ++i)
    if (bytes[static_cast<size_t>(i)]) return true;
  return false;
}

int64_t int64_of(const NDArray& a) {
  int64_t value = 0;
  const std::vector<unsigned char> bytes = host_bytes(a);
  std::memcpy(&value, bytes.data(), std::min(sizeof value, bytes.size()));
  return value;
}

std::string typed(const NDArray& a) {
  return a.dtype().to_string() + shape_to_string(a.shape());
}

}  // namespace

void GraphExecutor::bind_control_flow(Step& step, const GraphNode& node) {
  const std::string where = "control-flow node '" + node.name + "'";
  auto check = [&](const NDArray& ours, const NDArray& theirs, const std::string& what) {
    if (ours.dtype() != theirs.dtype() || ours.shape() != theirs.shape())
      throw Error(where + ": " + what + " is " + typed(theirs) + " in the subgraph but " +
                  typed(ours) + " here");
  };
  const bool is_loop = node.control_flow == "Loop";
  for (uint32_t s : node.subgraphs) {
    GraphExecutor& sub = *subgraphs_[s];
    const std::string name = "subgraph '" + desc_.subgraphs[s].name + "'";
    // A Loop's body takes the iteration and the condition, then what the
    // node passes on; an If's branch what follows the condition.
    const int first = is_loop ? 0 : 1;
    if (sub.num_inputs() != static_cast<int>(node.num_inputs) - first)
      throw Error(where + ": " + name + " takes " + std::to_string(sub.num_inputs()) +
                  " inputs; the node gives it " + std::to_string(node.num_inputs - first));
    for (uint32_t i = is_loop ? 2 : 1; i < node.num_inputs; ++i)
      check(entry(node.inputs[i]), sub.input_entry(static_cast<int>(i) - first),
            "input " + std::to_string(i));
    if (is_loop) {
      if (sub.num_outputs() != static_cast<int>(1 + node.num_outputs))
        throw Error(where + ": " + name + " has " + std::to_string(sub.num_outputs()) +
                    " outputs for the condition and " + std::to_string(node.num_outputs) +
                    " loop-carried values");
      for (uint32_t k = 0; k < node.num_outputs; ++k)
        check(output_entry(step.node_id, k), sub.result(1 + k),
              "loop-carried output " + std::to_string(k));
    } else {
      if (sub.num_outputs() != static_cast<int>(node.num_outputs))
        throw Error(where + ": " + name + " has " + std::to_string(sub.num_outputs()) +
                    " outputs, the node " + std::to_string(node.num_outputs));
      for (uint32_t k = 0; k < node.num_outputs; ++k)
        check(output_entry(step.node_id, k), sub.result(k), "output " + std::to_string(k));
    }
  }
  const uint32_t node_id = step.node_id;
  step.host = [this, node_id, is_loop] {
    const GraphNode& n = desc_.nodes[node_id];
    is_loop ? run_loop(n) : run_if(n);
  };
}

void GraphExecutor::run_if(const GraphNode& node) {
  const uint32_t node_id = static_cast<uint32_t>(&node - desc_.nodes.data());
  GraphExecutor& branch = *subgraphs_[node.subgraphs[truth_of(entry(node.inputs[0])) ? 0 : 1]];
  // Everything is read from this graph's entries before any output is
  // written: an output's storage may be an input's that dies here.
  for (uint32_t i = 1; i < node.num_inputs; ++i)
    copy_array(branch.input_entry(static_cast<int>(i) - 1), entry(node.inputs[i]));
  branch.run_steps();
  for (uint32_t k = 0; k < node.num_outputs; ++k)
    copy_array(output_entry(node_id, k), branch.result(k));
}

void GraphExecutor::run_loop(const GraphNode& node) {
  const uint32_t node_id = static_cast<uint32_t>(&node - desc_.nodes.data());
  GraphExecutor& body = *subgraphs_[node.subgraphs[0]];
  const uint32_t carried = node.num_outputs;
  const int64_t trips = int64_of(entry(node.inputs[0]));
  bool go = truth_of(entry(node.inputs[1]));
  // The carried values and captures go into the body's inputs, where the
  // carried ones stay from one iteration to the next.
  for (uint32_t i = 2; i < node.num_inputs; ++i)
    copy_array(body.input_entry(static_cast<int>(i)), entry(node.inputs[i]));
  NDArray& iteration = body.input_entry(0);
  NDArray& cond = body.input_entry(1);
  // A body that hands an input on as a carried output (swapping two, say)
  // must not have that input overwritten before it is read: such outputs
  // are staged.
  bool staged = false;
  for (uint32_t k = 0; k < carried; ++k)
    for (int i = 0; i < body.num_inputs(); ++i)
      staged |= body.result(1 + k).data() == body.input_entry(i).data();
  std::vector<NDArray> stage;
  if (staged)
    for (uint32_t k = 0; k < carried; ++k) {
      const NDArray& out = body.result(1 + k);
      stage.push_back(device_ ? NDArray(out.shape(), out.dtype(), device_)
                              : NDArray(out.shape(), out.dtype()));
    }
  // The condition an iteration starts with: true in the cond input's type.
  std::vector<unsigned char> go_bytes(cond.nbytes(), 0);
  if (cond.dtype().code == DataType::kFloat && cond.dtype().bits == 32) {
    const float one = 1.0f;
    std::memcpy(go_bytes.data(), &one, std::min(sizeof one, go_bytes.size()));
  } else if (!go_bytes.empty()) {
    go_bytes[0] = 1;  // bool and little-endian integers
  }
  for (int64_t i = 0; i < trips && go; ++i) {
    iteration.copy_from(&i, sizeof i);
    cond.copy_from(go_bytes.data(), go_bytes.size());
    body.run_steps();
    go = truth_of(body.result(0));
    if (staged) {
      for (uint32_t k = 0; k < carried; ++k) copy_array(stage[k], body.result(1 + k));
      for (uint32_t k = 0; k < carried; ++k)
        copy_array(body.input_entry(static_cast<int>(2 + k)), stage[k]);
      continue;
    }
    for (uint32_t k = 0; k < carried; ++k)
      copy_array(body.input_entry(static_cast<int>(2 + k)), body.result(1 + k));
  }
  for (uint32_t k = 0; k < carried; ++k)
    copy_array(output_entry(node_id, k), body.input_entry(static_cast<int>(2 + k)));
}

void GraphExecutor::copy_array(NDArray& to, const NDArray& from) const {
  if (to.data() == from.data()) return;
  if (device_)
    device_->copy_within(to.data(), from.data(), to.nbytes());
  else
    std::memcpy(to.data(), from.data(), to.nbytes());
}

}  // namespace lathe::runtime
