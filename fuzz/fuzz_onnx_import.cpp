// The ONNX importer (frontend/onnx/onnx_import.h) on arbitrary bytes, from
// memory: protobuf parsing, libonnx's checker and shape inference, attribute
// defaults, opset upgrades, Lathe's type inference and shape folding. It
// promises a DiagnosticError, never a crash: anything but a lathe::Error
// escaping, or a sanitizer report, is a bug.
#include <cstdint>
#include <string>

#include "frontend/onnx/onnx_import.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // External data resolves against a folder that does not exist, so a model
  // naming a file cannot make the fuzzer read the machine's files.
  static const std::string kNoDataDir = "/nonexistent/lathe-fuzz";
  try {
    lathe::onnx_frontend::import_model_bytes(std::string(reinterpret_cast<const char*>(data), size),
                                             "fuzz.onnx", kNoDataDir);
  } catch (const lathe::Error&) {
  }
  return 0;
}
