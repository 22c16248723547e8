// Writes a compiled package: module.tar holding mod.so (the kernels' object
// linked with the system C compiler), mod.json (runtime::to_json) and
// mod.params (runtime::save_params), as runtime::Package reads it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/graph_json.h"
#include "runtime/ndarray.h"

namespace lathe::driver {

// `object` is codegen::emit_object's ELF relocatable holding every kernel
// `desc` names; `desc` must be complete (shapes, dltypes and storage ids:
// run plan_memory first); `params` are the arg nodes to bind. mod.so also defines
// `const char lathe_module_target[]` (target_text, e.g. "llvm -mcpu=znver4")
// and `lathe_module_features[]` (target_features, LLVM's "+avx2,+avx512f,..."),
// which the loader checks against the host CPU. Linking runs
// `cc -shared -fPIC -o mod.so kernels.o meta.c -lm [libraries]` ($LATHE_CC
// instead of cc when set) without a shell. Throws lathe::Error with the linker's output,
// or saying that no C compiler was found, or naming the file it could not
// write.
// `libraries` are the external codegens' runtime libraries (paths) that
// mod.so links, each found again through an rpath to its folder.
void write_package(const std::string& tar_path, const std::vector<char>& object,
                   const runtime::GraphModuleDesc& desc,
                   const std::map<std::string, runtime::NDArray>& params,
                   const std::string& target_text, const std::string& target_features,
                   const std::vector<std::string>& libraries = {});

// A cuda package: mod.ptx (the module's PTX text), mod.json (`desc`, which
// carries the target and every kernel's launch: driver::gpu_graph_desc) and
// mod.params. Throws lathe::Error for an empty PTX, a desc without a target
// or with a kernel that has no launch, the parameter errors above, and a
// file it could not write.
void write_gpu_package(const std::string& tar_path, const std::string& ptx,
                       const runtime::GraphModuleDesc& desc,
                       const std::map<std::string, runtime::NDArray>& params);

}  // namespace lathe::driver
