#include "passes/external_codegen.h"

#include "ir/op_registry.h"
#include "support/error.h"

namespace lathe::passes {
namespace {

// The call's output type is the type of the chain's last output, which the
// pass records as attributes: the call itself has no shape rule.
void infer_external_call(InferContext& ctx) {
  const std::optional<DType> dtype = dtype_from_name(ctx.attrs().get_string("dtype", ""));
  LATHE_CHECK(dtype, "ExternalCall has no output dtype");
  ctx.set_output(0, {*dtype, ctx.attrs().get_ints("shape", {})});
}

}  // namespace

ExternalCodegenRegistry& ExternalCodegenRegistry::global() {
  static ExternalCodegenRegistry registry;
  return registry;
}

void ExternalCodegenRegistry::define(ExternalCodegen codegen) {
  if (find(codegen.name)) fail(str("external codegen '", codegen.name, "' is already registered"));
  LATHE_CHECK(codegen.lower, "external codegen '", codegen.name, "' has no lower function");
  OpRegistry& ops = OpRegistry::global();
  if (!ops.find(kExternalCallOp))
    ops.define(kExternalCallOp, FusionKind::Opaque, infer_external_call);
  codegens_.push_back(std::move(codegen));
}

const ExternalCodegen* ExternalCodegenRegistry::find(const std::string& name) const {
  for (const ExternalCodegen& codegen : codegens_)
    if (codegen.name == name) return &codegen;
  return nullptr;
}

std::vector<std::string> ExternalCodegenRegistry::names() const {
  std::vector<std::string> names;
  for (const ExternalCodegen& codegen : codegens_) names.push_back(codegen.name);
  return names;
}

}  // namespace lathe::passes
