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
};

struct FolderSummary {
  int passed = 0, failed = 0, unsupported = 0, known = 0, unexpected_pass = 0;
};

// Known exceptions: "folder/test_name  reason" lines; '#' starts a comment.
std::map<std::string, std::string> load_exceptions(const std::string& path);

// Which executor runs the cases: the reference kernels, or the graph
// compiler (passes, fusion, TOPI, LLVM JIT) and the graph executor.
enum class ExecutorKind { Reference, Compiled };

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
