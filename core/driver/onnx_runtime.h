// ONNX Runtime as the benchmarks' anchor, for bench_models and the studio's
// Benchmark tab: runs benchmarks/ort/time_ort.js (Node and npm's
// onnxruntime-node, installed by benchmarks/ort/setup.sh, outside the build)
// on a model with the same input and thread count Lathe runs with.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ir/tensor.h"

namespace lathe::driver {

struct OrtTiming {
  double median_ms = 0;
  std::vector<double> samples_ms;  // every timed run, in order
  std::vector<float> output;       // the first output, as float32
};

// Where time_ort.js and its node_modules are: $LATHE_ORT_DIR, else the
// checkout's benchmarks/ort.
std::filesystem::path onnx_runtime_dir();

// Empty when ONNX Runtime can be timed from `ort_dir`; else what is missing
// and how to set it up.
std::string onnx_runtime_missing(const std::filesystem::path& ort_dir);

// `runs` timed runs after a warm-up, on `threads` intra-op threads, with
// `inputs` by name (any dtype). Throws lathe::Error with ONNX Runtime's
// message when it cannot load or run the model.
OrtTiming time_onnx_runtime(const std::filesystem::path& ort_dir,
                            const std::filesystem::path& model,
                            const std::map<std::string, Tensor>& inputs, int threads, int runs);
// The same with one input.
OrtTiming time_onnx_runtime(const std::filesystem::path& ort_dir,
                            const std::filesystem::path& model, const std::string& input_name,
                            const Tensor& input, int threads, int runs);

}  // namespace lathe::driver
