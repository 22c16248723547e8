#include "plugin/registrar.h"

#include <algorithm>

#include "reference/executor.h"
#include "support/error.h"

namespace lathe::plugin {

void Registrar::require_uncommitted(const std::string& what) const {
  if (committed_) fail(str("plugin '", plugin_, "' defines ", what, " after it loaded"));
}

void Registrar::refuse_registered_op(const std::string& name) const {
  if (reference::kernel_registry().find(name) || topi::OpStrategyRegistry::global().find(name))
    fail(str("plugin '", plugin_, "' defines op '", name,
             "', which is already registered (built in or by another plugin)"));
}

void Registrar::refuse_registered_codegen(const std::string& name) const {
  if (passes::ExternalCodegenRegistry::global().find(name))
    fail(str("plugin '", plugin_, "' defines external codegen '", name,
             "', which is already registered"));
}

OpDef& Registrar::define_op(const std::string& name, FusionKind kind, InferFn infer) {
  require_uncommitted(str("op '", name, "'"));
  LATHE_CHECK(!name.empty(), "plugin '", plugin_, "' defines an op without a name");
  LATHE_CHECK(infer, "plugin '", plugin_, "': op '", name, "' needs a shape inference function");
  refuse_registered_op(name);
  if (std::any_of(ops_.begin(), ops_.end(), [&](const OpDef& op) { return op.name == name; }))
    fail(str("plugin '", plugin_, "' defines op '", name, "' twice"));
  OpDef& def = ops_.emplace_back();
  def.name = name;
  def.kind = kind;
  def.infer = infer;
  return def;
}

OpDef& Registrar::own_op(const std::string& op, const char* what) {
  auto it =
      std::find_if(ops_.begin(), ops_.end(), [&](const OpDef& def) { return def.name == op; });
  if (it == ops_.end())
    fail(str("plugin '", plugin_, "' gives a ", what, " for op '", op,
             "', which it did not define"));
  return *it;
}

void Registrar::define_kernel(const std::string& op, KernelFn kernel) {
  require_uncommitted(str("the reference kernel of '", op, "'"));
  OpDef& def = own_op(op, "reference kernel");
  LATHE_CHECK(kernel, "plugin '", plugin_, "': the reference kernel of '", op, "' is null");
  LATHE_CHECK(!def.kernel, "plugin '", plugin_, "' gives op '", op, "' a second reference kernel");
  def.kernel = kernel;
}

void Registrar::define_compute(const std::string& op, topi::OpComputeFn compute,
                               topi::OpTemplateFn tuning_template) {
  require_uncommitted(str("the compute of '", op, "'"));
  own_op(op, "compute");
  LATHE_CHECK(compute, "plugin '", plugin_, "': the compute of '", op, "' is null");
  auto [it, inserted] = strategies_.try_emplace(op);
  LATHE_CHECK(inserted, "plugin '", plugin_, "' gives op '", op, "' a second compute");
  it->second.compute = compute;
  it->second.tuning_template = tuning_template;
}

void Registrar::define_external_codegen(passes::ExternalCodegen codegen) {
  require_uncommitted(str("external codegen '", codegen.name, "'"));
  refuse_registered_codegen(codegen.name);
  if (std::any_of(codegens_.begin(), codegens_.end(),
                  [&](const passes::ExternalCodegen& c) { return c.name == codegen.name; }))
    fail(str("plugin '", plugin_, "' defines external codegen '", codegen.name, "' twice"));
  LATHE_CHECK(codegen.lower, "plugin '", plugin_, "': external codegen '", codegen.name,
              "' has no lower function");
  codegens_.push_back(std::move(codegen));
}

void Registrar::commit() {
  LATHE_CHECK(!committed_, "plugin '", plugin_, "' is committed twice");
  // Everything was checked as it was staged; checked again as a whole here,
  // before the first write, so that the registries' own checks below cannot
  // fail half-way through.
  for (const OpDef& op : ops_) refuse_registered_op(op.name);
  for (const passes::ExternalCodegen& codegen : codegens_) refuse_registered_codegen(codegen.name);

  OpRegistry& op_registry = reference::kernel_registry();
  for (const OpDef& staged : ops_)
    op_registry.define(staged.name, staged.kind, staged.infer) = staged;
  topi::OpStrategyRegistry& strategies = topi::OpStrategyRegistry::global();
  for (const auto& [op, strategy] : strategies_) {
    strategies.define_compute(op, strategy.compute);
    if (strategy.tuning_template) strategies.define_template(op, strategy.tuning_template);
  }
  for (const passes::ExternalCodegen& codegen : codegens_)
    passes::ExternalCodegenRegistry::global().define(codegen);
  committed_ = true;
}

std::vector<std::string> Registrar::defined_ops() const {
  std::vector<std::string> names;
  for (const OpDef& op : ops_) names.push_back(op.name);
  return names;
}

std::vector<std::string> Registrar::defined_codegens() const {
  std::vector<std::string> names;
  for (const passes::ExternalCodegen& codegen : codegens_) names.push_back(codegen.name);
  return names;
}

}  // namespace lathe::plugin
