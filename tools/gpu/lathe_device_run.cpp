// Runs a package with liblathe_runtime.so alone (no LLVM, no Qt): the runner
// the GPU device check carries to a machine that has none of the build's
// libraries (tools/gpu/device_check.sh). It also runs CPU packages, which is
// how the check's CPU reference is made here with the same synthetic weights.
//
//   lathe_device_run PACKAGE [--inputs IN.params] [--output OUT.params]
//                    [--repeat N] [--profile FILE] [--check-each-kernel]
//
// Inputs come by name from IN.params (TVM's parameter format); an input it
// lacks gets synthetic values seeded by its name, so the same package run
// anywhere sees the same data: a float32 array of rank 2 or more gets
// uniform values of variance 1/fan_in (fan_in = its elements over its first
// extent), as a network's weights have; other float32 inputs uniform in
// [-1, 1); other types zeros. (The device check strips large weights from
// packages to fit the device tool's 64 MiB and fills them this way on both
// sides.) Prints one JSON object: device, load, first run and timed runs in
// ms; with --profile, the per-kernel table (CUDA events on a GPU) to FILE.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/cuda_device_api.h"
#include "runtime/package.h"
#include "runtime/params.h"

using namespace lathe::runtime;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// FNV-1a of the name, then xorshift64*: the same values on every machine.
struct Random {
  uint64_t state;
  explicit Random(const std::string& name) : state(14695981039346656037ULL) {
    for (unsigned char c : name) state = (state ^ c) * 1099511628211ULL;
    if (!state) state = 1;
  }
  double uniform() {  // [0, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return double((state * 2685821657736338717ULL) >> 11) / double(1ULL << 53);
  }
};

NDArray synthetic(const std::string& name, const std::vector<int64_t>& shape, DataType dtype) {
  NDArray array(shape, dtype);
  if (!(dtype == DataType::float32())) return array;
  double bound = 1.0;
  if (shape.size() >= 2 && shape[0] > 0) {
    const double fan_in = double(array.numel()) / double(shape[0]);
    bound = std::sqrt(3.0 / std::max(1.0, fan_in));  // variance bound^2/3 = 1/fan_in
  }
  Random random(name);
  float* data = array.data_as<float>();
  for (int64_t i = 0; i < array.numel(); ++i) data[i] = float((2 * random.uniform() - 1) * bound);
  return array;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

int usage() {
  std::cerr << "usage: lathe_device_run PACKAGE [--inputs IN.params] [--output OUT.params] "
               "[--repeat N] [--profile FILE] [--check-each-kernel]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string package_path = argv[1], inputs_path, output_path, profile_path;
  int repeat = 20;
  bool check_each = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--inputs")
        inputs_path = value();
      else if (arg == "--output")
        output_path = value();
      else if (arg == "--profile")
        profile_path = value();
      else if (arg == "--repeat")
        repeat = std::stoi(value());
      else if (arg == "--check-each-kernel")
        check_each = true;
      else
        return usage();
    } catch (const std::exception& e) {
      std::cerr << "lathe_device_run: " << e.what() << "\n";
      return 2;
    }
  }
  try {
    Clock::time_point start = Clock::now();
    Package package(package_path);
    const double load_ms = ms_since(start);
    GraphExecutor& exec = package.executor();
    exec.set_check_each_kernel(check_each);
    std::string device = package.device().to_string();
    if (package.device().type == DeviceType::Cuda)
      device += " " + CudaDeviceAPI::get(package.device().id)->name();

    ParamMap given;
    if (!inputs_path.empty()) given = load_params(read_file(inputs_path), inputs_path);
    int synthetic_inputs = 0;
    for (int i = 0; i < exec.num_inputs(); ++i) {
      const std::string& name = exec.input_name(i);
      auto it = given.find(name);
      NDArray value = it != given.end() ? it->second
                                        : synthetic(name, exec.input_shape(i), exec.input_dtype(i));
      if (it == given.end()) ++synthetic_inputs;
      if (value.shape() != exec.input_shape(i) || !(value.dtype() == exec.input_dtype(i)))
        throw Error("input '" + name + "' in " + inputs_path + " is " + value.dtype().to_string() +
                    shape_to_string(value.shape()) + "; the package takes " +
                    exec.input_dtype(i).to_string() + shape_to_string(exec.input_shape(i)));
      exec.set_input(i, value.data(), value.nbytes());
    }

    start = Clock::now();
    exec.run();
    const double first_ms = ms_since(start);
    if (!output_path.empty()) {
      ParamMap outputs;
      for (int i = 0; i < exec.num_outputs(); ++i)
        outputs.emplace("output_" + std::to_string(i), exec.output(i).clone());
      std::ofstream out(output_path, std::ios::binary);
      out << save_params(outputs);
      if (!out) throw Error("cannot write " + output_path);
    }
    exec.set_check_each_kernel(false);
    const TimeSummary times = benchmark(exec, repeat, 1);
    double kernels_ms = 0;
    size_t kernels = 0;
    if (!profile_path.empty()) {
      const std::vector<KernelProfile> rows = exec.profile(repeat);
      for (const KernelProfile& row : rows) kernels_ms += row.time_us / 1000;
      kernels = rows.size();
      std::ofstream out(profile_path);
      out << GraphExecutor::format_profile(rows);
    }
    std::printf(
        "{\"package\": %s, \"device\": %s, \"inputs\": %d, \"synthetic_inputs\": %d, "
        "\"load_ms\": %.3f, \"first_run_ms\": %.3f, \"mean_ms\": %.4f, \"median_ms\": %.4f, "
        "\"min_ms\": %.4f, \"std_ms\": %.4f, \"repeat\": %d, \"profiled_kernels\": %zu, "
        "\"kernels_sum_ms\": %.4f}\n",
        json_string(package_path).c_str(), json_string(device).c_str(), exec.num_inputs(),
        synthetic_inputs, load_ms, first_ms, times.mean, times.median, times.min, times.std, repeat,
        kernels, kernels_ms);
  } catch (const std::exception& e) {
    std::printf("{\"package\": %s, \"error\": %s}\n", json_string(package_path).c_str(),
                json_string(e.what()).c_str());
    std::cerr << "lathe_device_run: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
