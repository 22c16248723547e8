#include "tune/group_computation.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ir/op_registry.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "topi/generic_template.h"

namespace lathe::tune {
namespace {

// Constants this small become immediates in the kernel instead of parameters,
// as TVM inlines scalar relay constants.
constexpr int64_t kInlineConstantLimit = 1;

bool is_shape_input(const OpDef* op, size_t index) {
  return op && std::find(op->shape_inputs.begin(), op->shape_inputs.end(),
                         static_cast<int>(index)) != op->shape_inputs.end();
}

// Whether some node of the group reads `value` as data (not only as a
// shape-deciding constant).
bool read_as_data(const Graph& graph, const passes::FusedGroup& group, ValueId value) {
  const OpRegistry& registry = OpRegistry::global();
  for (int n : group.nodes) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    const OpDef* op = registry.find(node.op);
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] == value && !is_shape_input(op, i)) return true;
  }
  return false;
}

te::Expr immediate(const Tensor& constant) {
  te::DataType type = topi::te_dtype(constant.dtype());
  switch (constant.dtype()) {
    case DType::Float32:
      return te::make_const(type, constant.data<float>()[0]);
    case DType::Float64:
      return te::make_const(type, constant.data<double>()[0]);
    case DType::Int8:
      return te::make_int(constant.data<int8_t>()[0], type);
    case DType::Int16:
      return te::make_int(constant.data<int16_t>()[0], type);
    case DType::Int32:
      return te::make_int(constant.data<int32_t>()[0], type);
    case DType::Int64:
      return te::make_int(constant.data<int64_t>()[0], type);
    case DType::UInt8:
      return te::make_int(constant.data<uint8_t>()[0], type);
    case DType::UInt16:
      return te::make_int(constant.data<uint16_t>()[0], type);
    case DType::UInt32:
      return te::make_int(constant.data<uint32_t>()[0], type);
    case DType::UInt64:
      return te::make_int(static_cast<int64_t>(constant.data<uint64_t>()[0]), type);
    case DType::Bool:
      return te::make_int(constant.data<bool>()[0] ? 1 : 0, type);
    // Exact in float32; the cast back is exact too.
    case DType::Float16:
      return te::cast(type, te::make_const(te::DataType::Float(32),
                                           static_cast<float>(constant.data<Float16>()[0])));
    case DType::BFloat16:
      return te::cast(type, te::make_const(te::DataType::Float(32),
                                           static_cast<float>(constant.data<BFloat16>()[0])));
  }
  throw Error("unknown dtype");
}

std::string snake_case(const std::string& op) {
  std::string out;
  for (char c : op) {
    if (c == '.') {
      out += '_';
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// A compute that copies `source`: kernels write their outputs, so an output
// that some compute passed through unchanged still needs its own stage.
te::Tensor copy_of(const te::Tensor& source, const std::string& name) {
  return te::compute(
      source.shape(),
      [&](const std::vector<te::Var>& i) {
        return source(std::vector<te::Expr>(i.begin(), i.end()));
      },
      name);
}

// The type and bytes of a tensor, so keys tell different values apart.
std::string tensor_text(const Tensor& t) {
  static const char* hex = "0123456789abcdef";
  std::string out = t.type().to_string() + "=";
  const auto* bytes = static_cast<const unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) {
    out += hex[bytes[i] >> 4];
    out += hex[bytes[i] & 15];
  }
  return out;
}

std::string attribute_text(const Attribute& a) {
  if (const Tensor* t = std::get_if<Tensor>(&a)) return tensor_text(*t);
  return attribute_to_string(a);
}

void collect_tensors(const te::Tensor& t, std::map<std::string, te::Tensor>& out) {
  if (!out.emplace(t.name(), t).second) return;
  for (const te::Tensor& input : t.op().input_tensors()) collect_tensors(input, out);
}

// An exception's first line: a reason short enough for a task table.
std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Why a space's default config is no point of it, for a fallback's reason.
std::string no_default_point(const topi::SearchSpace& space) {
  const topi::Config& config = space.default_config;
  bool in_range = config.size() == space.knobs.size();
  for (size_t i = 0; in_range && i < config.size(); ++i)
    in_range = config[i] >= 0 && static_cast<size_t>(config[i]) < space.knobs[i].options.size();
  if (!in_range) return "its default config does not pick an option of each knob";
  // Counting the points runs the constraint over the whole space: only here,
  // where the default already failed it.
  if (space.size() == 0) return "its space has no point for this shape";
  return "its default config (" + space.describe(config) + ") is not a point of its space";
}

}  // namespace

std::vector<te::Tensor> GroupComputation::args() const {
  std::vector<te::Tensor> all = inputs;
  all.insert(all.end(), outputs.begin(), outputs.end());
  return all;
}

GroupComputation build_group_computation(const Graph& graph, const passes::FusedGroup& group,
                                         const VectorUnit& vector_unit) {
  const topi::OpStrategyRegistry& strategies = topi::OpStrategyRegistry::global();
  const OpRegistry& registry = OpRegistry::global();
  GroupComputation result;
  result.vector_unit = vector_unit;
  std::unordered_map<ValueId, te::Tensor> tensor_of;

  for (ValueId v : group.inputs) {
    if (!read_as_data(graph, group, v)) continue;
    const Value& value = graph.value(v);
    if (value.is_constant() && value.constant.numel() <= kInlineConstantLimit) {
      te::Expr imm = immediate(value.constant);
      tensor_of[v] = te::compute(
          value.type.shape, [imm](const std::vector<te::Var>&) { return imm; },
          "c" + std::to_string(tensor_of.size()));
      result.constants.push_back(tensor_of[v]);
      continue;
    }
    te::Tensor p = te::placeholder(value.type.shape, topi::te_dtype(value.type.dtype),
                                   "p" + std::to_string(result.inputs.size()));
    tensor_of[v] = p;
    result.inputs.push_back(p);
    result.input_values.push_back(v);
  }

  std::map<std::string, int> name_uses;
  for (int n : group.nodes) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    const topi::OpStrategy* strategy = strategies.find(node.op);
    if (!strategy)
      throw UnsupportedError(describe_node(node) + ": the op " + node.op +
                             " has no compute definition for compiled kernels");
    const OpDef* op = registry.find(node.op);
    std::vector<te::Tensor> inputs(node.inputs.size());
    std::vector<const Tensor*> constants(node.inputs.size(), nullptr);
    std::vector<TensorType> input_types(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      ValueId v = node.inputs[i];
      if (v == kNoValue) continue;
      const Value& value = graph.value(v);
      input_types[i] = value.type;
      if (value.is_constant()) constants[i] = &value.constant;
      if (is_shape_input(op, i)) continue;
      auto it = tensor_of.find(v);
      LATHE_CHECK(it != tensor_of.end(), describe_node(node), ": input ", i, " (", value.name,
                  ") is neither a group input nor computed earlier in ", group.name);
      inputs[i] = it->second;
    }
    std::vector<TensorType> output_types;
    for (ValueId v : node.outputs)
      output_types.push_back(v == kNoValue ? TensorType{} : graph.type(v));
    std::string base = snake_case(node.op);
    int use = name_uses[base]++;
    if (use > 0) base += "_" + std::to_string(use);
    topi::ComputeContext ctx(node, std::move(inputs), std::move(constants), std::move(input_types),
                             std::move(output_types), base);
    std::vector<te::Tensor> outs = strategy->compute(ctx);
    for (size_t i = 0; i < node.outputs.size() && i < outs.size(); ++i)
      if (node.outputs[i] != kNoValue && outs[i].defined()) tensor_of[node.outputs[i]] = outs[i];
  }

  std::set<const te::OperationNode*> used_as_output;
  for (ValueId v : group.outputs) {
    auto it = tensor_of.find(v);
    LATHE_CHECK(it != tensor_of.end(), group.name, ": output ", graph.value(v).name,
                " was not computed");
    te::Tensor out = it->second;
    // A placeholder, an inlined constant or a tensor already returned under
    // another output gets its own copy stage.
    if (!out.op().as_compute() || !used_as_output.insert(out.op().get()).second ||
        std::any_of(result.inputs.begin(), result.inputs.end(),
                    [&](const te::Tensor& in) { return in.same_as(out); }))
      out = copy_of(out, "out" + std::to_string(result.outputs.size()));
    result.outputs.push_back(out);
    result.output_values.push_back(v);
  }
  const Node& anchor = graph.nodes[static_cast<size_t>(group.anchor)];
  auto anchor_it = tensor_of.find(anchor.outputs.empty() ? kNoValue : anchor.outputs[0]);
  result.anchor = anchor_it != tensor_of.end() ? anchor_it->second : result.outputs[0];
  result.anchor_strategy = strategies.find(anchor.op);
  result.anchor_op = anchor.op;
  for (const te::Tensor& t : result.outputs) collect_tensors(t, result.tensors);
  return result;
}

topi::SearchSpace fallback_search_space(const GroupComputation& computation,
                                        const std::string& reason) {
  topi::SearchSpace space =
      topi::generic_template(computation.anchor, computation.outputs, computation.vector_unit);
  space.fallback = reason;
  return space;
}

topi::SearchSpace template_search_space(const GroupComputation& computation) {
  const topi::OpStrategy* strategy = computation.anchor_strategy;
  if (!strategy || !strategy->tuning_template || !computation.anchor.op().as_compute())
    return topi::generic_template(computation.anchor, computation.outputs, computation.vector_unit);
  // The template's own name once it has given one.
  std::string name = "the " + computation.anchor_op + " template";
  try {
    topi::SearchSpace space =
        strategy->tuning_template(computation.anchor, computation.outputs, computation.vector_unit);
    if (!space.name.empty()) name = space.name;
    if (!space.apply) return fallback_search_space(computation, name + ": it applies no config");
    if (!space.valid(space.default_config))
      return fallback_search_space(computation, name + ": " + no_default_point(space));
    apply_config(computation, space, space.default_config);  // throws where it does not apply
    return space;
  } catch (const std::exception& e) {
    return fallback_search_space(computation, name + ": " + first_line(e.what()));
  }
}

void inline_constants(schedule::Schedule& sch, const GroupComputation& computation) {
  for (const te::Tensor& c : computation.constants) {
    schedule::Stage stage = sch.find_stage(c.name());
    if (!stage.ref() || !stage.op().same_as(c.op()) || stage.node().is_output ||
        stage.node().attach_type != schedule::AttachType::Root)
      continue;
    stage.compute_inline();
  }
}

std::unique_ptr<schedule::Schedule> apply_config(const GroupComputation& computation,
                                                 const topi::SearchSpace& space,
                                                 const topi::Config& config) {
  LATHE_CHECK(space.valid(config), "the config does not fit search space ", space.name);
  std::vector<te::Operation> ops;
  for (const te::Tensor& t : computation.outputs) ops.push_back(t.op());
  auto sch = std::make_unique<schedule::Schedule>(ops);
  space.apply(*sch, config);
  inline_constants(*sch, computation);
  return sch;
}

std::unique_ptr<schedule::Schedule> default_group_schedule(const GroupComputation& computation) {
  topi::SearchSpace space = template_search_space(computation);
  return apply_config(computation, space, space.default_config);
}

std::unique_ptr<schedule::Schedule> parse_group_schedule(const GroupComputation& computation,
                                                         const std::string& text) {
  return schedule::parse_schedule(text, computation.tensors);
}

std::string group_structure_key(const Graph& graph, const passes::FusedGroup& group) {
  std::ostringstream key;
  std::unordered_map<ValueId, std::string> local;  // value -> its name inside the key
  const OpRegistry& registry = OpRegistry::global();
  auto describe_input = [&](ValueId v, bool shape_only) -> std::string {
    if (v == kNoValue) return "_";
    if (auto it = local.find(v); it != local.end()) return it->second;
    const Value& value = graph.value(v);
    std::string text = value.type.to_string();
    // Constants whose value is part of the kernel (inlined or shape-deciding)
    // must match by value too.
    if (value.is_constant() && (shape_only || value.constant.numel() <= kInlineConstantLimit))
      text = tensor_text(value.constant);
    return text;
  };
  int next = 0;
  for (ValueId v : group.inputs) {
    if (read_as_data(graph, group, v) &&
        !(graph.value(v).is_constant() && graph.value(v).constant.numel() <= kInlineConstantLimit))
      local[v] = "p" + std::to_string(next++) + ":" + graph.type(v).to_string();
  }
  int tmp = 0;
  for (int n : group.nodes) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    const OpDef* op = registry.find(node.op);
    key << node.op << "(";
    for (size_t i = 0; i < node.inputs.size(); ++i)
      key << (i ? "," : "") << describe_input(node.inputs[i], is_shape_input(op, i));
    key << "){";
    for (const auto& [name, attr] : node.attrs.all())
      key << name << "=" << attribute_text(attr) << ";";
    key << "}->";
    for (ValueId v : node.outputs) {
      if (v == kNoValue) {
        key << "_,";
        continue;
      }
      local[v] = "t" + std::to_string(tmp++) + ":" + graph.type(v).to_string();
      key << local[v] << ",";
    }
    key << "\n";
  }
  key << "out:";
  for (ValueId v : group.outputs) key << local[v] << ",";
  return key.str();
}

}  // namespace lathe::tune
