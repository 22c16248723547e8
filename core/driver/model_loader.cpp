#include "driver/model_loader.h"

#include "driver/tensor_files.h"
#include "frontend/onnx/onnx_import.h"

namespace lathe::driver {

Graph load_model(const std::string& path, const LoadOptions& options) {
  onnx_frontend::ImportOptions import_options;
  import_options.input_shapes = options.input_shapes;
  import_options.input_array_shapes = options.input_arrays;
  import_options.shape_input_values = options.input_values;
  import_options.unfitting_arrays_are_notes = options.unfitting_arrays_are_notes;
  import_options.note = options.note;
  return onnx_frontend::import_model_file(path, import_options);
}

std::map<std::string, Shape> parse_input_shapes(const std::string& text) {
  return onnx_frontend::parse_input_shapes(text);
}

std::map<std::string, Shape> array_shapes_in(const std::string& npz_path) {
  std::map<std::string, Shape> shapes;
  for (const auto& [name, tensor] : read_npz_tensors(npz_path))
    shapes.emplace(name, tensor.shape());
  return shapes;
}

std::string shape_mismatch(const DeclaredInput& input, const Shape& shape) {
  return onnx_frontend::shape_mismatch(input, shape);
}

}  // namespace lathe::driver
