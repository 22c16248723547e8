#include "conformance_runner.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "driver/compiled_module.h"
#include "driver/gpu_module.h"
#include "frontend/onnx/onnx_import.h"
#include "passes/pipeline.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::conformance {
namespace fs = std::filesystem;
namespace {

// ONNX's backend tests compare with numpy.testing.assert_allclose(rtol=1e-3, atol=1e-7).
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) files.push_back(e.path());
  // input_10.pb sorts after input_9.pb.
  std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
    auto index = [&](const fs::path& p) {
      return std::stoi(p.stem().string().substr(prefix.size()));
    };
    return index(a) < index(b);
  });
  return files;
}

// Empty when equal within tolerance, else a description of the first mismatch.
std::string compare(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return str("got ", got.type().to_string(), ", expected ", want.type().to_string());
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.element_as_double(i);
    double w = want.element_as_double(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::abs(g - w) <= kAtol + kRtol * std::abs(w)))
      return str("element ", i, " is ", g, ", expected ", w);
  }
  return {};
}

std::string outputs_mismatch(const std::vector<Tensor>& got,
                             const std::vector<fs::path>& want_files) {
  if (got.size() != want_files.size())
    return str("produced ", got.size(), " outputs, expected ", want_files.size());
  for (size_t k = 0; k < got.size(); ++k) {
    std::string diff = compare(got[k], onnx_frontend::read_tensor_pb_file(want_files[k]));
    if (!diff.empty()) return str("output ", k, ": ", diff);
  }
  return {};
}

// The graph compiled for `target` (a cuda one), its kernels run by the GPU
// simulator on the host.
std::vector<Tensor> run_simulated_gpu(const Graph& graph,
                                      const std::map<std::string, Tensor>& inputs,
                                      driver::CompileOptions options,
                                      const driver::Target& target) {
  options.target = target;
  const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
  std::unique_ptr<runtime::GraphExecutor> exec =
      driver::make_simulated_gpu_executor(compiled, target);
  for (int i = 0; i < exec->num_inputs(); ++i) {
    auto it = inputs.find(exec->input_name(i));
    if (it != inputs.end()) exec->set_input(it->first, it->second.raw(), it->second.nbytes());
  }
  exec->run();
  std::vector<Tensor> outputs;
  for (int i = 0; i < exec->num_outputs(); ++i)
    outputs.push_back(driver::from_ndarray(exec->output(i)));
  return outputs;
}

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Passed:
      return "passed";
    case Outcome::Failed:
      return "FAILED";
    case Outcome::Unsupported:
      return "unsupported";
    case Outcome::KnownFailure:
      return "known failure";
    case Outcome::UnexpectedPass:
      return "UNEXPECTED PASS";
  }
  return "?";
}

std::map<std::string, std::string> load_exceptions(const std::string& path) {
  std::map<std::string, std::string> exceptions;
  std::ifstream in(path);
  LATHE_CHECK(in, path, ": cannot open the list of known exceptions");
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream ss(line);
    std::string key;
    if (!(ss >> key)) continue;
    std::string reason;
    std::getline(ss, reason);
    reason.erase(0, reason.find_first_not_of(" \t"));
    LATHE_CHECK(!reason.empty(), path, ": exception '", key, "' has no reason");
    exceptions[key] = reason;
  }
  return exceptions;
}

CaseResult run_case(const std::string& case_dir, const std::string& folder, ExecutorKind executor) {
  CaseResult result;
  result.folder = folder;
  result.name = fs::path(case_dir).filename().string();
  try {
    std::vector<fs::path> data_sets = sorted_files(case_dir, "test_data_set_");
    LATHE_CHECK(!data_sets.empty(), "no test_data_set_* folder");
    for (const fs::path& set : data_sets) {
      std::vector<fs::path> input_files = sorted_files(set, "input_");
      std::vector<fs::path> output_files = sorted_files(set, "output_");
      // input_i.pb feeds the i-th declared runtime input.
      std::vector<onnx_frontend::ModelInput> declared =
          onnx_frontend::model_inputs(case_dir + "/model.onnx");
      LATHE_CHECK(declared.size() >= input_files.size(), "the model declares ", declared.size(),
                  " inputs but the data set has ", input_files.size());
      std::vector<std::pair<std::string, Tensor>> inputs;
      onnx_frontend::ImportOptions options;
      for (size_t i = 0; i < input_files.size(); ++i) {
        const std::string& name = declared[i].name;
        if (!declared[i].is_tensor)
          throw UnsupportedError(str("input '", name, "' is not a tensor"));
        Tensor t = onnx_frontend::read_tensor_pb_file(input_files[i].string());
        options.input_shapes[name] = t.shape();
        options.shape_input_values[name] = t;
        inputs.emplace_back(name, t);
      }
      Graph graph = onnx_frontend::import_model_file(case_dir + "/model.onnx", options);
      std::map<std::string, Tensor> feed;
      for (auto& [name, t] : inputs)
        for (ValueId id : graph.inputs)
          if (graph.value(id).name == name) feed[name] = t;
      std::vector<Tensor> got;
      if (executor != ExecutorKind::Reference) {
        driver::CompileOptions compile;
        compile.passes.record_snapshots = false;
        // The passes a cuda build runs, for the count of folded cases.
        if (executor == ExecutorKind::SimulatedGpu) {
          compile.passes.gpu = true;
          compile.passes.alter_layout = false;
        }
        got = executor == ExecutorKind::Compiled
                  ? driver::run_compiled(graph, feed, compile)
                  : run_simulated_gpu(graph, feed, compile,
                                      driver::Target::parse("cuda -arch=sm_90"));
        result.folded = passes::optimize_graph(graph, compile.passes).groups.empty();
      } else {
        got = reference::Executor(graph).run(feed);
      }
      std::string mismatch = outputs_mismatch(got, output_files);
      if (!mismatch.empty()) {
        result.outcome = Outcome::Failed;
        result.message = set.filename().string() + ": " + mismatch;
        return result;
      }
    }
    result.outcome = Outcome::Passed;
  } catch (const DiagnosticError& e) {
    result.outcome = e.only_unsupported() ? Outcome::Unsupported : Outcome::Failed;
    result.message = e.what();
  } catch (const UnsupportedError& e) {
    result.outcome = Outcome::Unsupported;
    result.message = e.what();
  } catch (const std::exception& e) {
    result.outcome = Outcome::Failed;
    result.message = e.what();
  }
  return result;
}

std::vector<CaseResult> run_all(const RunOptions& options,
                                const std::function<void(const CaseResult&)>& on_result) {
  std::vector<CaseResult> results;
  for (const std::string& folder : options.folders) {
    fs::path dir = fs::path(options.data_root) / folder;
    LATHE_CHECK(fs::is_directory(dir), dir.string(), ": no such folder (install libonnx-testdata)");
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    for (const fs::path& c : cases) {
      std::string name = c.filename().string();
      if (!options.filter.empty() && name.find(options.filter) == std::string::npos) continue;
      CaseResult r = run_case(c.string(), folder, options.executor);
      auto known = options.exceptions.find(folder + "/" + name);
      if (known != options.exceptions.end()) {
        if (r.outcome == Outcome::Failed) {
          r.outcome = Outcome::KnownFailure;
          r.message = known->second;
        } else if (r.outcome == Outcome::Passed) {
          r.outcome = Outcome::UnexpectedPass;
          r.message = "listed as a known exception but passes: remove it from the list";
        }
      }
      if (on_result) on_result(r);
      results.push_back(std::move(r));
    }
  }
  return results;
}

std::vector<std::string> load_case_list(const std::string& path) {
  std::ifstream in(path);
  LATHE_CHECK(in, path, ": cannot read the list of cases");
  std::vector<std::string> cases;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string name;
    if (words >> name) cases.push_back(name);
  }
  return cases;
}

std::vector<std::string> expected_pass_differences(const std::vector<CaseResult>& results,
                                                   const std::vector<std::string>& expected) {
  std::set<std::string> folders, passing;
  std::map<std::string, const CaseResult*> by_name;
  for (const CaseResult& r : results) {
    const std::string name = r.folder + "/" + r.name;
    folders.insert(r.folder);
    by_name[name] = &r;
    if (r.outcome == Outcome::Passed) passing.insert(name);
  }
  std::vector<std::string> lines;
  std::set<std::string> listed;
  for (const std::string& name : expected) {
    if (!folders.count(name.substr(0, name.find('/')))) continue;
    listed.insert(name);
    if (passing.count(name)) continue;
    const auto it = by_name.find(name);
    lines.push_back(it == by_name.end()
                        ? name + ": expected to pass, but there is no such case"
                        : name + ": expected to pass, now " + outcome_name(it->second->outcome) +
                              ": " + it->second->message);
  }
  for (const std::string& name : passing)
    if (!listed.count(name)) lines.push_back(name + ": passes but is not in the list; add it");
  return lines;
}

std::map<std::string, FolderSummary> summarize(const std::vector<CaseResult>& results) {
  std::map<std::string, FolderSummary> summary;
  for (const CaseResult& r : results) {
    FolderSummary& s = summary[r.folder];
    switch (r.outcome) {
      case Outcome::Passed:
        ++s.passed;
        s.folded += r.folded ? 1 : 0;
        break;
      case Outcome::Failed:
        ++s.failed;
        break;
      case Outcome::Unsupported:
        ++s.unsupported;
        break;
      case Outcome::KnownFailure:
        ++s.known;
        break;
      case Outcome::UnexpectedPass:
        ++s.unexpected_pass;
        break;
    }
  }
  return summary;
}

}  // namespace lathe::conformance
