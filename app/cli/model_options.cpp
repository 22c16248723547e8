#include "model_options.h"

#include <iostream>

#include "driver/model_loader.h"
#include "driver/plugins.h"
#include "driver/tensor_files.h"

namespace lathe::cli {

void load_plugins(const Args& args) {
  if (args.has("plugin")) driver::load_plugins(args.get("plugin"));
}

Graph load_model(const Args& args, const std::string& inputs_npz) {
  driver::LoadOptions load;
  if (args.has("input-shapes"))
    load.input_shapes = driver::parse_input_shapes(args.get("input-shapes"));
  if (!inputs_npz.empty()) {
    for (auto& [name, tensor] : driver::read_npz_tensors(inputs_npz)) {
      load.input_arrays[name] = tensor.shape();
      load.input_values[name] = std::move(tensor);
    }
  }
  load.note = [](const std::string& note) { std::cerr << "note: " << note << "\n"; };
  return driver::load_model(args.positional(), load);
}

driver::Target target_of(const Args& args) {
  return driver::Target::parse(args.get("target", "llvm"));
}

driver::PassOptions pass_options_of(const Args& args, const driver::Target& target) {
  driver::PassOptions options;
  // NCHWc channel blocks are the CPU's vector layout; GPU kernels keep NCHW.
  options.alter_layout = !args.has("no-layout") && !target.is_gpu();
  options.gpu = target.is_gpu();
  options.record_snapshots = false;
  options.vector_unit = target.vector_unit();
  return options;
}

}  // namespace lathe::cli
