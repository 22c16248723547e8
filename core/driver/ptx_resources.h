// What NVIDIA's assembler makes of Lathe's PTX: per kernel the registers,
// spills, stack and shared memory `ptxas -v -arch=sm_XX` reports, and the
// SASS when nvdisasm (or cuobjdump) is there. The CUDA toolkit is never a
// build dependency (it is not a Debian package): its programs are found at
// run time (find_cuda_tool), and without them the report says how to get
// them. Used by `lathe compile --target cuda --ptxas` and the studio's PTX
// view.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lathe::driver {

struct KernelResources {
  std::string kernel;
  int64_t registers = 0;
  int64_t barriers = 0;
  int64_t shared_bytes = 0;  // static shared memory
  int64_t stack_bytes = 0;   // the stack frame (local memory)
  int64_t spill_store_bytes = 0, spill_load_bytes = 0;
};

// The kernels of `ptxas -v` output, in the order it reports them; lines it
// does not know are skipped (ptxas adds some between versions).
std::vector<KernelResources> parse_ptxas_verbose(const std::string& text);

struct PtxasReport {
  std::string ptxas;  // the program that ran; empty when none was found
  std::string arch;   // "sm_90"
  std::vector<KernelResources> kernels;
  std::string cubin;    // the assembled binary, for disassembly
  std::string problem;  // why there is no report: ptxas missing, or what it refused
  bool ok() const { return problem.empty(); }
};

// Assembles `ptx` for `arch` with ptxas -v in a temporary folder. Never
// throws for a missing ptxas or PTX it refuses: `problem` says which.
PtxasReport assemble_ptx(const std::string& ptx, const std::string& arch);

// The SASS of an assembled cubin, by nvdisasm (or cuobjdump -sass); else
// why not ("needs nvdisasm from the CUDA toolkit ...").
struct SassListing {
  std::string text;
  std::string problem;
};
SassListing disassemble_cubin(const std::string& cubin);

// One line a kernel: "add: 10 registers, 0 B shared, no spills, 0 B stack".
std::string format_kernel_resources(const KernelResources& k);

// "ptxas -v -arch=sm_90 (PATH):" and a line per kernel
// (format_kernel_resources); with the kernels' threads per block, each
// kernel's theoretical occupancy under it (driver/gpu_occupancy.h). What
// `lathe compile --ptxas` prints.
std::string format_ptxas_report(const PtxasReport& report,
                                const std::map<std::string, int64_t>& threads_per_block = {});

// The report (format_ptxas_report, or why there is none) and the SASS as PTX
// comments ("// ..." lines) to show above and below the PTX in the studio.
std::string ptxas_header_comment(const PtxasReport& report,
                                 const std::map<std::string, int64_t>& threads_per_block = {});
std::string sass_footer_comment(const PtxasReport& report);

}  // namespace lathe::driver
