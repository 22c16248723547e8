// The door through which a plugin extends Lathe's open registries while it
// loads: op schemas with shape inference (ir), reference kernels (reference),
// TE computes with their default schedules (topi) and external codegens
// (passes/external_codegen.h). Every name is checked: a plugin cannot
// replace a built-in op or another plugin's.
//
// A plugin's definitions are staged here and reach the registries together
// (commit) once its registration function has returned, so a plugin that
// fails half-way leaves the registries as they were: loading is all or nothing.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "passes/external_codegen.h"
#include "topi/op_compute.h"

namespace lathe::plugin {

class Registrar {
 public:
  explicit Registrar(std::string plugin_name) : plugin_(std::move(plugin_name)) {}

  // A new op: its schema is its inference function, which checks inputs and
  // attributes and types the outputs. `name` carries the ONNX domain of a
  // non-default op ("com.microsoft.Gelu"). Returns the definition for the
  // optional fields (macs, shape_inputs).
  OpDef& define_op(const std::string& name, FusionKind kind, InferFn infer);
  // The plain kernel of an op this plugin defined (the oracle and constant folding).
  void define_kernel(const std::string& op, KernelFn kernel);
  // The TE compute of an op; `tuning_template` nullptr schedules its groups
  // with the generic template (topi/generic_template.h), whose default config
  // is the default schedule.
  void define_compute(const std::string& op, topi::OpComputeFn compute,
                      topi::OpTemplateFn tuning_template = nullptr);

  // An external codegen: its patterns, how it lowers a match, and the
  // runtime library (a path) whose table runs the calls.
  void define_external_codegen(passes::ExternalCodegen codegen);

  // Adds everything defined so far to the registries, all or nothing: names
  // are checked as each definition is made (the error then points at the
  // plugin's call) and all again here before the first is written. The
  // loader calls it once the registration function has returned; until then
  // the registries do not see the plugin's definitions.
  void commit();

  const std::string& plugin_name() const { return plugin_; }
  // In the order they were defined.
  std::vector<std::string> defined_ops() const;
  std::vector<std::string> defined_codegens() const;

 private:
  // Definitions after commit would reach no registry.
  void require_uncommitted(const std::string& what) const;
  // The staged op `op`, which this plugin must have defined.
  OpDef& own_op(const std::string& op, const char* what);
  // Throw when a registry already has a definition of that name.
  void refuse_registered_op(const std::string& name) const;
  void refuse_registered_codegen(const std::string& name) const;

  std::string plugin_;
  std::deque<OpDef> ops_;  // a deque, so that define_op's references stay valid
  std::map<std::string, topi::OpStrategy> strategies_;
  std::vector<passes::ExternalCodegen> codegens_;
  bool committed_ = false;
};

}  // namespace lathe::plugin
