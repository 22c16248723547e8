#include "tune/kernel_fixture.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "ir/normalized_error.h"
#include "ir/op_registry.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::tune {
namespace {

// Floats uniform in [-1, 1); integers (indices, masks) uniform in
// [0, int_bound), zero when int_bound is 0.
Tensor random_tensor(const TensorType& type, std::mt19937& rng, int64_t int_bound) {
  Tensor t(type);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> ints(0, std::max<int64_t>(0, int_bound - 1));
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (type.dtype) {
      case DType::Float32:
        t.data<float>()[i] = static_cast<float>(dist(rng));
        break;
      case DType::Float64:
        t.data<double>()[i] = dist(rng);
        break;
      case DType::Bool:
        t.data<bool>()[i] = dist(rng) > 0;
        break;
      case DType::Int64:
        t.data<int64_t>()[i] = int_bound > 0 ? ints(rng) : 0;
        break;
      case DType::Int32:
        t.data<int32_t>()[i] = static_cast<int32_t>(int_bound > 0 ? ints(rng) : 0);
        break;
      default:
        std::memset(t.raw(), 0, t.nbytes());
        return t;
    }
  }
  return t;
}

// Integer activations index something of the group: the shortest axis
// (longer than 1) of its float inputs bounds them, so that they stay valid
// indices into whichever axis they address.
int64_t index_bound(const Graph& graph, const passes::FusedGroup& group) {
  int64_t bound = 0;
  for (ValueId v : group.inputs) {
    const TensorType& t = graph.type(v);
    if (t.dtype != DType::Float32 && t.dtype != DType::Float64) continue;
    for (int64_t d : t.shape)
      if (d > 1) bound = bound == 0 ? d : std::min(bound, d);
  }
  return bound;
}

// The task's data with integer inputs drawn below `int_bound` (0: zeros).
KernelFixture task_data(const Graph& graph, const passes::FusedGroup& group,
                        const GroupComputation& computation, unsigned seed, int64_t int_bound) {
  std::mt19937 rng(seed);
  std::map<ValueId, Tensor> values;
  for (ValueId v : group.inputs) {
    const Value& value = graph.value(v);
    values[v] = value.is_constant() ? value.constant : random_tensor(value.type, rng, int_bound);
  }
  KernelFixture data;
  for (ValueId v : computation.input_values) data.buffers.push_back(values.at(v).clone());
  data.num_inputs = data.buffers.size();
  for (ValueId v : computation.output_values) data.buffers.emplace_back(graph.type(v));

  const OpRegistry& registry = reference::kernel_registry();
  for (int n : group.nodes) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    std::vector<const Tensor*> inputs;
    for (ValueId v : node.inputs) inputs.push_back(v == kNoValue ? nullptr : &values.at(v));
    std::vector<TensorType> types;
    for (ValueId v : node.outputs) types.push_back(v == kNoValue ? TensorType{} : graph.type(v));
    std::vector<Tensor> outs = reference::run_node(*registry.find(node.op), node, inputs, types);
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != kNoValue) values[node.outputs[i]] = outs[i];
  }
  for (ValueId v : computation.output_values) data.expected.push_back(values.at(v));
  return data;
}

}  // namespace

KernelFixture make_kernel_fixture(const Graph& graph, const passes::FusedGroup& group,
                                  const GroupComputation& computation, unsigned seed) {
  const int64_t bound = index_bound(graph, group);
  if (bound == 0) return task_data(graph, group, computation, seed, 0);
  try {
    return task_data(graph, group, computation, seed, bound);
  } catch (const Error&) {
    // Integers that are no indices into these inputs (a shape, a count the
    // reference rejects): zeros, which every such use accepts.
    return task_data(graph, group, computation, seed, 0);
  }
}

std::vector<BufferData> measure_buffers(const KernelFixture& data) {
  std::vector<BufferData> out;
  for (size_t i = 0; i < data.buffers.size(); ++i) {
    const Tensor& t = data.buffers[i];
    BufferData b;
    b.dtype = std::string(dtype_name(t.dtype()));
    b.shape = t.shape();
    if (i < data.num_inputs)
      b.bytes.assign(static_cast<const char*>(t.raw()),
                     static_cast<const char*>(t.raw()) + t.nbytes());
    out.push_back(std::move(b));
  }
  return out;
}

double output_error(const KernelFixture& data, const std::vector<std::vector<char>>& outputs) {
  LATHE_CHECK(outputs.size() == data.expected.size(), "the kernel returned ", outputs.size(),
              " outputs, expected ", data.expected.size());
  double error = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& want = data.expected[i];
    Tensor got(want.type());
    LATHE_CHECK(outputs[i].size() == got.nbytes(), "output ", i, " has ", outputs[i].size(),
                " bytes, expected ", got.nbytes());
    if (got.nbytes()) std::memcpy(got.raw(), outputs[i].data(), got.nbytes());
    error = std::max(error, normalized_error(got, want));
  }
  return error;
}

}  // namespace lathe::tune
