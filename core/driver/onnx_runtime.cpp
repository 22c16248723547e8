#include "driver/onnx_runtime.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/error.h"

namespace lathe::driver {

namespace fs = std::filesystem;

namespace {

// Single quotes for the shell, for paths with spaces.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

fs::path onnx_runtime_dir() {
  if (const char* env = std::getenv("LATHE_ORT_DIR"); env && *env) return env;
  return LATHE_DEFAULT_ORT_DIR;
}

std::string onnx_runtime_missing(const fs::path& ort_dir) {
  if (std::system("command -v node >/dev/null 2>&1") != 0)
    return "no 'node' on the PATH; run benchmarks/ort/setup.sh";
  if (!fs::exists(ort_dir / "node_modules" / "onnxruntime-node" / "package.json"))
    return "onnxruntime-node is not installed in " + (ort_dir / "node_modules").string() +
           "; run benchmarks/ort/setup.sh";
  return {};
}

OrtTiming time_onnx_runtime(const fs::path& ort_dir, const fs::path& model,
                            const std::string& input_name, const Tensor& input, int threads,
                            int runs) {
  return time_onnx_runtime(ort_dir, model, {{input_name, input}}, threads, runs);
}

OrtTiming time_onnx_runtime(const fs::path& ort_dir, const fs::path& model,
                            const std::map<std::string, Tensor>& inputs, int threads, int runs) {
  const fs::path scratch = fs::temp_directory_path() / ("lathe-ort-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const fs::path spec = scratch / "inputs.json", out = scratch / "output.bin";
  nlohmann::json specs = nlohmann::json::array();
  int k = 0;
  for (const auto& [name, input] : inputs) {
    const fs::path file = scratch / ("input" + std::to_string(k++) + ".bin");
    std::ofstream(file, std::ios::binary)
        .write(static_cast<const char*>(input.raw()), static_cast<std::streamsize>(input.nbytes()));
    specs.push_back({{"name", name},
                     {"type", std::string(dtype_name(input.dtype()))},
                     {"dims", input.shape()},
                     {"file", file.string()}});
  }
  std::ofstream(spec) << specs.dump();
  const std::string command =
      str("node ", quoted((ort_dir / "time_ort.js").string()), " ", quoted(model.string()), " ",
          quoted(spec.string()), " ", threads, " ", runs, " ", quoted(out.string()), " 2>&1");
  std::string text;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
    const int status = ::pclose(pipe);
    if (status != 0) {
      fs::remove_all(scratch);
      fail(str("ONNX Runtime on ", model.filename().string(), ": ", text));
    }
  }
  OrtTiming timing;
  try {
    const nlohmann::json reply = nlohmann::json::parse(text.substr(text.rfind('{')));
    timing.median_ms = reply.at("median_ms");
    if (reply.contains("times")) timing.samples_ms = reply.at("times").get<std::vector<double>>();
  } catch (const std::exception& e) {
    fs::remove_all(scratch);
    fail(str("ONNX Runtime on ", model.filename().string(), ": unexpected reply '", text, "'"));
  }
  std::ifstream result(out, std::ios::binary);
  std::stringstream bytes;
  bytes << result.rdbuf();
  const std::string raw = bytes.str();
  timing.output.resize(raw.size() / sizeof(float));
  std::memcpy(timing.output.data(), raw.data(), timing.output.size() * sizeof(float));
  fs::remove_all(scratch);
  return timing;
}

}  // namespace lathe::driver
