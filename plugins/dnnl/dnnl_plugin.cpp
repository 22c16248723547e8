// The dnnl plugin: oneDNN as an external codegen (bring your own codegen, as
// TVM's DNNL example). Its compile-time half registers the codegen; the
// kernels run in liblathe_dnnl_runtime.so, which this module links and which
// packages link, so they run without this module, LLVM or Qt.
#include <dlfcn.h>

#include "dnnl_codegen.h"
#include "plugin/plugin_api.h"
#include "runtime/external_abi.h"
#include "support/error.h"

extern "C" const LatheExternalFunctions* lathe_dnnl_functions();

namespace lathe::dnnl_plugin {
namespace {

// Where the runtime library this module links was loaded from.
std::string runtime_library_path() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&lathe_dnnl_functions), &info) || !info.dli_fname)
    fail("dnnl: cannot find the path of liblathe_dnnl_runtime.so");
  return info.dli_fname;
}

void register_dnnl(plugin::Registrar& registrar) {
  registrar.define_external_codegen(make_codegen(runtime_library_path()));
}

const LathePluginDescriptor descriptor = {
    LATHE_PLUGIN_ABI_VERSION, "dnnl", "1.0",
    "oneDNN kernels for Conv (+bias, ReLU, Clip, Add), Gemm/MatMul (+bias, ReLU, Gelu) and pools",
    register_dnnl};

}  // namespace
}  // namespace lathe::dnnl_plugin

LATHE_PLUGIN(lathe::dnnl_plugin::descriptor)
