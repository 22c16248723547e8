// The ONNX importer: checks, converts and types a model, node by node,
// collecting every problem before it gives up.
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
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
#include "ir/control_flow.h"
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

Tensor bool_scalar(bool value) {
  Tensor t(DType::Bool, {});
  t.data<bool>()[0] = value;
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
  // `freeze_conditions`: inputs that decide an If's or a Loop's condition are
  // frozen to their given values (ImportOptions::shape_input_values).
  Importer(onnx::ModelProto& model, std::string source, std::string base_dir,
           const ImportOptions& options, bool freeze_conditions)
      : model_(model),
        source_(std::move(source)),
        base_dir_(std::move(base_dir)),
        options_(options),
        registry_(reference::kernel_registry()),
        freeze_conditions_(freeze_conditions) {}

  // Whether an input with a given value that decides a condition was left
  // an input (and the If or Loop it decides kept for the run time).
  bool condition_inputs_left_open() const { return condition_inputs_left_open_; }
  // Hands what the import assumed to ImportOptions::note.
  void flush_notes() {
    if (options_.note)
      for (const std::string& text : notes_) options_.note(text);
    notes_.clear();
  }

  Graph run() {
    check_opset();
    if (diagnostics_.empty()) {
      sort_nodes_topologically(*model_.mutable_graph());
      apply_input_overrides();
      run_onnx_checker();
      import_initializers(model_.graph());
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
    if (resolved.problems.empty())
      for (const std::string& text : resolved.notes) note(text);
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

  // The initializers of the model's graph or of a subgraph (`where` names it
  // in diagnostics, empty for the model's).
  void import_initializers(const onnx::GraphProto& proto, const std::string& where = "") {
    for (const auto& init : proto.initializer()) {
      std::string at = (where.empty() ? "" : where + " ") + "initializer '" + init.name() + "'";
      if (init.name().empty()) {
        report(Kind::Invalid, at, "has no name");
        continue;
      }
      try {
        define(init.name(),
               storage_->add_constant(init.name(), tensor_from_proto(init, base_dir_)));
      } catch (const UnsupportedError& e) {
        report(Kind::Unsupported, at, e.what());
        poison(init.name());
      } catch (const Error& e) {
        report(Kind::Invalid, at, e.what());
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
        define(name, storage_->add_constant(name, frozen->second));
        continue;
      }
      // An input that decides only an If's branch or a Loop's length stays
      // an input, and the If or Loop runs at run time; it is frozen only on
      // the import that follows one where that could not be (import_model_bytes).
      auto shaping = options_.shape_input_values.find(name);
      const bool given = shaping != options_.shape_input_values.end();
      const bool decides_shape = given && decides_a_shape(name);
      const bool decides_condition = given && decides_a_condition(name);
      if (decides_condition && !decides_shape && !freeze_conditions_)
        condition_inputs_left_open_ = true;
      if (decides_shape || (decides_condition && freeze_conditions_)) {
        define(name, storage_->add_constant(name, shaping->second));
        note(str("input '", name, "' decides ",
                 decides_shape ? "a shape" : "an If's branch or a Loop's length",
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
      const ValueId read = storage_->widened(id);
      if (read == kNoValue)
        poison(name);
      else
        define(name, read);
    }
  }

  // Whether a node reads the value at one of its op's shape-deciding
  // positions.
  bool decides_a_shape(const std::string& name) const {
    for (const auto& node : model_.graph().node()) {
      const OpDef* op = registry_.find(node.op_type());
      std::vector<int> positions = op ? op->shape_inputs : legacy_shape_inputs(node.op_type());
      for (int i : positions)
        if (i < node.input_size() && node.input(i) == name) return true;
    }
    return false;
  }

  // Whether an If's condition or a Loop's trip count or condition depends on
  // the value.
  bool decides_a_condition(const std::string& name) {
    if (!condition_sources_) condition_sources_ = values_deciding_conditions();
    return condition_sources_->count(name) > 0;
  }

  // Every value of the model's graph that an If's condition or a Loop's trip
  // count or condition depends on, found once.
  std::set<std::string> values_deciding_conditions() const {
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
      if (auto it = producer.find(v); it != producer.end())
        for (const std::string& in : it->second->input()) work.push_back(in);
    }
    return seen;
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
        stored = storage_->prepare(node);
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
      if (stored && !node.outputs.empty()) storage_->note_constant(node.outputs[0], *stored);
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
      storage_->note_node(typed, stored);
    }
    size_t k = 0;
    for (const std::string& out : proto.output())
      if (!poisoned_names_.count(out) && k < outputs.size() && !out.empty()) {
        // A Cast to float16 rounds; its readers read the rounded value widened.
        const ValueId read = storage_->widened(outputs[k++]);
        if (read == kNoValue)
          poison(out);
        else
          define(out, read);
      } else if (out.empty()) {
        ++k;
      }
  }

  // A one-element constant's value: a condition or trip count that folded.
  // nullopt when it depends on run-time values.
  std::optional<int64_t> folded_scalar(ValueId id) const {
    const Value& v = graph_.value(id);
    if (!v.is_constant() || v.constant.numel() != 1) return std::nullopt;
    return v.constant.to_int64_vector()[0];
  }

  // The value `name` names here, or kNoValue after saying why there is none
  // (nothing more when its producer already reported a problem).
  ValueId lookup(const std::string& name, const std::string& where) {
    if (poisoned_names_.count(name)) return kNoValue;
    if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
    report(Kind::Invalid, where, str("input '", name, "' is not produced by any earlier node"));
    return kNoValue;
  }

  // Defines `out` as the one output of a new node: the Identity that hands a
  // branch's value on under the If's output name, a Loop's stacked scans.
  void define_by_node(const std::string& out, const std::string& node_name, const std::string& op,
                      std::vector<ValueId> inputs, Attributes attrs = {}) {
    Node node{node_name, op, std::move(inputs), {graph_.add_value(out, {})}, std::move(attrs)};
    const ValueId id = node.outputs[0];
    if (add_typed_node(std::move(node)))
      define(out, id);
    else
      poison(out);
  }

  static const onnx::GraphProto* graph_attribute(const onnx::NodeProto& proto,
                                                 const std::string& name) {
    for (const auto& a : proto.attribute())
      if (a.name() == name && a.has_g()) return &a.g();
    return nullptr;
  }

  // The values of this scope that `subgraphs` read from outside themselves,
  // by name; nullopt after reporting one that is missing.
  std::optional<std::map<std::string, ValueId>> outer_reads(
      const std::vector<const onnx::GraphProto*>& subgraphs, const std::string& where) {
    std::map<std::string, ValueId> reads;
    bool missing = false;
    for (const onnx::GraphProto* g : subgraphs)
      for (const std::string& name : outer_names_read(*g)) {
        const ValueId id = lookup(name, where);
        if (id == kNoValue)
          missing = true;
        else
          reads.emplace(name, id);
      }
    if (missing) return std::nullopt;
    return reads;
  }

  // The values a kept subgraph reads from this scope that are known only at
  // run time: the control-flow node passes them in (ir/control_flow.h).
  std::vector<std::pair<std::string, ValueId>> run_time_captures(
      const std::map<std::string, ValueId>& reads) const {
    std::vector<std::pair<std::string, ValueId>> captures;
    for (const auto& [name, id] : reads)
      if (!graph_.value(id).is_constant()) captures.emplace_back(name, id);
    return captures;
  }

  // Imports `proto` as a graph of its own (an If's branch, a Loop's body).
  // Its inputs are `formal` (the ONNX graph's own inputs, typed) followed by
  // `captures`; the constants it reads from enclosing scopes are copied in,
  // so it folds and compiles as any graph. nullptr after reporting problems.
  std::shared_ptr<const Graph> import_subgraph(
      const onnx::GraphProto& proto, const std::string& name, const std::vector<TensorType>& formal,
      const std::vector<std::pair<std::string, ValueId>>& captures,
      const std::map<std::string, ValueId>& reads) {
    const size_t problems = diagnostics_.size();
    Graph sub;
    sub.name = name;
    // What the subgraph sees from this scope, taken before switching to it.
    std::vector<std::pair<std::string, Tensor>> constants;
    for (const auto& [read, id] : reads)
      if (graph_.value(id).is_constant()) constants.emplace_back(read, graph_.value(id).constant);
    std::vector<std::pair<std::string, TensorType>> captured;
    for (const auto& [read, id] : captures) captured.emplace_back(read, graph_.type(id));

    std::swap(graph_, sub);
    auto outer_names = std::exchange(by_name_, {});
    auto outer_poisoned = std::exchange(poisoned_names_, {});
    auto outer_storage = std::exchange(storage_, make_storage());
    for (int i = 0; i < proto.input_size() && i < static_cast<int>(formal.size()); ++i) {
      const ValueId id = graph_.add_value(proto.input(i).name(), formal[static_cast<size_t>(i)]);
      graph_.inputs.push_back(id);
      define(proto.input(i).name(), id);
    }
    for (const auto& [read, type] : captured) {
      const ValueId id = graph_.add_value(read, type);
      graph_.inputs.push_back(id);
      define(read, id);
    }
    for (const auto& [read, value] : constants) define(read, graph_.add_constant(read, value));
    import_initializers(proto, name);
    for (int i = 0; i < proto.node_size(); ++i) import_node(proto.node(i), i);
    for (const auto& out : proto.output()) {
      const ValueId id = lookup(out.name(), str(name, " output '", out.name(), "'"));
      if (id != kNoValue) graph_.outputs.push_back(id);
    }
    std::swap(graph_, sub);
    by_name_ = std::move(outer_names);
    poisoned_names_ = std::move(outer_poisoned);
    storage_ = std::move(outer_storage);
    if (diagnostics_.size() != problems) return nullptr;
    sub.remove_unused_values();
    return std::make_shared<const Graph>(std::move(sub));
  }

  // An If whose condition folds to a constant is replaced by the branch it
  // takes: the branch's nodes are imported in its place, and its outputs
  // become the If's through Identity nodes (which simplification removes).
  // Otherwise both branches become subgraphs of an If node, run at run time.
  void import_if(const onnx::NodeProto& proto, int index) {
    const std::string name = unique_node_name(proto, index);
    const std::string where = "node " + name + " (If)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
    };
    if (proto.input_size() != 1 || proto.input(0).empty())
      return give_up(Kind::Invalid, "If takes exactly one input, the condition");
    const ValueId cond = lookup(proto.input(0), where);
    if (cond == kNoValue) return give_up(Kind::Invalid, "");
    const onnx::GraphProto* branches[2] = {graph_attribute(proto, "then_branch"),
                                           graph_attribute(proto, "else_branch")};
    const char* branch_names[2] = {"then_branch", "else_branch"};
    for (int b = 0; b < 2; ++b) {
      if (!branches[b]) return give_up(Kind::Invalid, str("has no ", branch_names[b]));
      if (branches[b]->output_size() != proto.output_size())
        return give_up(Kind::Invalid, str(branch_names[b], " has ", branches[b]->output_size(),
                                          " outputs, the If ", proto.output_size()));
    }
    if (graph_.type(cond).numel() != 1)
      return give_up(Kind::Invalid, str("the condition '", proto.input(0), "' has ",
                                        graph_.type(cond).numel(), " elements, not one"));
    const std::optional<int64_t> folded = folded_scalar(cond);
    if (!folded) return keep_if(proto, name, cond, branches);

    const int taken = *folded != 0 ? 0 : 1;
    const onnx::GraphProto& branch = *branches[taken];
    import_initializers(branch, str(where, " ", branch_names[taken]));
    for (int i = 0; i < branch.node_size(); ++i) import_node(branch.node(i), i);
    for (int k = 0; k < proto.output_size(); ++k) {
      const std::string& out = proto.output(k);
      if (out.empty()) continue;
      const std::string& from = branch.output(k).name();
      const ValueId produced = lookup(from, str(where, " ", branch_names[taken], " output"));
      if (produced == kNoValue)
        poison(out);
      else
        define_by_node(out, str(name, "/", out), "Identity", {produced});
    }
  }

  // An If on a run-time condition: both branches are imported as subgraphs,
  // which must give the same output types.
  void keep_if(const onnx::NodeProto& proto, const std::string& name, ValueId cond,
               const onnx::GraphProto* const (&branches)[2]) {
    const std::string where = "node " + name + " (If)";
    auto give_up = [&] {
      for (const std::string& out : proto.output()) poison(out);
    };
    const auto reads = outer_reads({branches[0], branches[1]}, where);
    if (!reads) return give_up();
    const auto captures = run_time_captures(*reads);
    Node node{name, kIfOp, {cond}, {}, {}};
    for (const auto& [read, id] : captures) node.inputs.push_back(id);
    for (int b = 0; b < 2; ++b) {
      const std::string role = b == 0 ? "then" : "else";
      auto sub = import_subgraph(*branches[b], str(name, "/", role), {}, captures, *reads);
      if (!sub) return give_up();
      node.subgraphs.push_back(std::move(sub));
    }
    add_control_flow_node({proto.output().begin(), proto.output().end()}, std::move(node));
  }

  // Adds a kept If or Loop whose outputs the ONNX node names `names` (an
  // omitted one, "", still gets a value).
  void add_control_flow_node(const std::vector<std::string>& names, Node node) {
    for (size_t k = 0; k < names.size(); ++k)
      node.outputs.push_back(
          graph_.add_value(names[k].empty() ? str(node.name, "/unused", k) : names[k], {}));
    const std::vector<ValueId> outputs = node.outputs;
    if (!add_typed_node(std::move(node))) {
      for (const std::string& out : names) poison(out);
      return;
    }
    for (size_t k = 0; k < names.size(); ++k)
      if (!names[k].empty()) define(names[k], outputs[k]);
  }

  // A Loop whose trip count and condition fold is unrolled: its body is
  // imported once per iteration (each copy's names suffixed "@i"), the loop-
  // carried values threaded through, and each scan output stacked on a new
  // first axis. When a condition does not fold, or the loop is too long to
  // unroll, the Loop is kept and its body runs at run time.
  void import_loop(const onnx::NodeProto& proto, int index) {
    const std::string name = unique_node_name(proto, index);
    const std::string where = "node " + name + " (Loop)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
    };
    const onnx::GraphProto* body = graph_attribute(proto, "body");
    if (!body) return give_up(Kind::Invalid, "has no body");
    if (proto.input_size() < 2)
      return give_up(Kind::Invalid, "Loop takes M, cond and the loop-carried values");
    const int carried = proto.input_size() - 2;
    const int scans = body->output_size() - 1 - carried;
    if (body->input_size() != carried + 2 || scans < 0 || proto.output_size() > carried + scans)
      return give_up(Kind::Invalid,
                     str("the body has ", body->input_size(), " inputs and ", body->output_size(),
                         " outputs for ", carried, " loop-carried values"));
    // M and cond may be omitted (kNoValue); the rest must be there.
    std::vector<ValueId> ins;
    for (int k = 0; k < proto.input_size(); ++k) {
      if (k < 2 && proto.input(k).empty()) {
        ins.push_back(kNoValue);
        continue;
      }
      ins.push_back(lookup(proto.input(k), where));
      if (ins.back() == kNoValue) return give_up(Kind::Invalid, "");
    }
    const ValueId trips_id = ins[0], cond_id = ins[1];
    if (trips_id == kNoValue && cond_id == kNoValue)
      return give_up(Kind::Invalid, "has neither a trip count nor a condition");
    for (ValueId id : {trips_id, cond_id})
      if (id != kNoValue && graph_.type(id).numel() != 1)
        return give_up(Kind::Invalid, str("'", graph_.value(id).name, "' has ",
                                          graph_.type(id).numel(), " elements, not one"));
    const std::vector<ValueId> initial(ins.begin() + 2, ins.end());
    const std::optional<int64_t> trips =
        trips_id == kNoValue ? std::nullopt : folded_scalar(trips_id);
    const std::optional<int64_t> cond = cond_id == kNoValue ? std::nullopt : folded_scalar(cond_id);
    if ((trips_id == kNoValue || trips) && (cond_id == kNoValue || cond)) {
      ImportState before = save_state();
      if (unroll_loop(proto, name, *body, trips, cond, initial) == Unrolled::Done) return;
      restore_state(std::move(before));
    }
    keep_loop(proto, name, *body, trips_id, cond_id, initial);
  }

  enum class Unrolled { Done, AtRunTime };

  Unrolled unroll_loop(const onnx::NodeProto& proto, const std::string& name,
                       const onnx::GraphProto& body, std::optional<int64_t> trips,
                       std::optional<int64_t> cond, std::vector<ValueId> state) {
    static constexpr int64_t kMaxUnrolledNodes = 50000;
    const std::string where = "node " + name + " (Loop)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
      return Unrolled::Done;
    };
    const size_t carried = state.size();
    const size_t scans = static_cast<size_t>(body.output_size()) - 1 - carried;
    std::vector<std::vector<ValueId>> scanned(scans);
    for (int64_t i = 0; (!trips || i < *trips) && cond.value_or(1) != 0; ++i) {
      if ((i + 1) * std::max(body.node_size(), 1) > kMaxUnrolledNodes) return Unrolled::AtRunTime;
      const std::string suffix = "@" + std::to_string(i);
      const onnx::GraphProto step = renamed_copy(body, suffix);
      define(step.input(0).name(), graph_.add_constant(step.input(0).name(), Tensor::scalar(i)));
      define(step.input(1).name(), graph_.add_constant(step.input(1).name(), bool_scalar(true)));
      for (size_t k = 0; k < carried; ++k)
        define(step.input(static_cast<int>(k) + 2).name(), state[k]);
      import_initializers(step, str(where, " body"));
      for (int n = 0; n < step.node_size(); ++n) import_node(step.node(n), n);
      std::vector<ValueId> outs;
      for (const auto& out : step.output()) {
        outs.push_back(lookup(out.name(), str(where, " body output")));
        if (outs.back() == kNoValue) return give_up(Kind::Invalid, "");
      }
      cond = folded_scalar(outs[0]);
      if (!cond) return Unrolled::AtRunTime;
      for (size_t k = 0; k < carried; ++k) state[k] = outs[1 + k];
      for (size_t k = 0; k < scans; ++k) scanned[k].push_back(outs[1 + carried + k]);
    }
    for (int k = 0; k < proto.output_size(); ++k) {
      const std::string& out = proto.output(k);
      if (out.empty()) continue;
      if (static_cast<size_t>(k) < carried) {
        define_by_node(out, str(name, "/", out), "Identity", {state[static_cast<size_t>(k)]});
        continue;
      }
      const std::vector<ValueId>& rows = scanned[static_cast<size_t>(k) - carried];
      if (rows.empty())
        return give_up(Kind::Unsupported,
                       str("scan output '", out, "' of a loop that runs no iteration"));
      const ValueId axis =
          graph_.add_constant(out + "/axes", Tensor::from_vector(std::vector<int64_t>{0}, {1}));
      std::vector<ValueId> parts;
      for (size_t it = 0; it < rows.size(); ++it) {
        Node unsqueeze{str(name, "/", out, "@", it),
                       "Unsqueeze",
                       {rows[it], axis},
                       {graph_.add_value(str(out, "@", it), {})},
                       {}};
        parts.push_back(unsqueeze.outputs[0]);
        if (!add_typed_node(std::move(unsqueeze))) return give_up(Kind::Invalid, "");
      }
      Attributes concat;
      concat.set("axis", int64_t{0});
      define_by_node(out, str(name, "/", out), "Concat", std::move(parts), std::move(concat));
    }
    return Unrolled::Done;
  }

  // A Loop whose length is known only at run time: its body becomes the
  // subgraph of a Loop node. Scan outputs, which stack one row per
  // iteration, would have no static shape.
  void keep_loop(const onnx::NodeProto& proto, const std::string& name,
                 const onnx::GraphProto& body, ValueId trips_id, ValueId cond_id,
                 const std::vector<ValueId>& initial) {
    const std::string where = "node " + name + " (Loop)";
    auto give_up = [&](Kind kind, std::string message) {
      if (!message.empty()) report(kind, where, std::move(message));
      for (const std::string& out : proto.output()) poison(out);
    };
    const size_t carried = initial.size();
    if (static_cast<size_t>(body.output_size()) > 1 + carried)
      return give_up(Kind::Unsupported,
                     str("its scan output '", body.output(static_cast<int>(1 + carried)).name(),
                         "' stacks one row per iteration, and how many iterations run is known "
                         "only at run time (Lathe unrolls a Loop whose trip count and condition "
                         "fold; one it runs at run time must have no scan outputs)"));
    if (trips_id == kNoValue)
      trips_id =
          graph_.add_constant(str(name, "/M"), Tensor::scalar(std::numeric_limits<int64_t>::max()));
    if (cond_id == kNoValue) cond_id = graph_.add_constant(str(name, "/cond"), bool_scalar(true));
    if (graph_.type(trips_id).dtype != DType::Int64)
      return give_up(Kind::Invalid,
                     str("the trip count '", graph_.value(trips_id).name, "' must be int64, got ",
                         graph_.type(trips_id).to_string()));
    const auto reads = outer_reads({&body}, where);
    if (!reads) return give_up(Kind::Invalid, "");
    const auto captures = run_time_captures(*reads);
    std::vector<TensorType> formal = {{DType::Int64, {}}, graph_.type(cond_id)};
    for (ValueId id : initial) formal.push_back(graph_.type(id));
    Node node{name, kLoopOp, {trips_id, cond_id}, {}, {}};
    node.inputs.insert(node.inputs.end(), initial.begin(), initial.end());
    for (const auto& [read, id] : captures) node.inputs.push_back(id);
    auto sub = import_subgraph(body, str(name, "/body"), formal, captures, *reads);
    if (!sub) return give_up(Kind::Invalid, "");
    node.subgraphs.push_back(std::move(sub));
    // Its outputs are the carried values.
    std::vector<std::string> names(proto.output().begin(), proto.output().end());
    names.resize(carried);
    add_control_flow_node(names, std::move(node));
  }

  // What an unroll attempt changes, so that a loop found to need the run
  // time after all can be imported again from where it began.
  struct ImportState {
    Graph graph;
    std::unordered_map<std::string, ValueId> by_name;
    std::set<std::string> poisoned_names, node_names;
    size_t diagnostics = 0;
    std::unique_ptr<StorageFloats> storage;
  };
  ImportState save_state() const {
    return {graph_,
            by_name_,
            poisoned_names_,
            node_names_,
            diagnostics_.size(),
            std::make_unique<StorageFloats>(*storage_)};
  }
  void restore_state(ImportState state) {
    graph_ = std::move(state.graph);
    by_name_ = std::move(state.by_name);
    poisoned_names_ = std::move(state.poisoned_names);
    node_names_ = std::move(state.node_names);
    diagnostics_.resize(state.diagnostics);
    storage_ = std::move(state.storage);
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
    // A QDQ model's quantized weights stay behind their DequantizeLinear, however
    // small: canonicalize_qnn reads them to make the Conv/MatMul integer (folded to
    // float here, a 1x1 or depthwise filter would leave its layer float), and
    // fold_constants folds what it leaves.
    if (node.op == "DequantizeLinear" && node.inputs[0] != kNoValue) {
      const DType q = graph_.type(node.inputs[0]).dtype;
      if (q == DType::Int8 || q == DType::UInt8) return Fold::NotFoldable;
    }
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
        graph_.outputs.push_back(
            storage_->output(it->second, out.type().tensor_type().elem_type()));
      } catch (const Error& e) {
        report(Kind::Invalid, "output '" + out.name() + "'", e.what());
      }
    }
    if (graph_.outputs.empty() && diagnostics_.empty())
      report(Kind::Invalid, source_, "the graph has no outputs");
  }

  // How the scope being imported carries storage floats (one per subgraph).
  std::unique_ptr<StorageFloats> make_storage() {
    return std::make_unique<StorageFloats>(
        graph_, [this](Node node) { return add_typed_node(std::move(node)); },
        [this](const std::string& base) { return unique_node_name(base); });
  }

  void note(std::string text) { notes_.push_back(std::move(text)); }
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
  bool freeze_conditions_ = false;
  bool condition_inputs_left_open_ = false;
  std::optional<std::set<std::string>> condition_sources_;
  std::vector<std::string> notes_;
  std::unique_ptr<StorageFloats> storage_ = make_storage();
};

}  // namespace

Graph import_model_bytes(const std::string& bytes, const std::string& source,
                         const std::string& base_dir, const ImportOptions& options) {
  auto parse = [&] {
    onnx::ModelProto model;
    if (bytes.empty())
      throw DiagnosticError(str("cannot import ", source, ":"),
                            {{Kind::Invalid, source, "the file is empty"}});
    if (!model.ParseFromString(bytes) || !model.has_graph())
      throw DiagnosticError(str("cannot import ", source, ":"),
                            {{Kind::Invalid, source,
                              "not an ONNX model (the protobuf does not parse as a ModelProto)"}});
    return model;
  };
  auto import = [&](bool freeze_conditions) {
    onnx::ModelProto model = parse();
    Importer importer(model, source, base_dir, options, freeze_conditions);
    Graph g;
    try {
      g = importer.run();
    } catch (const DiagnosticError&) {
      // An If or Loop that cannot run at run time (branches of different
      // types, scan outputs) may still compile for the condition's inputs
      // as given: import again with them frozen.
      if (!freeze_conditions && importer.condition_inputs_left_open())
        return std::optional<Graph>();
      importer.flush_notes();
      throw;
    }
    importer.flush_notes();
    g.name = model.graph().name();
    return std::optional<Graph>(std::move(g));
  };
  if (std::optional<Graph> g = import(false)) return std::move(*g);
  return std::move(*import(true));
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
