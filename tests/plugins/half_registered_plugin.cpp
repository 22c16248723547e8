// A plugin whose registration fails half-way: it defines an op with its
// reference kernel and compute and an external codegen, then throws. The
// loader must leave every registry as it was (tst_plugin_loader). Built
// twice: throwing lathe::Error, and (THROW_STD_EXCEPTION) a plain
// std::exception, as a plugin's own use of the standard library would.
#include <stdexcept>

#include "plugin/plugin_api.h"
#include "support/error.h"

namespace {

using namespace lathe;

void infer_like_input(InferContext& context) {
  context.set_output(0, context.input(0));
}
void kernel_nothing(KernelContext&) {}
std::vector<te::Tensor> compute_nothing(const topi::ComputeContext&) {
  return {};
}

void register_then_fail(plugin::Registrar& registrar) {
  registrar.define_op("test.HalfRegistered", FusionKind::ElemWise, infer_like_input);
  registrar.define_kernel("test.HalfRegistered", kernel_nothing);
  registrar.define_compute("test.HalfRegistered", compute_nothing);
  passes::ExternalCodegen codegen;
  codegen.name = "half_registered";
  codegen.patterns = {{"relu", {"Relu"}}};
  codegen.lower = [](const Graph&, const passes::ExternalPattern&,
                     const std::vector<int>&) -> std::optional<passes::ExternalCall> {
    return std::nullopt;
  };
  registrar.define_external_codegen(codegen);
#ifdef THROW_STD_EXCEPTION
  throw std::out_of_range("vector::_M_range_check: __n (which is 2) >= this->size() (which is 2)");
#else
  fail("its kernel table has no entry for the second op");
#endif
}

const LathePluginDescriptor descriptor = {LATHE_PLUGIN_ABI_VERSION, "half_registered", "0.1",
                                          "fails after registering an op and a codegen",
                                          register_then_fail};

}  // namespace

LATHE_PLUGIN(descriptor)
