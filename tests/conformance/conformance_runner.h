// Runs ONNX's backend conformance cases (model.onnx + test_data_set_*/*.pb)
// through Lathe and classifies each as passed, failed or unsupported.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace lathe::conformance {

enum class Outcome { Passed, Failed, Unsupported, KnownFailure, UnexpectedPass };

struct CaseResult {
  std::string folder;  // "node", "pytorch-operator", ...
  std::string name;    // "test_add_bcast"
  Outcome outcome = Outcome::Failed;
  std::string message;  // why it failed or is unsupported
  // Compiled only: the graph folded to constants, so no kernel ran.
  bool folded = false;
};

struct FolderSummary {
  int passed = 0, failed = 0, unsupported = 0, known = 0, unexpected_pass = 0;
  int folded = 0;  // of the passed: compiled cases that ran no kernel
};

// Known exceptions: "folder/test_name  reason" lines; '#' starts a comment.
std::map<std::string, std::string> load_exceptions(const std::string& path);

// The cases expected to pass: "folder/test_name" lines; '#' starts a comment.
std::vector<std::string> load_case_list(const std::string& path);

// Where the passing cases of `results` differ from `expected` (folders not
// in `results` are not compared): one line per case that no longer passes
// (and why) or that passes unlisted.
std::vector<std::string> expected_pass_differences(const std::vector<CaseResult>& results,
                                                   const std::vector<std::string>& expected);

// Which executor runs the cases: the reference kernels, or the graph
// compiler (passes, fusion, TOPI, LLVM JIT) and the graph executor, or the
// graph compiled for a cuda GPU (sm_90) with its kernels run by the GPU
// simulator on the host.
enum class ExecutorKind { Reference, Compiled, SimulatedGpu };

CaseResult run_case(const std::string& case_dir, const std::string& folder,
                    ExecutorKind executor = ExecutorKind::Reference);

struct RunOptions {
  std::string data_root = "/usr/share/libonnx-testdata/data";
  std::vector<std::string> folders = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  std::string filter;  // substring of the case name; empty runs all
  std::map<std::string, std::string> exceptions;
  ExecutorKind executor = ExecutorKind::Reference;
};

std::vector<CaseResult> run_all(const RunOptions& options,
                                const std::function<void(const CaseResult&)>& on_result = {});
std::map<std::string, FolderSummary> summarize(const std::vector<CaseResult>& results);
const char* outcome_name(Outcome o);

}  // namespace lathe::conformance
