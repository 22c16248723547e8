#include "plugin/registrar.h"

#include <algorithm>

#include "reference/executor.h"
#include "support/error.h"

namespace lathe::plugin {

OpDef& Registrar::define_op(const std::string& name, FusionKind kind, InferFn infer) {
  OpRegistry& registry = reference::kernel_registry();
  if (registry.find(name))
    fail(str("plugin '", plugin_, "' defines op '", name,
             "', which is already registered (built in or by another plugin)"));
  OpDef& def = registry.define(name, kind, infer);
  ops_.push_back(name);
  return def;
}

void Registrar::require_own_op(const std::string& op, const char* what) const {
  if (std::find(ops_.begin(), ops_.end(), op) == ops_.end())
    fail(str("plugin '", plugin_, "' gives a ", what, " for op '", op,
             "', which it did not define"));
}

void Registrar::define_kernel(const std::string& op, KernelFn kernel) {
  require_own_op(op, "reference kernel");
  LATHE_CHECK(kernel, "plugin '", plugin_, "': the reference kernel of '", op, "' is null");
  reference::kernel_registry().set_kernel(op, kernel);
}

void Registrar::define_compute(const std::string& op, topi::OpComputeFn compute,
                               topi::OpTemplateFn tuning_template) {
  require_own_op(op, "compute");
  topi::OpStrategyRegistry& registry = topi::OpStrategyRegistry::global();
  registry.define_compute(op, compute);
  if (tuning_template) registry.define_template(op, tuning_template);
}

void Registrar::define_external_codegen(passes::ExternalCodegen codegen) {
  if (passes::ExternalCodegenRegistry::global().find(codegen.name))
    fail(str("plugin '", plugin_, "' defines external codegen '", codegen.name,
             "', which is already registered"));
  codegens_.push_back(codegen.name);
  passes::ExternalCodegenRegistry::global().define(std::move(codegen));
}

}  // namespace lathe::plugin
