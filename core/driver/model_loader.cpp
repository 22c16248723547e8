#include "driver/model_loader.h"

#include "frontend/onnx/onnx_import.h"

namespace lathe::driver {

Graph load_model(const std::string& path, const LoadOptions& options) {
  onnx_frontend::ImportOptions import_options;
  import_options.input_shapes = options.input_shapes;
  return onnx_frontend::import_model_file(path, import_options);
}

std::map<std::string, Shape> parse_input_shapes(const std::string& text) {
  return onnx_frontend::parse_input_shapes(text);
}

}  // namespace lathe::driver
