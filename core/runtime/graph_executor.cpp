// The graph executor's memory plan binding, kernel calls, per-kernel profile
// and TVM-format timing text.
#include "runtime/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

namespace lathe::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Python's format(text, "^width"): the odd space goes to the right.
std::string center(const std::string& text, size_t width) {
  if (text.size() >= width) return text;
  const size_t pad = width - text.size();
  return std::string(pad / 2, ' ') + text + std::string(pad - pad / 2, ' ');
}

std::string node_label(const GraphModuleDesc& desc, uint32_t node_id) {
  return "node " + std::to_string(node_id) + " ('" + desc.nodes[node_id].name + "')";
}

}  // namespace

GraphExecutor::GraphExecutor(GraphModuleDesc desc, const KernelLookup& lookup,
                             const std::map<std::string, NDArray>& params,
                             const ExternalLookup& external)
    : desc_(std::move(desc)) {
  build(&lookup, nullptr, params, external);
}

GraphExecutor::GraphExecutor(GraphModuleDesc desc, const DeviceKernels& kernels,
                             const std::map<std::string, NDArray>& params)
    : desc_(std::move(desc)), device_(kernels.device) {
  if (!device_ || !kernels.lookup) throw Error("graph: a device executor needs a device");
  build(nullptr, &kernels, params, {});
}

NDArray GraphExecutor::make_pool(size_t bytes) const {
  const std::vector<int64_t> shape{static_cast<int64_t>(bytes)};
  return device_ ? NDArray(shape, {1, 8, 1}, device_) : NDArray(shape, {1, 8, 1});
}

void GraphExecutor::build(const KernelLookup* lookup_ptr, const DeviceKernels* device_kernels,
                          const std::map<std::string, NDArray>& params,
                          const ExternalLookup& external) {
  validate(desc_);
  // What runs on the host only, refused by name before any device memory is taken.
  if (device_kernels)
    for (uint32_t node_id = 0; node_id < desc_.nodes.size(); ++node_id) {
      const GraphNode& node = desc_.nodes[node_id];
      if (node.external)
        throw Error(node_label(desc_, node_id) + " runs through an external codegen ('" +
                    node.func_name + "'), which runs on the host only");
    }
  const KernelLookup empty_lookup;
  const KernelLookup& lookup = lookup_ptr ? *lookup_ptr : empty_lookup;
  const uint32_t num_entries = desc_.num_entries();

  // One pool per storage id, as large as the largest entry placed in it.
  std::vector<size_t> pool_bytes;
  std::vector<int> users;
  std::vector<DataType> dtypes(num_entries);
  for (uint32_t e = 0; e < num_entries; ++e) {
    dtypes[e] = DataType::parse(desc_.dltype[e]);
    const size_t sid = static_cast<size_t>(desc_.storage_id[e]);
    if (sid >= pool_bytes.size()) {
      pool_bytes.resize(sid + 1, 0);
      users.resize(sid + 1, 0);
    }
    const size_t bytes = static_cast<size_t>(num_bytes(desc_.shape[e], dtypes[e]));
    pool_bytes[sid] = std::max(pool_bytes[sid], bytes);
    ++users[sid];
  }
  pools_.resize(pool_bytes.size());
  for (size_t sid = 0; sid < pool_bytes.size(); ++sid)
    if (users[sid]) pools_[sid] = make_pool(pool_bytes[sid]);
  for (uint32_t e = 0; e < num_entries; ++e)
    entries_.push_back(NDArray::view(pools_[desc_.storage_id[e]], desc_.shape[e], dtypes[e]));

  // Arguments: parameters are bound now, the rest are the graph's inputs. An
  // argument's storage must be its own, or a kernel would overwrite it.
  std::set<std::string> bound;
  for (uint32_t node_id : desc_.arg_nodes) {
    const GraphNode& node = desc_.nodes[node_id];
    const uint32_t e = desc_.entry_id(node_id, 0);
    if (users[desc_.storage_id[e]] != 1)
      throw Error("graph: the storage of argument " + node_label(desc_, node_id) +
                  " is shared with other entries");
    auto it = params.find(node.name);
    if (it == params.end()) {
      inputs_.push_back({node.name, e});
      continue;
    }
    const NDArray& value = it->second;
    if (value.shape() != entries_[e].shape() || value.dtype() != entries_[e].dtype())
      throw Error("parameter '" + node.name + "' is " + value.dtype().to_string() +
                  shape_to_string(value.shape()) + "; the graph expects " +
                  entries_[e].dtype().to_string() + shape_to_string(entries_[e].shape()));
    entries_[e].copy_from(value.data(), value.nbytes());
    bound.insert(node.name);
  }
  // Each subgraph gets the parameters named with its name and "/" first.
  for (const GraphModuleDesc& sub : desc_.subgraphs) {
    const std::string prefix = sub.name + "/";
    std::map<std::string, NDArray> own;
    for (const auto& [name, value] : params)
      if (name.compare(0, prefix.size(), prefix) == 0) {
        own.emplace(name.substr(prefix.size()), value);
        bound.insert(name);
      }
    try {
      subgraphs_.push_back(device_kernels
                               ? std::make_unique<GraphExecutor>(sub, *device_kernels, own)
                               : std::make_unique<GraphExecutor>(sub, lookup, own, external));
    } catch (const Error& e) {
      throw Error("subgraph '" + sub.name + "': " + e.what());
    }
  }
  for (const auto& [name, value] : params)
    if (!bound.count(name)) throw Error("parameter '" + name + "' is not an argument of the graph");

  for (uint32_t node_id = 0; node_id < desc_.nodes.size(); ++node_id) {
    const GraphNode& node = desc_.nodes[node_id];
    if (!node.is_op()) continue;
    Step step{node_id, nullptr, {}, {}, nullptr, nullptr, {}};
    if (!node.control_flow.empty()) {
      bind_control_flow(step, node);
    } else if (device_kernels) {
      try {
        step.device = device_kernels->lookup(node.func_name);
      } catch (const Error& e) {
        throw Error(node_label(desc_, node_id) + ": " + e.what());
      }
      if (!step.device)
        throw Error("kernel '" + node.func_name + "' of " + node_label(desc_, node_id) +
                    " is not in the module");
    } else if (node.external)
      bind_external(step, node, external);
    else if (!(step.function = lookup ? lookup(node.func_name) : nullptr))
      throw Error("kernel '" + node.func_name + "' of " + node_label(desc_, node_id) +
                  " is not in the module");
    for (const GraphEntryRef& in : node.inputs)
      step.args.push_back(entries_[desc_.entry_id(in)].data());
    for (uint32_t k = 0; k < node.num_outputs; ++k)
      step.args.push_back(entries_[desc_.entry_id(node_id, k)].data());
    steps_.push_back(std::move(step));
  }
  for (const GraphEntryRef& head : desc_.heads) {
    const NDArray& entry = entries_[desc_.entry_id(head)];
    if (!device_) {
      outputs_.push_back(entry);
      continue;
    }
    device_outputs_.push_back(entry);
    outputs_.emplace_back(entry.shape(), entry.dtype());
  }
}

void GraphExecutor::bind_external(Step& step, const GraphNode& node,
                                  const ExternalLookup& external) {
  const std::string where =
      "external function '" + node.func_name + "' of " + node_label(desc_, step.node_id);
  const LatheExternalFunctions* table = external ? external(node.func_name) : nullptr;
  if (!table) throw Error(where + " is not in any loaded library");
  if (table->abi_version != LATHE_EXTERNAL_ABI_VERSION)
    throw Error(where + " has external ABI version " + std::to_string(table->abi_version) +
                ", expected " + std::to_string(LATHE_EXTERNAL_ABI_VERSION));
  char message[512] = "";
  void* kernel = table->create(node.external_params.c_str(), message, sizeof message);
  if (!kernel) throw Error(where + ": " + message);
  step.external = table;
  step.external_kernel = std::shared_ptr<void>(kernel, table->destroy);
}

const GraphExecutor::Port& GraphExecutor::input_port(int index) const {
  if (index < 0 || index >= num_inputs())
    throw Error("input index " + std::to_string(index) + " out of range (the graph has " +
                std::to_string(num_inputs()) + " inputs)");
  return inputs_[static_cast<size_t>(index)];
}

const std::string& GraphExecutor::input_name(int index) const {
  return input_port(index).name;
}

const std::vector<int64_t>& GraphExecutor::input_shape(int index) const {
  return entries_[input_port(index).entry].shape();
}

DataType GraphExecutor::input_dtype(int index) const {
  return entries_[input_port(index).entry].dtype();
}

size_t GraphExecutor::input_nbytes(int index) const {
  return entries_[input_port(index).entry].nbytes();
}

int GraphExecutor::input_index(const std::string& name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].name == name) return static_cast<int>(i);
  return -1;
}

void GraphExecutor::set_input(int index, const void* data, size_t nbytes) {
  const Port& port = input_port(index);
  NDArray& entry = entries_[port.entry];
  if (nbytes != entry.nbytes())
    throw Error("input '" + port.name + "' (" + entry.dtype().to_string() +
                shape_to_string(entry.shape()) + ") takes " + std::to_string(entry.nbytes()) +
                " bytes; got " + std::to_string(nbytes));
  entry.copy_from(data, nbytes);
}

void GraphExecutor::set_input(const std::string& name, const void* data, size_t nbytes) {
  const int index = input_index(name);
  if (index < 0) {
    std::string names;
    for (const Port& p : inputs_) names += (names.empty() ? "" : ", ") + p.name;
    throw Error("the graph has no input '" + name + "' (inputs: " + names + ")");
  }
  set_input(index, data, nbytes);
}

void GraphExecutor::call_step(Step& step) {
  if (!device_) return step.call();
  try {
    step.call();
    if (check_each_kernel_) device_->synchronize();
  } catch (const Error& e) {
    throw Error(node_label(desc_, step.node_id) + " on " + device_->device().to_string() + ": " +
                e.what());
  }
}

void GraphExecutor::run_steps() {
  for (Step& step : steps_) call_step(step);
}

void GraphExecutor::run() {
  run_steps();
  if (!device_) return;
  // The copies wait for the kernels; a kernel's fault surfaces in the first.
  for (size_t i = 0; i < outputs_.size(); ++i)
    device_outputs_[i].copy_to(outputs_[i].data(), outputs_[i].nbytes());
  device_->synchronize();
}

const NDArray& GraphExecutor::output(int index) const {
  if (index < 0 || index >= num_outputs())
    throw Error("output index " + std::to_string(index) + " out of range (the graph has " +
                std::to_string(num_outputs()) + " outputs)");
  return outputs_[static_cast<size_t>(index)];
}

void GraphExecutor::copy_output(int index, void* data, size_t nbytes) const {
  const NDArray& out = output(index);
  if (nbytes != out.nbytes())
    throw Error("output " + std::to_string(index) + " (" + out.dtype().to_string() +
                shape_to_string(out.shape()) + ") holds " + std::to_string(out.nbytes()) +
                " bytes; the destination has " + std::to_string(nbytes));
  out.copy_to(data, nbytes);
}

const std::vector<int64_t>& GraphExecutor::output_shape(int index) const {
  return output(index).shape();
}

DataType GraphExecutor::output_dtype(int index) const {
  return output(index).dtype();
}

size_t GraphExecutor::storage_bytes() const {
  size_t total = 0;
  for (const NDArray& pool : pools_)
    if (pool.defined()) total += pool.nbytes();
  return total;
}

std::vector<KernelProfile> GraphExecutor::profile(int repeat) {
  if (repeat < 1) throw Error("profile: repeat must be at least 1");
  std::vector<double> total_us(steps_.size(), 0.0);
  if (device_) {
    // Events around each launch, read after the run: the device's own times,
    // without the host's launch overhead between kernels.
    std::vector<std::unique_ptr<DeviceTimer>> timers;
    for (size_t i = 0; i < steps_.size(); ++i) timers.push_back(device_->create_timer());
    for (int r = 0; r < repeat; ++r) {
      for (size_t i = 0; i < steps_.size(); ++i) {
        timers[i]->start();
        call_step(steps_[i]);
        timers[i]->stop();
      }
      for (size_t i = 0; i < steps_.size(); ++i) total_us[i] += timers[i]->elapsed_ms() * 1000;
    }
  }
  for (int r = 0; r < repeat && !device_; ++r) {
    for (size_t i = 0; i < steps_.size(); ++i) {
      const Clock::time_point start = Clock::now();
      steps_[i].call();
      total_us[i] += elapsed_us(start);
    }
  }
  std::vector<KernelProfile> rows;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const GraphNode& node = desc_.nodes[steps_[i].node_id];
    rows.push_back({node.name, node.func_name, total_us[i] / repeat,
                    desc_.shape[desc_.entry_id(steps_[i].node_id, 0)]});
  }
  return rows;
}

std::string GraphExecutor::format_profile(const std::vector<KernelProfile>& rows) {
  std::vector<KernelProfile> sorted = rows;
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const KernelProfile& a, const KernelProfile& b) { return a.time_us > b.time_us; });
  double total = 0;
  for (const KernelProfile& row : sorted) total += row.time_us;

  std::vector<std::vector<std::string>> table = {
      {"Node Name", "Ops", "Time(us)", "Time(%)", "Shape"},
      {"---------", "---", "--------", "-------", "-----"}};
  for (const KernelProfile& row : sorted)
    table.push_back({row.node_name, row.func_name, fixed(row.time_us, 3),
                     fixed(total > 0 ? row.time_us / total * 100 : 0, 3),
                     shape_to_string(row.shape)});
  table.push_back({"Total_time", "-", fixed(total, 3), "-", "-"});

  std::vector<size_t> width(5, 0);
  for (const auto& line : table)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string text;
  for (const auto& line : table) {
    std::string row;
    for (size_t c = 0; c < line.size(); ++c)
      row += line[c] + std::string(width[c] + 2 - line[c].size(), ' ');
    text += row + "\n";
  }
  return text;
}

TimeSummary TimeSummary::from_samples(std::vector<double> samples_ms) {
  TimeSummary s;
  s.results = samples_ms;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  const size_t n = samples_ms.size();
  double sum = 0;
  for (double v : samples_ms) sum += v;
  s.mean = sum / static_cast<double>(n);
  s.median = n % 2 ? samples_ms[n / 2] : (samples_ms[n / 2 - 1] + samples_ms[n / 2]) / 2;
  s.min = samples_ms.front();
  s.max = samples_ms.back();
  double squares = 0;
  for (double v : samples_ms) squares += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(squares / static_cast<double>(n));  // NumPy's np.std: population
  return s;
}

TimeSummary benchmark(GraphExecutor& executor, int repeat, int number) {
  if (repeat < 1 || number < 1)
    throw Error("benchmark: repeat and number must be at least 1 (got " + std::to_string(repeat) +
                ", " + std::to_string(number) + ")");
  executor.run();  // warm-up, as time_evaluator does
  std::vector<double> samples;
  for (int r = 0; r < repeat; ++r) {
    const Clock::time_point start = Clock::now();
    for (int k = 0; k < number; ++k) executor.run();
    samples.push_back(elapsed_us(start) / 1000.0 / number);
  }
  return TimeSummary::from_samples(std::move(samples));
}

std::string format_time_summary(const TimeSummary& s) {
  constexpr size_t kWidth = 12;
  std::string text = "Execution time summary:\n";
  const char* headers[] = {"mean (ms)", "median (ms)", "max (ms)", "min (ms)", "std (ms)"};
  const double values[] = {s.mean, s.median, s.max, s.min, s.std};
  for (int i = 0; i < 5; ++i) {
    if (i) text += ' ';
    text += center(headers[i], kWidth);
  }
  text += '\n';
  for (int i = 0; i < 5; ++i) {
    if (i) text += ' ';
    text += center(fixed(values[i], 4), kWidth);
  }
  // TVM's BenchmarkResult.__str__ ends its value line with 15 spaces.
  return text + std::string(15, ' ');
}

}  // namespace lathe::runtime
