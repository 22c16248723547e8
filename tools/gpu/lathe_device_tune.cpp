// Measures a task's GPU candidates (made here by lathe_gpu_candidates) on
// the device, with the runtime and the measure worker's CUDA half
// (tune/worker/cuda_measure.h) alone: no LLVM. Inputs are seeded (uniform,
// variance 1/fan_in for float32 arrays of rank 2 or more, else [-1, 1));
// candidate 0 is the untuned schedule, whose outputs every other candidate
// must match (max |c - ref| <= 1e-4 x max(1, max |ref|)).
//
//   lathe_device_tune TASK_DIR [--from K] [--min-repeat-ms MS] [--repeat N]
//
// One JSON line per candidate, flushed: {"index", "ms", "error"} or
// {"index", "fail"}. A kernel that faults leaves the CUDA context unusable:
// the tool prints its line and exits 3, and the caller starts it again
// --from the next candidate (candidate 0 is run again for the reference).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "tune/worker/cuda_measure.h"

using namespace lathe;

namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

runtime::NDArray seeded(size_t index, const std::vector<int64_t>& shape, runtime::DataType dtype) {
  runtime::NDArray a(shape, dtype);
  if (dtype.to_string() != "float32") return a;  // zeros
  double bound = 1;
  if (shape.size() >= 2 && shape[0] > 0)
    bound = std::sqrt(3.0 / std::max(1.0, double(a.numel()) / double(shape[0])));
  std::mt19937 rng(static_cast<unsigned>(1000 + index));
  std::uniform_real_distribution<float> u(-float(bound), float(bound));
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = u(rng);
  return a;
}

// max |c - ref| / max(1, max |ref|) over float32 outputs; bytes compared otherwise.
double error_against(const std::vector<std::vector<char>>& ref,
                     const std::vector<std::vector<char>>& got, const std::vector<bool>& is_f32) {
  double worst = 0;
  for (size_t o = 0; o < ref.size(); ++o) {
    if (!is_f32[o]) {
      if (ref[o] != got[o]) return INFINITY;
      continue;
    }
    const float* r = reinterpret_cast<const float*>(ref[o].data());
    const float* g = reinterpret_cast<const float*>(got[o].data());
    const size_t n = ref[o].size() / sizeof(float);
    double scale = 1, diff = 0;
    for (size_t i = 0; i < n; ++i) scale = std::max(scale, double(std::fabs(r[i])));
    for (size_t i = 0; i < n; ++i) {
      const double d = std::fabs(double(g[i]) - double(r[i]));
      if (!(d <= diff)) diff = std::isnan(d) ? INFINITY : d;
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: lathe_device_tune TASK_DIR [--from K] [--min-repeat-ms MS] "
                 "[--repeat N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  size_t from = 1;
  double min_repeat_ms = 5;
  int repeat = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--from")
      from = std::stoul(argv[i + 1]);
    else if (a == "--min-repeat-ms")
      min_repeat_ms = std::stod(argv[i + 1]);
    else if (a == "--repeat")
      repeat = std::stoi(argv[i + 1]);
  }
  try {
    const nlohmann::json task = nlohmann::json::parse(read_bytes(dir + "/task.json"));
    const int num_inputs = task.at("num_inputs").get<int>();
    std::vector<runtime::NDArray> buffers;
    std::vector<bool> is_f32;
    for (const nlohmann::json& b : task.at("buffers")) {
      const auto dtype = runtime::DataType::parse(b.at("dtype").get<std::string>());
      const auto shape = b.at("shape").get<std::vector<int64_t>>();
      if (static_cast<int>(buffers.size()) < num_inputs)
        buffers.push_back(seeded(buffers.size(), shape, dtype));
      else {
        buffers.emplace_back(shape, dtype);
        is_f32.push_back(dtype.to_string() == "float32");
      }
    }
    tune::CudaMeasurer measurer;
    measurer.set_buffers(&buffers, num_inputs);
    const auto& candidates = task.at("candidates");
    // The reference and baseline: the untuned schedule.
    const tune::CudaMeasurement base =
        measurer.measure(read_bytes(dir + "/" + candidates.at(0).at("file").get<std::string>()), 1,
                         repeat, min_repeat_ms, true);
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf("{\"index\": 0, \"ms\": %.6g, \"error\": 0}\n", median(base.costs_ms));
    std::fflush(stdout);
    for (size_t k = std::max<size_t>(from, 1); k < candidates.size(); ++k) {
      try {
        const tune::CudaMeasurement m =
            measurer.measure(read_bytes(dir + "/" + candidates[k].at("file").get<std::string>()), 1,
                             repeat, min_repeat_ms, true);
        std::printf("{\"index\": %zu, \"ms\": %.6g, \"error\": %.3g}\n", k, median(m.costs_ms),
                    error_against(base.outputs, m.outputs, is_f32));
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::printf("{\"index\": %zu, \"fail\": %s}\n", k, nlohmann::json(e.what()).dump().c_str());
        std::fflush(stdout);
        if (measurer.loaded()) return 3;  // the context may be gone: start again
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lathe_device_tune: %s\n", e.what());
    return 1;
  }
}
