// Command-line front of the conformance runner, for working on one operator:
//   onnx_conformance [--filter SUBSTRING] [--folder NAME]... [--compiled | --simulated-gpu]
//                    [--verbose]
//                    [--exceptions FILE] [--list-passing]
// --list-passing prints the passing cases as expected_passes*.txt lists them.
#include <cstring>
#include <iostream>

#include "conformance_runner.h"

using namespace lathe::conformance;

int main(int argc, char** argv) {
  RunOptions options;
  bool verbose = false, list_passing = false;
  std::vector<std::string> folders;
  std::string exceptions = LATHE_CONFORMANCE_EXCEPTIONS;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--filter")
      options.filter = value();
    else if (a == "--folder")
      folders.push_back(value());
    else if (a == "--exceptions")
      exceptions = value();
    else if (a == "--compiled")
      options.executor = ExecutorKind::Compiled;
    else if (a == "--simulated-gpu")
      options.executor = ExecutorKind::SimulatedGpu;
    else if (a == "--verbose" || a == "-v")
      verbose = true;
    else if (a == "--list-passing")
      list_passing = true;
    else {
      std::cout << "usage: onnx_conformance [--filter SUBSTRING] [--folder node|pytorch-converted|"
                   "pytorch-operator|simple]... [--compiled | --simulated-gpu] [--verbose]\n"
                   "                       [--exceptions FILE] [--list-passing]\n"
                   "Runs ONNX backend test cases through the reference executor (or with\n"
                   "--compiled through the graph compiler and graph executor, with\n"
                   "--simulated-gpu compiled for cuda on the GPU simulator); prints each\n"
                   "non-passing case (all cases with --verbose) and counts per folder.\n";
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (!folders.empty()) options.folders = folders;
  options.exceptions = load_exceptions(exceptions);
  auto results = run_all(options, [&](const CaseResult& r) {
    if (list_passing) {
      if (r.outcome == Outcome::Passed) std::cout << r.folder << "/" << r.name << "\n";
      return;
    }
    if (verbose || (r.outcome != Outcome::Passed && r.outcome != Outcome::KnownFailure))
      std::cout << outcome_name(r.outcome) << "  " << r.folder << "/" << r.name << "  " << r.message
                << "\n";
  });
  int bad = 0;
  for (const auto& [folder, s] : summarize(results)) {
    bad += s.failed + s.unexpected_pass;
    if (list_passing) continue;
    std::cout << folder << ": " << s.passed << " passed, " << s.failed << " failed, "
              << s.unsupported << " unsupported, " << s.known << " known failures";
    if (s.unexpected_pass) std::cout << ", " << s.unexpected_pass << " unexpected passes";
    if (s.folded) std::cout << "; " << s.folded << " of the passes folded to constants";
    std::cout << "\n";
  }
  return bad == 0 ? 0 : 1;
}
