// The dnnl plugin's compile-time half: the composite patterns it claims and
// how each match becomes a call of its runtime (dnnl_runtime.cpp).
#pragma once

#include "passes/external_codegen.h"

namespace lathe::dnnl_plugin {

// The codegen "dnnl", whose calls run in `runtime_library`.
passes::ExternalCodegen make_codegen(const std::string& runtime_library);

}  // namespace lathe::dnnl_plugin
