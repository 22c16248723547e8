// The graph executor: runs the kernels of a GraphModuleDesc in node order on
// a static memory plan, as TVM's graph executor does. One 64-byte aligned pool
// per storage_id, sized for the largest entry mapped to it; parameters are
// copied into their storage once, at construction; each kernel is called as
// `void f(void** args)` with its input entries' pointers, then its outputs'
// (an external codegen's kernel as run(kernel, args), runtime/external_abi.h).
// A control-flow node (If, Loop) runs on the host over executors of its
// subgraphs, each with its own memory plan; values are copied only where
// they cross into or out of a subgraph (graph_executor_control_flow.cpp).
//
// On a device (a cuda package) the pools are the device's memory, the
// parameters are copied there once, inputs are copied in by set_input, each
// kernel is launched with its buffers' device addresses, and run() ends by
// copying the graph's outputs to host arrays: data crosses only at the
// graph's boundary. Control flow and external nodes run on the host only.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/external_abi.h"
#include "runtime/graph_json.h"
#include "runtime/ndarray.h"

namespace lathe::runtime {

using KernelFunction = void (*)(void** args);
// Returns the kernel for a func_name, or nullptr when there is none.
using KernelLookup = std::function<KernelFunction(const std::string& func_name)>;
// Returns an external codegen's table for the func_name of an external node
// (runtime/external_abi.h), or nullptr when there is none.
using ExternalLookup = std::function<const LatheExternalFunctions*(const std::string& func_name)>;

// A device's kernel: launches on the device with its buffers' addresses
// (inputs, then outputs), without waiting for it.
using DeviceKernel = std::function<void(void* const* buffers, size_t count)>;
struct DeviceKernels {
  std::shared_ptr<DeviceAPI> device;
  // Returns the kernel for a func_name; throws Error saying why there is none.
  std::function<DeviceKernel(const std::string& func_name)> lookup;
};

struct KernelProfile {
  std::string node_name;
  std::string func_name;
  double time_us = 0;          // mean over the repeats
  std::vector<int64_t> shape;  // of the node's first output
};

// Milliseconds, as TVM's BenchmarkResult reports them.
struct TimeSummary {
  double mean = 0, median = 0, max = 0, min = 0, std = 0;
  std::vector<double> results;  // every sample, in ms
  static TimeSummary from_samples(std::vector<double> samples_ms);
};

class GraphExecutor {
 public:
  // Resolves every kernel and binds the parameters (arg nodes named in
  // `params`). Throws Error for a missing kernel (naming it), a parameter
  // whose shape, type or name does not match the graph, or storage shared
  // by an input or parameter with another entry. A subgraph's parameters
  // are those named with its name and "/" first.
  // External nodes are built through `external` (their tables' create),
  // which throws naming the node when it fails.
  GraphExecutor(GraphModuleDesc desc, const KernelLookup& lookup,
                const std::map<std::string, NDArray>& params = {},
                const ExternalLookup& external = {});
  // The graph on a device: memory there, kernels from `kernels`, control
  // flow run from the host with its subgraphs on the device too. Throws
  // Error as above, and naming an external node (host only).
  GraphExecutor(GraphModuleDesc desc, const DeviceKernels& kernels,
                const std::map<std::string, NDArray>& params = {});
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  // Graph inputs: the arg nodes that are not parameters, in arg_nodes order.
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const std::string& input_name(int index) const;
  const std::vector<int64_t>& input_shape(int index) const;
  DataType input_dtype(int index) const;
  size_t input_nbytes(int index) const;
  int input_index(const std::string& name) const;  // -1 when there is no such input
  // Copies the data in; Error when nbytes is not the input's size.
  void set_input(int index, const void* data, size_t nbytes);
  void set_input(const std::string& name, const void* data, size_t nbytes);

  // On a device: launches every kernel, copies the outputs to the host and
  // waits; a kernel's fault is thrown here (naming the kernel when
  // set_check_each_kernel is on).
  void run();

  Device device() const { return device_ ? device_->device() : Device{}; }
  // On a device, waits after every kernel so that a fault names its node
  // (slower: for finding which kernel fails).
  void set_check_each_kernel(bool check) {
    check_each_kernel_ = check;
    for (auto& sub : subgraphs_) sub->set_check_each_kernel(check);
  }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // A view of the output's storage (on a device, of its host copy), valid
  // until the next run().
  const NDArray& output(int index) const;
  void copy_output(int index, void* data, size_t nbytes) const;
  const std::vector<int64_t>& output_shape(int index) const;
  DataType output_dtype(int index) const;

  // Bytes of all storage pools: the executor's memory for inputs, parameters
  // and activations.
  size_t storage_bytes() const;
  size_t num_storages() const { return pools_.size(); }

  // Runs the graph `repeat` times timing every kernel call (on a device with
  // its timers, CUDA events, read after the run); one row per kernel node in
  // node order with its mean time (a control-flow node's row holds the time
  // of its subgraphs' runs, which it includes).
  std::vector<KernelProfile> profile(int repeat = 1);
  // TVM's debug-executor table: Node Name, Ops, Time(us), Time(%), Shape,
  // sorted by time descending, then a Total_time row.
  static std::string format_profile(const std::vector<KernelProfile>& rows);

  const GraphModuleDesc& graph() const { return desc_; }

 private:
  struct Step {
    uint32_t node_id;
    KernelFunction function;
    std::vector<void*> args;
    // A control-flow node: run by the executor itself (run_control_flow).
    std::function<void()> host;
    // An external node's table and kernel instead of `function`; the
    // kernel is destroyed with the step, also when a later node fails to bind.
    const LatheExternalFunctions* external = nullptr;
    std::shared_ptr<void> external_kernel;
    // A device's kernel instead.
    DeviceKernel device;
    void call() {
      if (device)
        device(args.data(), args.size());
      else if (host)
        host();
      else if (external)
        external->run(external_kernel.get(), args.data());
      else
        function(args.data());
    }
  };
  struct Port {
    std::string name;
    uint32_t entry;
  };
  // The constructors' common part: `device_kernels` for a device, else the rest.
  void build(const KernelLookup* lookup, const DeviceKernels* device_kernels,
             const std::map<std::string, NDArray>& params, const ExternalLookup& external);
  NDArray make_pool(size_t bytes) const;
  void call_step(Step& step);
  const Port& input_port(int index) const;
  // Builds an external node's kernel into `step`; throws naming the node.
  void bind_external(Step& step, const GraphNode& node, const ExternalLookup& external);
  // Checks that a control-flow node's inputs and outputs fit its subgraphs'
  // (throws naming both) and makes its step run them.
  void bind_control_flow(Step& step, const GraphNode& node);
  void run_if(const GraphNode& node);
  void run_loop(const GraphNode& node);
  // The kernels in order, without run()'s copies to the host: a subgraph's run.
  void run_steps();
  // Output k where the kernels wrote it (on a device, the device's entry).
  const NDArray& result(uint32_t k) const { return device_ ? device_outputs_[k] : outputs_[k]; }
  // `from` into `to`, both of this executor's device.
  void copy_array(NDArray& to, const NDArray& from) const;
  NDArray& entry(const GraphEntryRef& ref) { return entries_[desc_.entry_id(ref)]; }
  NDArray& output_entry(uint32_t node_id, uint32_t k) {
    return entries_[desc_.entry_id(node_id, k)];
  }
  NDArray& input_entry(int index) { return entries_[inputs_[static_cast<size_t>(index)].entry]; }

  GraphModuleDesc desc_;
  std::vector<NDArray> pools_;    // by storage_id
  std::vector<NDArray> entries_;  // views of the pools, by entry id
  std::vector<Step> steps_;
  std::vector<Port> inputs_;
  std::vector<NDArray> outputs_;         // on a device: host arrays, filled at the end of run()
  std::vector<NDArray> device_outputs_;  // on a device: the heads' device entries
  std::shared_ptr<DeviceAPI> device_;    // null: the host
  bool check_each_kernel_ = false;
  std::vector<std::unique_ptr<GraphExecutor>> subgraphs_;  // by GraphModuleDesc::subgraphs
};

// Runs `repeat` samples, each the mean of `number` runs, after one warm-up
// run, as TVM's time_evaluator.
TimeSummary benchmark(GraphExecutor& executor, int repeat, int number);

// Exactly the text tvmc prints for --print-time (TVM's BenchmarkResult):
//   Execution time summary:
//    mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)
//      1.2345       1.2000       1.5000       1.1000       0.1000
// with each column centred in 12 characters (the header and value lines end
// in spaces, as TVM's do).
std::string format_time_summary(const TimeSummary& summary);

}  // namespace lathe::runtime
