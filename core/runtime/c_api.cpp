// The C interface over Package and GraphExecutor: every exception stops at
// this boundary and becomes -1 plus lathe_last_error().
#include "runtime/c_api.h"

#include <exception>
#include <string>
#include <vector>

#include "runtime/package.h"

struct LatheModule {
  std::unique_ptr<lathe::runtime::Package> package;
  std::vector<std::string> input_dtypes, output_dtypes;
  std::string device;
};

namespace {

thread_local std::string last_error;

template <typename F>
int guarded(F&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return -1;
}

lathe::runtime::GraphExecutor& executor(const LatheModule* module) {
  if (!module) throw lathe::runtime::Error("null LatheModule");
  return module->package->executor();
}

int write_shape(const std::vector<int64_t>& shape, int64_t* dims, int max_dims) {
  for (int i = 0; i < max_dims && i < static_cast<int>(shape.size()); ++i)
    dims[i] = shape[static_cast<size_t>(i)];
  return static_cast<int>(shape.size());
}

}  // namespace

extern "C" {

int lathe_module_load(const char* path, LatheModule** out) {
  return guarded([&] {
    if (!path || !out) throw lathe::runtime::Error("lathe_module_load: null argument");
    auto module = std::make_unique<LatheModule>();
    module->package = std::make_unique<lathe::runtime::Package>(path);
    const lathe::runtime::GraphExecutor& ex = module->package->executor();
    for (int i = 0; i < ex.num_inputs(); ++i)
      module->input_dtypes.push_back(ex.input_dtype(i).to_string());
    for (int i = 0; i < ex.num_outputs(); ++i)
      module->output_dtypes.push_back(ex.output_dtype(i).to_string());
    module->device = module->package->device().to_string();
    *out = module.release();
  });
}

void lathe_module_free(LatheModule* module) {
  delete module;
}

const char* lathe_module_device(const LatheModule* module) {
  if (!module) {
    last_error = "null LatheModule";
    return nullptr;
  }
  return module->device.c_str();
}

int lathe_module_num_inputs(const LatheModule* module) {
  int n = -1;
  guarded([&] { n = executor(module).num_inputs(); });
  return n;
}

int lathe_module_num_outputs(const LatheModule* module) {
  int n = -1;
  guarded([&] { n = executor(module).num_outputs(); });
  return n;
}

const char* lathe_module_input_name(const LatheModule* module, int index) {
  const char* name = nullptr;
  guarded([&] { name = executor(module).input_name(index).c_str(); });
  return name;
}

const char* lathe_module_input_dtype(const LatheModule* module, int index) {
  const char* dtype = nullptr;
  guarded([&] {
    executor(module).input_name(index);  // checks the index
    dtype = module->input_dtypes[static_cast<size_t>(index)].c_str();
  });
  return dtype;
}

const char* lathe_module_output_dtype(const LatheModule* module, int index) {
  const char* dtype = nullptr;
  guarded([&] {
    executor(module).output(index);  // checks the index
    dtype = module->output_dtypes[static_cast<size_t>(index)].c_str();
  });
  return dtype;
}

int lathe_module_input_shape(const LatheModule* module, int index, int64_t* dims, int max_dims) {
  int rank = -1;
  guarded([&] { rank = write_shape(executor(module).input_shape(index), dims, max_dims); });
  return rank;
}

int lathe_module_output_shape(const LatheModule* module, int index, int64_t* dims, int max_dims) {
  int rank = -1;
  guarded([&] { rank = write_shape(executor(module).output_shape(index), dims, max_dims); });
  return rank;
}

size_t lathe_module_input_nbytes(const LatheModule* module, int index) {
  size_t n = 0;
  guarded([&] { n = executor(module).input_nbytes(index); });
  return n;
}

size_t lathe_module_output_nbytes(const LatheModule* module, int index) {
  size_t n = 0;
  guarded([&] { n = executor(module).output(index).nbytes(); });
  return n;
}

int lathe_module_set_input(LatheModule* module, const char* name, const void* data, size_t nbytes) {
  return guarded([&] {
    if (!name) throw lathe::runtime::Error("lathe_module_set_input: null name");
    executor(module).set_input(std::string(name), data, nbytes);
  });
}

int lathe_module_set_input_index(LatheModule* module, int index, const void* data, size_t nbytes) {
  return guarded([&] { executor(module).set_input(index, data, nbytes); });
}

int lathe_module_run(LatheModule* module) {
  return guarded([&] { executor(module).run(); });
}

int lathe_module_get_output(const LatheModule* module, int index, void* data, size_t nbytes) {
  return guarded([&] { executor(module).copy_output(index, data, nbytes); });
}

const char* lathe_last_error(void) {
  return last_error.c_str();
}

}  // extern "C"
