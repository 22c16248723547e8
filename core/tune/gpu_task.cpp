#include "tune/gpu_task.h"

#include <cstring>

#include "codegen/gpu_launch.h"
#include "codegen/gpu_simulator.h"
#include "runtime/cuda_device_api.h"
#include "support/error.h"
#include "topi/schedule_cuda.h"
#include "tune/cuda_kernel_object.h"
#include "tune/kernel_fixture.h"
#include "tune/search_task.h"

namespace lathe::tune {

topi::SearchSpace gpu_template_search_space(const GroupComputation& computation,
                                            const codegen::Target& target) {
  if (!target.is_gpu())
    fail(str("target '", target.to_string(), "' is not a GPU; its groups take the CPU templates"));
  const char* kind = codegen::target_kind_name(target.kind);
  topi::OpTemplateFn fn =
      computation.anchor_strategy ? computation.anchor_strategy->template_for(kind) : nullptr;
  if (!fn) fn = topi::cuda_default_template;
  return fn(computation.anchor, computation.outputs, target.vector_unit());
}

void compile_gpu_candidate(Candidate& c, const codegen::Target& target) {
  if (!c.ok()) return;
  CudaKernelObject object;
  try {
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(c.func, target);
    object.kernel = c.func.name;
    object.launch = {launch.grid, launch.block, launch.shared_bytes};
  } catch (const std::exception& e) {
    c.error_kind = "instantiation";
    c.error_message = e.what();
    return;
  }
  try {
    object.ptx = codegen::emit_assembly({c.func}, target);
  } catch (const std::exception& e) {
    c.error_kind = "compile";
    c.error_message = e.what();
    return;
  }
  c.object = encode_cuda_kernel_object(object);
}

double simulated_output_error(const KernelFixture& data, const tir::PrimFunc& func,
                              const codegen::Target& target) {
  KernelFixture run = data;  // the kernel writes the outputs
  std::vector<void*> pointers;
  for (Tensor& t : run.buffers) pointers.push_back(t.raw());
  for (size_t i = run.num_inputs; i < run.buffers.size(); ++i)
    std::memset(run.buffers[i].raw(), 0xff, run.buffers[i].nbytes());
  const codegen::SimulatedGpuModule gpu({func}, target);
  gpu.run(func.name, pointers.data(), pointers.size());
  std::vector<std::vector<char>> outputs;
  for (size_t i = run.num_inputs; i < run.buffers.size(); ++i) {
    const char* bytes = static_cast<const char*>(run.buffers[i].raw());
    outputs.emplace_back(bytes, bytes + run.buffers[i].nbytes());
  }
  return output_error(run, outputs);
}

void require_cuda_device(const codegen::Target& target) {
  std::unique_ptr<runtime::CudaDriver> driver;
  try {
    driver = runtime::CudaDriver::open(runtime::cuda_driver_library());
  } catch (const std::exception& e) {
    fail(str("no CUDA driver: ", e.what(), "; '", target.to_string(),
             "' kernels are measured on a GPU, so tuning for it needs one (`lathe compile "
             "--target cuda` does not)"));
  }
  LATHE_CHECK(driver->device_count() > 0, "no CUDA device: ", driver->library(),
              " sees none, and tuning for '", target.to_string(), "' measures on a GPU");
}

}  // namespace lathe::tune
