// The ONNX importer: checks, converts and types a model, node by node,
// collecting every problem before it gives up.
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_map>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/input_shapes.h"
#include "frontend/onnx/node_order.h"
#include "frontend/onnx/onnx_import.h"
#include "frontend/onnx/opset_changes.h"
#include "frontend/onnx/storage_floats.h"
#include "frontend/onnx/subgraph_copy.h"
#include "frontend/onnx/tensor_proto.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

using Kind = Diagnostic::Kind;

// A value's type as ONNX's own inference sees it: dims < 0 are unknown.
struct OnnxType {
  int elem_type = 0;
  std::vector<int64_t> dims;
  bool has_shape = false;
};

OnnxType onnx_type(const onnx::TypeProto& type) {
  OnnxType t;
  if (!type.has_tensor_type()) return t;
  t.elem_type = type.tensor_type().elem_type();
  if (type.tensor_type().has_shape()) {
    t.has_shape = true;
    for (const auto& d : type.tensor_type().shape().dim())
      t.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  return t;
}

// A small value as its elements ("16000", "[1, 0]"), a large one by its type.
std::string value_text(const Tensor& t) {
  if (t.numel() > 8) return t.type().to_string();
  std::string text;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (i) text += ", ";
      if constexpr (std::is_floating_point_v<T> || is_storage_float_v<T>)
        text += str(static_cast<double>(t.data<T>()[i]));
      else
        text += std::to_string(static_cast<int64_t>(t.data<T>()[i]));
    }
  });
  return t.rank() == 0 ? text : "[" + text + "]";
}

class Importer {
 public:
  Importer(onnx::ModelProto& model, std::string source, std::string base_dir,
           const ImportOptions& options)
      : model_(model),
        source_(std::move(source)),
        base_dir_(std::move(base_dir)),
        options_(options),
        registry_(reference::kernel_registry()) {}

  Graph run() {
    check_opset();
    if (diagnostics_.empty()) {
      sort_nodes_topologically(*model_.mutable_graph());
      apply_input_overrides();
      run_onnx_checker();
      import_initializers();
      import_inputs();
      for (int i = 0; i < model_.graph().node_size(); ++i) import_node(model_.graph().node(i), i);
      import_outputs();
    }
    // ONNX's shape inference runs only on models Lathe's own inference
    // accepted (libonnx divides by a zero stride where Lathe reports it), and
    // only for opsets whose schemas libonnx knows.
    if (diagnostics_.empty() && opset_ <= kLibonnxOpset) cross_check_with_onnx_inference();
    if (!diagnostics_.empty() && !open_inputs_.empty())
      throw OpenInputShapesError(str("cannot import ", source_, ":"), std::move(diagnostics_),
                                 std::move(open_inputs_));
    if (!diagnostics_.empty())
      throw DiagnosticError(str("cannot import ", source_, ":"), std::move(diagnostics_));
    graph_.remove_unused_values();
    graph_.verify();
    return std::move(graph_);
  }

 private:
  void report(Kind kind, std::string where, std::string message) {
    diagnostics_.push_back({kind, std::move(where), std::move(message)});
  }

  void check_opset() {
    if (model_.ir_version() <= 0) report(Kind::Invalid, source_, "missing or invalid ir_version");
    for (const auto& opset : model_.opset_import()) {
      const std::string& domain = opset.domain();
      if (domain.empty() || domain == "ai.onnx") opset_ = static_cast<int>(opset.version());
    }
    if (opset_ < 0 && model_.opset_import_size() > 0) {
      report(Kind::Unsupported, source_,
             str("operators of domain '", model_.opset_import(0).domain(), "' are unsupported"));
    } else if (opset_ < 0) {
      report(Kind::Invalid, source_, "no opset_import for the default ONNX domain");
    } else if (opset_ > kMaxOpset) {
      report(Kind::Unsupported, source_,
             str("opset ", opset_, " is newer than the ", kMaxOpset, " Lathe supports",
                 ops_newer_than_lathe()));
    } else if (opset_ < 1) {
      report(Kind::Invalid, source_, str("opset ", opset_, " does not exist"));
    }
  }

  // Gives the inputs' symbolic dimensions their values (input_shapes.h).
  void apply_input_overrides() {
    GivenInputShapes given;
    given.overrides = options_.input_shapes;
    for (const auto& [name, value] : options_.frozen_inputs)
      given.overrides.emplace(name, value.shape());
    given.arrays = options_.input_array_shapes;
    given.unfitting_arrays_are_notes = options_.unfitting_arrays_are_notes;
    ResolvedInputShapes resolved = apply_input_shapes(*model_.mutable_graph(), given);
    for (Diagnostic& d : resolved.problems) diagnostics_.push_back(std::move(d));
    // What was assumed matters only to an import that can go on.
    if (options_.note && resolved.problems.empty())
      for (const std::string& note : resolved.notes) options_.note(note);
    open_inputs_ = std::move(resolved.open);
    for (const auto& [name, shape] : resolved.shapes) resolved_inputs_.insert(name);
  }

  // libonnx's check_model(ModelProto) resolves external data against the
  // working directory; this is the same check with the model's own folder.
  void check_model_in_its_folder() {
    if (model_.ir_version() > onnx::IR_VERSION)
      throw std::runtime_error(
          str("ir_version ", model_.ir_version(), " is newer than libonnx's ", onnx::IR_VERSION));
    onnx::checker::CheckerContext ctx;
    ctx.set_ir_version(static_cast<int>(model_.ir_version()));
    std::unordered_map<std::string, int> opsets;
    for (const auto& opset : model_.opset_import())
      opsets[opset.domain()] = static_cast<int>(opset.version());
    ctx.set_opset_imports(opsets);
    ctx.set_model_dir(base_dir_);
    onnx::checker::LexicalScopeContext lexical;
    onnx::checker::check_graph(model_.graph(), ctx, lexical);
    if (model_.ir_version() >= 8) onnx::checker::check_model_local_functions(model_, ctx, lexical);
  }

  // A model that libonnx knows whole (its opset and IR version) gets libonnx's
  // checker; a newer one gets it node by node, for the nodes that mean what
  // they meant at opset 17, and Lathe's own inference checks the rest.
  void run_onnx_checker() {
    if (opset_ > kLibonnxOpset || model_.ir_version() > onnx::IR_VERSION) {
      check_nodes_libonnx_knows();
      return;
    }
    try {
      check_model_in_its_folder();
    } catch (const std::exception& e) {
      report(Kind::Invalid, source_, str("ONNX checker: ", first_line(e.what())));
      checker_failed_ = true;
    }
  }

  void check_nodes_libonnx_knows() {
    onnx::checker::CheckerContext ctx;
    ctx.set_ir_version(static_cast<int>(std::min<int64_t>(model_.ir_version(), onnx::IR_VERSION)));
    std::unordered_map<std::string, int> opsets;
    for (const auto& opset : model_.opset_import())
      opsets[opset.domain()] = static_cast<int>(opset.version());
    opsets[""] = std::min(opset_, kLibonnxOpset);
    ctx.set_opset_imports(opsets);
    ctx.set_model_dir(base_dir_);
    onnx::checker::LexicalScopeContext lexical;
    for (int i = 0; i < model_.graph().node_size(); ++i) {
      const onnx::NodeProto& node = model_.graph().node(i);
      const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
      bool has_subgraph = false;
      for (const auto& a : node.attribute()) has_subgraph |= a.has_g() || a.graphs_size() > 0;
      if (!default_domain || has_subgraph || !same_meaning_as_libonnx(node.op_type(), opset_) ||
          opset_introducing(node.op_type()))
        continue;
      try {
        onnx::checker::check_node(node, ctx, lexical);
      } catch (const std::exception& e) {
        std::string name =
            node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name();
        report(Kind::Invalid, str("node ", name, " (", node.op_type(), ")"),
               str("ONNX checker (opset ", kLibonnxOpset, " schema): ", first_line(e.what())));
      }
    }
  }

  // For a model refused for its opset: the ops it uses that came after Lathe's
  // newest opset, as " (it uses Swish from opset 24)".
  std::string ops_newer_than_lathe() const {
    std::set<std::string> named;
    for (const auto& node : model_.graph().node()) {
      auto since = opset_introducing(node.op_type());
      if (since && *since > kMaxOpset) named.insert(str(node.op_type(), " from opset ", *since));
    }
    if (named.empty()) return "";
    std::string list;
    for (const std::string& s : named) list += (list.empty() ? "" : ", ") + s;
    return " (it uses " + list + ")";
  }

  // Types every value as libonnx's strict shape inference does and reports
  // where Lathe's inference disagrees, naming the producing node.
  void cross_check_with_onnx_inference() {
    try {
      onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*strict_mode=*/1,
                                         /*data_prop=*/true);
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), strict);
    } catch (const std::exception& e) {
      // Strict inference rejects some models that older exporters wrote and
      // every runtime accepts (an int64 Constant under opset 6). Lathe's own
      // inference has the last word; ONNX's complaint is kept as context for
      // a disagreement found below.
      onnx_inference_error_ = str("ONNX shape inference: ", first_line(e.what()));
      onnx::ShapeInferenceOptions lenient(false, 0, true);
      try {
        onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), lenient);
      } catch (const std::exception&) {
      }
    }
    std::unordered_map<std::string, OnnxType> onnx_types;
    for (const auto& vi : model_.graph().value_info()) onnx_types[vi.name()] = onnx_type(vi.type());
    for (const auto& vi : model_.graph().output()) onnx_types[vi.name()] = onnx_type(vi.type());
    for (const Value& v : graph_.values) {
      auto it = onnx_types.find(v.name);
      if (it == onnx_types.end() || it->second.elem_type == 0 || agrees(it->second, v.type))
        continue;
      std::string where = v.producer >= 0 ? "node " + describe_node(graph_.nodes[v.producer])
                                          : "value '" + v.name + "'";
      report(Kind::Invalid, where,
             str("output '", v.name, "' is ", v.type.to_string(), " but ONNX infers ",
                 describe(it->second)));
    }
    if (!diagnostics_.empty() && !onnx_inference_error_.empty())
      report(Kind::Invalid, source_, onnx_inference_error_);
  }

  static bool agrees(const OnnxType& t, const TensorType& type) {
    // The model's float16 values are computed in float32.
    const std::optional<DType> dtype = dtype_from_onnx(t.elem_type);
    if (!dtype || compute_dtype(*dtype) != compute_dtype(type.dtype)) return false;
    if (!t.has_shape) return true;
    if (t.dims.size() != type.shape.size()) return false;
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] >= 0 && t.dims[i] != type.shape[i]) return false;
    return true;
  }

  static std::string describe(const OnnxType& t) {
    std::string s = onnx_dtype_name(t.elem_type);
    if (!t.has_shape) return s;
    s += "[";
    for (size_t i = 0; i < t.dims.size(); ++i)
      s += (i ? "," : "") + (t.dims[i] < 0 ? std::string("?") : std::to_string(t.dims[i]));
    return s + "]";
  }

  static std::string first_line(const std::string& s) {
    std::string line = s.substr(0, s.find('\n'));
    return line.size() > 300 ? line.substr(0, 300) + "..." : line;
  }

  void import_initializers() {
    for (const auto& init : model_.graph().initializer()) {
      std::string where = "initializer '" + init.name() + "'";
      if (init.name().empty()) {
        report(Kind::Invalid, where, "has no name");
        continue;
      }
      try {
        define(init.name(), storage_.add_constant(init.name(), tensor_from_proto(init, base_dir_)));
      } catch (const UnsupportedError& e) {
        report(Kind::Unsupported, where, e.what());
        poison(init.name());
      } catch (const Error& e) {
        report(Kind::Invalid, where, e.what());
        poison(init.name());
      }
    }
  }

  void import_inputs() {
    for (const auto& input : model_.graph().input()) {
      const std::string& name = input.name();
      if (by_name_.count(name) || poisoned_names_.count(name)) continue;  // an initializer
      std::string where = "input '" + name + "'";
      if (input.type().has_tensor_type() && !resolved_inputs_.count(name)) {
        poison(name);  // apply_input_overrides reported why
        continue;
      }
      auto frozen = options_.frozen_inputs.find(name);
      if (frozen != options_.frozen_inputs.end()) {
        define(name, storage_.add_constant(name, frozen->second));
        continue;
      }
      auto shaping = options_.shape_input_values.find(name);
      if (shaping != options_.shape_input_values.end() && decides_a_shape(name)) {
        define(name, storage_.add_constant(name, shaping->second));
        if (options_.note)
          options_.note(
              str("input '", name, "' decides ",
                  decides_a_condition(name) ? "an If's branch or a Loop's length" : "a shape",
                  "; the model is compiled for the value given, ", value_text(shaping->second)));
        continue;
      }
      if (!input.type().has_tensor_type()) {
        report(Kind::Unsupported, where, "is not a tensor (sequences and maps are unsupported)");
        poison(name);
        continue;
      }
      const auto& tt = input.type().tensor_type();
      auto dtype = dtype_from_onnx(tt.elem_type());
      if (!dtype) {
        report(Kind::Unsupported, where,
               "has unsupported dtype " + onnx_dtype_name(tt.elem_type()));
        poison(name);
        continue;
      }
      // apply_input_overrides gave every dimension its size.
      Shape shape;
      for (const auto& d : tt.shape().dim()) shape.push_back(d.dim_value());
      ValueId id = graph_.add_value(name, {*dtype, shape});
      graph_.inputs.push_back(id);
      // A float16 input is read as float32.
      const ValueId read = storage_.widened(id);
      if (read == kNoValue)
        poison(name);
      else
        define(name, read);
    }
  }

  // Whether a node reads the value at one of its op's shape-deciding
  // positions, or an If's condition or a Loop's trip count or condition
  // depends on it: Lathe compiles the branch a known condition takes and
  // unrolls a loop of known length.
  bool decides_a_shape(const std::string& name) const {
    if (decides_a_condition(name)) return true;
    for (const auto& node : model_.graph().node()) {
      const OpDef* op = registry_.find(node.op_type());
      std::vector<int> positions = op ? op->shape_inputs : legacy_shape_inputs(node.op_type());
      for (int i : positions)
        if (i < node.input_size() && node.input(i) == name) return true;
    }
    return false;
  }

  bool decides_a_condition(const std::string& name) const {
    std::unordered_map<std::string, const onnx::NodeProto*> producer;
    std::vector<std::string> work;
    for (const auto& node : model_.graph().node()) {
      for (const std::string& out : node.output()) producer[out] = &node;
      if (node.op_type() == "If" && node.input_size() > 0) work.push_back(node.input(0));
      if (node.op_type() == "Loop")
        for (int i = 0; i < std::min(node.input_size(), 2); ++i) work.push_back(node.input(i));
    }
    std::set<std::string> seen;
    while (!work.empty()) {
      std::string v = std::move(work.back());
      work.pop_back();
      if (v.empty() || !seen.insert(v).second) continue;
      if (v == name) return true;
      if (auto it = producer.find(v); it != producer.end())
        for (const std::string& in : it->second->input()) work.push_back(in);
    }
    return false;
  }

  std::string unique_node_name(const onnx::NodeProto& proto, int index) {
    return unique_node_name(proto.name().empty() ? proto.op_type() + "_" + std::to_string(index)
                                                 : proto.name());
  }
  std::string unique_node_name(const std::string& base) {
    std::string name = base;
    for (int k = 1; !node_names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  void import_node(const onnx::NodeProto& proto, int index) {
    // Ops of other domains (ONNX Runtime's com.microsoft contrib ops) are
    // named with their domain; only plugins define them.
    const bool default_domain = proto.domain().empty() || proto.domain() == "ai.onnx";
    if (default_domain && proto.op_type() == "If") {
      import_if(proto, index);
      return;
    }
    if (default_domain && proto.op_type() == "Loop") {
      import_loop(proto, index);
      return;
    }
    Node node;
    node.name = unique_node_name(proto, index);
    node.op = default_domain ? proto.op_type() : proto.domain() + "." + proto.op_type();
    const std::string where = "node " + describe_node(node);
    bool usable = true;

    if (!default_domain && !registry_.find(node.op)) {
      report(Kind::Unsupported, where,
             str("unsupported op ", node.op,
                 " (a plugin may provide it: lathe --plugin NAME, with the plugin's library on "
                 "LATHE_PLUGIN_PATH or in Lathe's plugin folder)"));
      usable = false;
    } else if (!registry_.find(node.op) && !is_rewritten_op(node.op)) {
      auto since = opset_introducing(node.op);
      report(Kind::Unsupported, where,
             since ? str("operator ", node.op, " (opset ", *since, ") is not supported")
                   : std::string("operator is not supported"));
      usable = false;
    } else if (auto changed = last_meaning_change(node.op, opset_);
               changed && !handles_newer_form(node.op, *changed)) {
      report(Kind::Unsupported, where,
             str("operator ", node.op, " in its opset-", *changed, " form is not supported"));
      usable = false;
    }
    for (const std::string& in : proto.input()) {
      if (in.empty()) {
        node.inputs.push_back(kNoValue);
      } else if (poisoned_names_.count(in)) {
        usable = false;  // its producer already reported a problem
      } else if (auto it = by_name_.find(in); it != by_name_.end()) {
        node.inputs.push_back(it->second);
      } else {
        if (!checker_failed_)
          report(Kind::Invalid, where, str("input '", in, "' is not produced by any earlier node"));
        usable = false;
      }
    }
    std::optional<DType> stored;  // a float16 output computed in float32
    if (usable) {
      try {
        node.attrs = convert_attributes(proto, opset_, base_dir_);
        stored = storage_.prepare(node);
      } catch (const UnsupportedError& e) {
        report(Kind::Unsupported, where, e.what());
        usable = false;
      } catch (const Error& e) {
        report(Kind::Invalid, where, e.what());
        usable = false;
      }
    }
    if (!usable) {
      for (const std::string& out : proto.output()) poison(out);
      return;
    }
    for (const std::string& out : proto.output()) {
      if (out.empty()) {
        node.outputs.push_back(kNoValue);  // an omitted optional output
        continue;
      }
      if (by_name_.count(out)) {
        report(Kind::Invalid, where, str("output '", out, "' is already defined"));
        poison(out);
        continue;
      }
      node.outputs.push_back(graph_.add_value(out, {}));
    }
    while (!node.outputs.empty() && node.outputs.back() == kNoValue) node.outputs.pop_back();
    if (node.op == "Constant") {
      import_constant(node, where);
      if (stored && !node.outputs.empty()) storage_.note_constant(node.outputs[0], *stored);
      return;
    }
    // The rewritten nodes write the node's own output values.
    const std::vector<ValueId> outputs = node.outputs;
    std::vector<Node> nodes;
    try {
      nodes = upgrade_node(std::move(node), opset_, hooks());
    } catch (const Error& e) {
      report(Kind::Invalid, where, e.what());
      for (const std::string& out : proto.output()) poison(out);
      return;
    }
    for (Node& n : nodes) {
      const Node typed = n;
      if (!add_typed_node(std::move(n))) {
        for (const std::string& out : proto.output()) poison(out);
        return;
      }
      storage_.note_node(typed, stored);
    }
    size_t k = 0;
    for (const std::string& out : proto.output())
      if (!poisoned_names_.count(out) && k < outputs.size() && !out.empty()) {
        // A Cast to float16 rounds; its readers read the rounded value widened.
        const ValueId read = storage_.widened(outputs[k++]);
        if (read == kNoValue)
          poison(out);
        else
          define(out, read);
      } else if (out.empty()) {
        ++k;
      }
  }

  // An If whose condition folds to a constant is replaced by the branch it
  // takes: the branch's nodes are imported in its place, and its outputs
  // become the If's through Identity nodes (which simplification removes).
  void import_if(const onnx::NodeProto& proto, int index) {
    const std::string name = unique_node_name(proto, index);
    const std::string where = "node " + name + " (If)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
    };
    if (proto.input_size() != 1 || proto.input(0).empty())
      return give_up(Kind::Invalid, "If takes exactly one input, the condition");
    const std::string& cond = proto.input(0);
    if (poisoned_names_.count(cond)) return give_up(Kind::Invalid, "");
    auto it = by_name_.find(cond);
    if (it == by_name_.end())
      return give_up(Kind::Invalid, str("input '", cond, "' is not produced by any earlier node"));
    const Value& c = graph_.value(it->second);
    if (!c.is_constant())
      return give_up(Kind::Unsupported,
                     str("its condition '", cond,
                         "' depends on the model's inputs at run time; Lathe compiles an If only "
                         "when the condition folds at compile time (give the inputs it depends "
                         "on with --inputs, which freezes them)"));
    if (c.constant.numel() != 1)
      return give_up(Kind::Invalid, str("the condition '", cond, "' has ", c.constant.numel(),
                                        " elements, not one"));
    const bool taken = c.constant.to_int64_vector()[0] != 0;
    const std::string branch_name = taken ? "then_branch" : "else_branch";
    const onnx::GraphProto* branch = nullptr;
    for (const auto& a : proto.attribute())
      if (a.name() == branch_name && a.has_g()) branch = &a.g();
    if (!branch) return give_up(Kind::Invalid, str("has no ", branch_name));
    if (branch->output_size() != proto.output_size())
      return give_up(Kind::Invalid, str(branch_name, " has ", branch->output_size(),
                                        " outputs, the If ", proto.output_size()));
    for (const auto& init : branch->initializer()) {
      try {
        define(init.name(), storage_.add_constant(init.name(), tensor_from_proto(init, base_dir_)));
      } catch (const Error& e) {
        report(Kind::Invalid, str(where, " ", branch_name, " initializer '", init.name(), "'"),
               e.what());
        poison(init.name());
      }
    }
    for (int i = 0; i < branch->node_size(); ++i) import_node(branch->node(i), i);
    for (int k = 0; k < proto.output_size(); ++k) {
      const std::string& out = proto.output(k);
      const std::string& from = branch->output(k).name();
      if (out.empty()) continue;
      auto produced = by_name_.find(from);
      if (poisoned_names_.count(from) || produced == by_name_.end()) {
        if (!poisoned_names_.count(from))
          report(Kind::Invalid, where, str(branch_name, " output '", from, "' is not produced"));
        poison(out);
        continue;
      }
      Node identity{str(name, "/", out), "Identity", {produced->second}, {}, {}};
      identity.outputs = {graph_.add_value(out, {})};
      const ValueId id = identity.outputs[0];
      if (add_typed_node(std::move(identity)))
        define(out, id);
      else
        poison(out);
    }
  }

  // A Loop whose trip count and condition fold is unrolled: its body is
  // imported once per iteration (each copy's names suffixed "@i"), the loop-
  // carried values threaded through, and each scan output stacked on a new
  // first axis. The condition must fold in every iteration.
  void import_loop(const onnx::NodeProto& proto, int index) {
    static constexpr int64_t kMaxUnrolledNodes = 50000;
    const std::string name = unique_node_name(proto, index);
    const std::string where = "node " + name + " (Loop)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
    };
    const onnx::GraphProto* body = nullptr;
    for (const auto& a : proto.attribute())
      if (a.name() == "body" && a.has_g()) body = &a.g();
    if (!body) return give_up(Kind::Invalid, "has no body");
    if (proto.input_size() < 2)
      return give_up(Kind::Invalid, "Loop takes M, cond and the loop-carried values");
    const int carried = proto.input_size() - 2;
    const int scans = body->output_size() - 1 - carried;
    if (body->input_size() != carried + 2 || scans < 0 || proto.output_size() > carried + scans)
      return give_up(Kind::Invalid,
                     str("the body has ", body->input_size(), " inputs and ", body->output_size(),
                         " outputs for ", carried, " loop-carried values"));
    // A constant scalar input (M or cond) as an integer; nullopt when omitted.
    auto folded = [&](const std::string& in, const char* what) -> std::optional<int64_t> {
      if (in.empty()) return std::nullopt;
      auto it = by_name_.find(in);
      if (it == by_name_.end() || poisoned_names_.count(in)) throw Error("");
      const Value& v = graph_.value(it->second);
      if (!v.is_constant() || v.constant.numel() != 1)
        throw UnsupportedError(str(what, " '", in,
                                   "' depends on the model's inputs at run time; Lathe unrolls a "
                                   "Loop only when its trip count and condition fold"));
      return v.constant.to_int64_vector()[0];
    };
    std::optional<int64_t> trips, cond;
    try {
      trips = folded(proto.input(0), "the trip count");
      cond = folded(proto.input(1), "the condition");
    } catch (const UnsupportedError& e) {
      return give_up(Kind::Unsupported, e.what());
    } catch (const Error&) {
      return give_up(Kind::Invalid, "");
    }
    if (!trips && !cond) return give_up(Kind::Invalid, "has neither a trip count nor a condition");
    std::vector<ValueId> state;
    for (int k = 0; k < carried; ++k) {
      auto it = by_name_.find(proto.input(k + 2));
      if (it == by_name_.end() || poisoned_names_.count(proto.input(k + 2)))
        return give_up(Kind::Invalid, "");
      state.push_back(it->second);
    }
    std::vector<std::vector<ValueId>> scanned(static_cast<size_t>(scans));
    int64_t i = 0;
    for (; (!trips || i < *trips) && cond.value_or(1) != 0; ++i) {
      if ((i + 1) * std::max(body->node_size(), 1) > kMaxUnrolledNodes)
        return give_up(Kind::Unsupported, str("runs more than ", i,
                                              " iterations; Lathe unrolls a Loop at import, up "
                                              "to ",
                                              kMaxUnrolledNodes, " nodes"));
      const std::string suffix = "@" + std::to_string(i);
      const onnx::GraphProto step = renamed_copy(*body, suffix);
      define(step.input(0).name(), graph_.add_constant(step.input(0).name(), Tensor::scalar(i)));
      Tensor c(DType::Bool, {});
      c.data<bool>()[0] = true;
      define(step.input(1).name(), graph_.add_constant(step.input(1).name(), c));
      for (int k = 0; k < carried; ++k) define(step.input(k + 2).name(), state[k]);
      for (const auto& init : step.initializer()) {
        try {
          define(init.name(),
                 storage_.add_constant(init.name(), tensor_from_proto(init, base_dir_)));
        } catch (const Error& e) {
          return give_up(Kind::Invalid, str("body initializer '", init.name(), "': ", e.what()));
        }
      }
      for (int n = 0; n < step.node_size(); ++n) import_node(step.node(n), n);
      std::vector<ValueId> outs;
      for (const auto& out : step.output()) {
        auto it = by_name_.find(out.name());
        if (it == by_name_.end() || poisoned_names_.count(out.name()))
          return give_up(Kind::Invalid,
                         poisoned_names_.count(out.name())
                             ? ""
                             : str("body output '", out.name(), "' is not produced"));
        outs.push_back(it->second);
      }
      const Value& next = graph_.value(outs[0]);
      if (!next.is_constant() || next.constant.numel() != 1)
        return give_up(Kind::Unsupported,
                       str("the condition the body computes ('", step.output(0).name(),
                           "') depends on run-time values; Lathe unrolls a Loop only when it "
                           "folds"));
      cond = next.constant.to_int64_vector()[0];
      for (int k = 0; k < carried; ++k) state[k] = outs[static_cast<size_t>(k + 1)];
      for (int k = 0; k < scans; ++k)
        scanned[k].push_back(outs[static_cast<size_t>(1 + carried + k)]);
    }
    auto write = [&](const std::string& out, const std::string& op, std::vector<ValueId> inputs,
                     Attributes attrs) {
      Node node{str(name, "/", out),
                op,
                std::move(inputs),
                {graph_.add_value(out, {})},
                std::move(attrs)};
      const ValueId id = node.outputs[0];
      if (add_typed_node(std::move(node)))
        define(out, id);
      else
        poison(out);
    };
    for (int k = 0; k < proto.output_size(); ++k) {
      const std::string& out = proto.output(k);
      if (out.empty()) continue;
      if (k < carried) {
        write(out, "Identity", {state[k]}, {});
        continue;
      }
      std::vector<ValueId> parts;
      const ValueId axis =
          graph_.add_constant(out + "/axes", Tensor::from_vector(std::vector<int64_t>{0}, {1}));
      if (scanned[k - carried].empty()) {
        give_up(Kind::Unsupported, str("scan output '", out, "' of a loop that runs no iteration"));
        return;
      }
      for (size_t it = 0; it < scanned[k - carried].size(); ++it) {
        Node unsqueeze{str(name, "/", out, "@", it),
                       "Unsqueeze",
                       {scanned[k - carried][it], axis},
                       {graph_.add_value(str(out, "@", it), {})},
                       {}};
        parts.push_back(unsqueeze.outputs[0]);
        if (!add_typed_node(std::move(unsqueeze))) return give_up(Kind::Invalid, "");
      }
      Attributes concat;
      concat.set("axis", int64_t{0});
      write(out, "Concat", std::move(parts), std::move(concat));
    }
  }

  UpgradeHooks hooks() {
    UpgradeHooks h;
    h.add_constant = [this](const std::string& name, Tensor t) {
      return graph_.add_constant(name, std::move(t));
    };
    h.constant_of = [this](ValueId id) -> const Tensor* {
      if (id == kNoValue || !graph_.value(id).is_constant()) return nullptr;
      return &graph_.value(id).constant;
    };
    h.add_value = [this](const std::string& name) { return graph_.add_value(name, {}); };
    h.type_of = [this](ValueId id) -> const TensorType* {
      return id == kNoValue ? nullptr : &graph_.type(id);
    };
    return h;
  }

  void import_constant(Node& node, const std::string& where) {
    try {
      Tensor value;
      const Attributes& a = node.attrs;
      if (a.has("value"))
        value = a.get_tensor("value");
      else if (a.has("value_float"))
        value = Tensor::scalar(a.get_float("value_float", 0));
      else if (a.has("value_int"))
        value = Tensor::scalar(a.get_int("value_int", 0));
      else if (a.has("value_floats")) {
        auto v = a.get_floats("value_floats");
        value = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      } else if (a.has("value_ints")) {
        auto v = a.get_ints("value_ints");
        value = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      } else {
        fail_unsupported("Constant without a numeric value (strings and sparse are unsupported)");
      }
      LATHE_CHECK(node.outputs.size() == 1, "Constant must have one output");
      Value& out = graph_.value(node.outputs[0]);
      out.type = value.type();
      out.constant = value;
      define(out.name, node.outputs[0]);
    } catch (const UnsupportedError& e) {
      report(Kind::Unsupported, where, e.what());
      for (ValueId out : node.outputs) poison(graph_.value(out).name);
    } catch (const Error& e) {
      report(Kind::Invalid, where, e.what());
      for (ValueId out : node.outputs) poison(graph_.value(out).name);
    }
  }

  // Infers the node's output types, checks them against ONNX's inference, and
  // folds it when its inputs are constant and its outputs small.
  bool add_typed_node(Node node) {
    const std::string where = "node " + describe_node(node);
    const OpDef* op = registry_.find(node.op);
    if (!op) {
      report(Kind::Unsupported, where, "operator is not supported");
      return false;
    }
    std::vector<TensorType> types;
    try {
      types = infer_node_types(*op, graph_, node);
      for (const TensorType& type : types) type.numel();  // a shape too large is reported here
    } catch (const UnsupportedError& e) {
      report(Kind::Unsupported, where, e.what());
      return false;
    } catch (const Error& e) {
      report(Kind::Invalid, where, e.what());
      return false;
    }
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (node.outputs[k] != kNoValue) graph_.value(node.outputs[k]).type = types[k];
    switch (try_fold(*op, node, where)) {
      case Fold::Done:
        return true;
      case Fold::Failed:
        return false;
      case Fold::NotFoldable:
        break;
    }
    graph_.add_node(std::move(node));
    return true;
  }

  enum class Fold { Done, NotFoldable, Failed };

  // Replaces the node's outputs by constants when its inputs are constant.
  Fold try_fold(const OpDef& op, const Node& node, const std::string& where) {
    bool foldable = op.kernel != nullptr;
    int64_t out_elems = 0;
    for (ValueId out : node.outputs)
      if (out != kNoValue) out_elems += graph_.type(out).numel();
    // Shape and Size read only the static type, so they fold whatever their input.
    bool type_only = node.op == "Shape" || node.op == "Size";
    for (size_t i = 0; i < node.inputs.size() && !type_only; ++i)
      if (node.inputs[i] != kNoValue && !graph_.value(node.inputs[i]).is_constant())
        foldable = false;
    if (!foldable || out_elems > options_.fold_limit) return Fold::NotFoldable;
    std::vector<Tensor> placeholders;
    std::vector<const Tensor*> args;
    placeholders.reserve(node.inputs.size());
    for (ValueId in : node.inputs) {
      if (in == kNoValue) {
        args.push_back(nullptr);
      } else if (graph_.value(in).is_constant()) {
        args.push_back(&graph_.value(in).constant);
      } else {
        // Shape/Size read only the shape of this zero-filled stand-in.
        placeholders.push_back(Tensor(graph_.type(in)));
        args.push_back(&placeholders.back());
      }
    }
    std::vector<TensorType> types;
    for (ValueId out : node.outputs)
      types.push_back(out == kNoValue ? TensorType{} : graph_.type(out));
    try {
      std::vector<Tensor> results = reference::run_node(op, node, args, types);
      for (size_t k = 0; k < node.outputs.size(); ++k)
        if (node.outputs[k] != kNoValue)
          graph_.value(node.outputs[k]).constant = std::move(results[k]);
    } catch (const UnsupportedError&) {
      return Fold::NotFoldable;  // left for the executor, which will say the same if run
    } catch (const Error& e) {
      report(Kind::Invalid, where, str("while folding constants: ", e.what()));
      return Fold::Failed;
    }
    return Fold::Done;
  }

  void import_outputs() {
    for (const auto& out : model_.graph().output()) {
      if (poisoned_names_.count(out.name())) continue;
      auto it = by_name_.find(out.name());
      if (it == by_name_.end() || it->second == kNoValue) {
        report(Kind::Invalid, "output '" + out.name() + "'", "is not produced by any node");
        continue;
      }
      try {
        graph_.outputs.push_back(storage_.output(it->second, out.type().tensor_type().elem_type()));
      } catch (const Error& e) {
        report(Kind::Invalid, "output '" + out.name() + "'", e.what());
      }
    }
    if (graph_.outputs.empty() && diagnostics_.empty())
      report(Kind::Invalid, source_, "the graph has no outputs");
  }

  void define(const std::string& name, ValueId id) { by_name_[name] = id; }
  void poison(const std::string& name) {
    if (!name.empty()) poisoned_names_.insert(name);
  }

  onnx::ModelProto& model_;
  std::string source_;
  std::string base_dir_;
  const ImportOptions& options_;
  const OpRegistry& registry_;
  Graph graph_;
  int opset_ = -1;
  bool checker_failed_ = false;
  std::string onnx_inference_error_;
  std::vector<Diagnostic> diagnostics_;
  std::unordered_map<std::string, ValueId> by_name_;
  std::set<std::string> poisoned_names_;
  std::set<std::string> node_names_;
  // Runtime inputs whose shapes are known in full, and those left open.
  std::set<std::string> resolved_inputs_;
  std::vector<DeclaredInput> open_inputs_;
  StorageFloats storage_{graph_, [this](Node node) { return add_typed_node(std::move(node)); },
                         [this](const std::string& base) { return unique_node_name(base); }};
};

}  // namespace

Graph import_model_bytes(const std::string& bytes, const std::string& source,
                         const std::string& base_dir, const ImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty())
    throw DiagnosticError(str("cannot import ", source, ":"),
                          {{Kind::Invalid, source, "the file is empty"}});
  if (!model.ParseFromString(bytes) || !model.has_graph())
    throw DiagnosticError(str("cannot import ", source, ":"),
                          {{Kind::Invalid, source,
                            "not an ONNX model (the protobuf does not parse as a ModelProto)"}});
  Graph g = Importer(model, source, base_dir, options).run();
  g.name = model.graph().name();
  return g;
}

std::vector<ModelInput> model_inputs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) throw Error(str(path, ": not a readable ONNX model"));
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<ModelInput> inputs;
  for (const auto& input : model.graph().input())
    if (!initializers.count(input.name()))
      inputs.push_back({input.name(), input.type().has_tensor_type()});
  return inputs;
}

Graph import_model_file(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(str(path, ": cannot open"));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string dir = std::filesystem::path(path).parent_path().string();
  return import_model_bytes(bytes, path, dir.empty() ? "." : dir, options);
}

}  // namespace lathe::onnx_frontend
