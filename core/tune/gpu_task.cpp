#include "tune/gpu_task.h"

#include "codegen/gpu_launch.h"
#include "codegen/gpu_simulator.h"
#include "runtime/cuda_device_api.h"
#include "support/error.h"
#include "topi/schedule_cuda.h"
#include "tune/cuda_kernel_object.h"
#include "tune/kernel_fixture.h"
#include "tune/measure.h"
#include "tune/search_task.h"
#include "tune/simulated_kernel_object.h"

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

double simulated_output_error(MeasureWorker& worker, const KernelFixture& data,
                              const tir::PrimFunc& func, const codegen::Target& target) {
  const std::vector<char> object =
      encode_simulated_kernel_object(codegen::emit_simulated_gpu_object({func}, target));
  MeasureOptions options;
  options.repeat = 1;
  options.timeout_s = kSimulationTimeoutS;
  const MeasureResult r = worker.measure({object, func.name, true}, options);
  if (r.error != ErrorKind::None)
    fail(str("GPU simulator (", to_string(r.error), "): ", r.message));
  return output_error(data, r.outputs);
}

double simulated_output_error(const KernelFixture& data, const tir::PrimFunc& func,
                              const codegen::Target& target) {
  MeasureWorker worker;
  worker.set_buffers(measure_buffers(data), static_cast<int>(data.num_inputs));
  return simulated_output_error(worker, data, func, target);
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
