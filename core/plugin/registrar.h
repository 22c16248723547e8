// The door through which a plugin extends Lathe's open registries while it
// loads: op schemas with shape inference (ir), reference kernels (reference),
// TE computes with their default schedules (topi) and external codegens
// (passes/external_codegen.h). Every name is checked: a plugin cannot
// replace a built-in op or another plugin's.
#pragma once

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

  const std::string& plugin_name() const { return plugin_; }
  const std::vector<std::string>& defined_ops() const { return ops_; }
  const std::vector<std::string>& defined_codegens() const { return codegens_; }

 private:
  void require_own_op(const std::string& op, const char* what) const;

  std::string plugin_;
  std::vector<std::string> ops_, codegens_;
};

}  // namespace lathe::plugin
