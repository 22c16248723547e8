#include "driver/ptx_resources.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "driver/gpu_occupancy.h"
#include "support/error.h"
#include "support/run_program.h"

namespace lathe::driver {
namespace {

constexpr const char* kToolkitHint =
    "from NVIDIA's CUDA toolkit (not a Debian package: NVIDIA's apt repository, e.g. "
    "cuda-nvcc-12-x / cuda-nvdisasm-12-x), on PATH or in /usr/local/cuda/bin";

// A mkdtemp folder, removed with its files at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "lathe-ptxas-XXXXXX").string();
    LATHE_CHECK(::mkdtemp(pattern.data()), "cannot make a temporary folder for ptxas");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string comment_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += "// " + line + "\n";
  return out;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_verbose(const std::string& text) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::vector<KernelResources> kernels;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      kernels.push_back({.kernel = m[1]});
      continue;
    }
    if (kernels.empty()) continue;
    KernelResources& k = kernels.back();
    if (std::regex_search(line, m, frame)) {
      k.stack_bytes = std::stoll(m[1]);
      k.spill_store_bytes = std::stoll(m[2]);
      k.spill_load_bytes = std::stoll(m[3]);
    }
    if (std::regex_search(line, m, used)) {
      k.registers = std::stoll(m[1]);
      if (std::regex_search(line, m, barriers)) k.barriers = std::stoll(m[1]);
      if (std::regex_search(line, m, smem)) k.shared_bytes = std::stoll(m[1]);
    }
  }
  return kernels;
}

PtxasReport assemble_ptx(const std::string& ptx, const std::string& arch) {
  PtxasReport report;
  report.arch = arch;
  const std::optional<std::string> ptxas = find_cuda_tool("ptxas");
  if (!ptxas) {
    report.problem = str("no ptxas: resource usage needs ptxas ", kToolkitHint);
    return report;
  }
  report.ptxas = *ptxas;
  TempDir dir;
  {
    std::ofstream out(dir.file("kernels.ptx"), std::ios::binary);
    out << ptx;
    if (!out) {
      report.problem = "cannot write the PTX for ptxas";
      return report;
    }
  }
  std::string output;
  const int status = run_program(
      {*ptxas, "-v", "-arch=" + arch, dir.file("kernels.ptx"), "-o", dir.file("kernels.cubin")},
      output);
  if (status != 0) {
    report.problem =
        str(*ptxas, " -arch=", arch, " refused the PTX (exit ", status, "):\n", output);
    return report;
  }
  report.kernels = parse_ptxas_verbose(output);
  report.cubin = read_all(dir.file("kernels.cubin"));
  return report;
}

SassListing disassemble_cubin(const std::string& cubin) {
  SassListing listing;
  std::vector<std::string> command;
  if (std::optional<std::string> nvdisasm = find_cuda_tool("nvdisasm"))
    command = {*nvdisasm, "-c"};
  else if (std::optional<std::string> cuobjdump = find_cuda_tool("cuobjdump"))
    command = {*cuobjdump, "-sass"};
  if (command.empty()) {
    listing.problem = str("SASS needs nvdisasm (or cuobjdump) ", kToolkitHint);
    return listing;
  }
  TempDir dir;
  {
    std::ofstream out(dir.file("kernels.cubin"), std::ios::binary);
    out << cubin;
  }
  command.push_back(dir.file("kernels.cubin"));
  std::string output;
  const int status = run_program(command, output);
  if (status != 0)
    listing.problem = str(command[0], " failed (exit ", status, "):\n", output);
  else
    listing.text = std::move(output);
  return listing;
}

std::string format_kernel_resources(const KernelResources& k) {
  std::string spills =
      k.spill_store_bytes == 0 && k.spill_load_bytes == 0
          ? std::string("no spills")
          : str(k.spill_store_bytes, " B spill stores, ", k.spill_load_bytes, " B spill loads");
  return str(k.kernel, ": ", k.registers, " registers, ", k.shared_bytes, " B shared, ", spills,
             ", ", k.stack_bytes, " B stack, ", k.barriers, " barriers");
}

std::string format_ptxas_report(const PtxasReport& report,
                                const std::map<std::string, int64_t>& threads_per_block) {
  std::string text = str("ptxas -v -arch=", report.arch, " (", report.ptxas, "):\n");
  for (const KernelResources& k : report.kernels) {
    text += "  " + format_kernel_resources(k) + "\n";
    const auto threads = threads_per_block.find(k.kernel);
    if (threads == threads_per_block.end()) continue;
    if (const auto o = theoretical_occupancy(report.arch, threads->second, k))
      text += "    " + format_occupancy(*o, report.arch) + "\n";
  }
  return text;
}

std::string ptxas_header_comment(const PtxasReport& report,
                                 const std::map<std::string, int64_t>& threads_per_block) {
  if (!report.ok()) return comment_lines(report.problem) + "\n";
  return comment_lines(format_ptxas_report(report, threads_per_block)) + "\n";
}

std::string sass_footer_comment(const PtxasReport& report) {
  if (!report.ok()) return {};
  const SassListing sass = disassemble_cubin(report.cubin);
  return "\n" + comment_lines(sass.problem.empty() ? "SASS:\n" + sass.text : sass.problem);
}

}  // namespace lathe::driver
