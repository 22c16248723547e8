// Whether a CPU can run code compiled for an LLVM feature string: the
// package loader refuses a mod.so, and the JIT (codegen::check_jit_target) a
// target, built for instructions the host lacks rather than dying of SIGILL
// in the middle of a run.
//
// One truth, for both: the features come from CPUID and XCR0, decoded with
// the names and the rules of LLVM's host detection
// (llvm::sys::getHostCPUFeatures), so a package the compiler built for this
// host always loads on it; and one allow-list (cpu_features.cpp) says which
// features generated code can contain, so system facilities a hypervisor
// hides (invpcid, rdseed, xsaves, pku ...) refuse neither. The kernel's
// /proc/cpuinfo is not consulted: its flag list is the kernel's own choice
// (a Zen 5 VM listed neither lzcnt's "abm" nor "sse4a" though CPUID has both).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace lathe::runtime {

// The CPUID leaves and the XCR0 register that decide what a CPU and its OS
// run: the host's own (read_host_cpuid) or one recorded from another machine
// (tests). A leaf the CPU does not have is all zeros.
struct CpuidSnapshot {
  struct Registers {
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  };
  Registers leaf1;     // CPUID 1
  Registers leaf7;     // CPUID 7, subleaf 0
  Registers leaf7_1;   // CPUID 7, subleaf 1
  Registers leaf_d_1;  // CPUID 0xD, subleaf 1 (XSAVE variants)
  Registers leaf14;    // CPUID 0x14 (processor trace)
  Registers leaf19;    // CPUID 0x19 (key locker)
  Registers leaf24;    // CPUID 0x24 (AVX10)
  Registers ext1;      // CPUID 0x80000001
  Registers ext8;      // CPUID 0x80000008
  uint64_t xcr0 = 0;   // register state the OS saves (0 without OSXSAVE)
};

// This machine's CPUID; all zeros where the CPU is not x86.
CpuidSnapshot read_host_cpuid();

// The LLVM names of the features a snapshot announces and its OS enables
// ("avx2", "avx512f", "lzcnt", "sse4.1" ...), as LLVM's host detection
// reports them: AVX state must be saved by the OS for AVX, FMA, F16C, AVX2;
// AVX-512 state for every AVX-512 extension; AMX tile state for AMX.
std::set<std::string> decode_cpu_features(const CpuidSnapshot& cpuid);

// decode_cpu_features(read_host_cpuid()), read once.
const std::set<std::string>& host_cpu_features();

// Every feature name decode_cpu_features can report.
std::vector<std::string> detectable_cpu_features();

// The "+feature"s of `llvm_features` ("+avx2,+avx512f,-sse4a") that generated
// code can contain and `available` lacks, in the order given. Only the
// instruction sets code generation emits are compared (SSE to AVX-512 with
// VNNI, BF16 and FP16, AMX, FMA, F16C, BMI1/2, LZCNT, POPCNT, MOVBE ...);
// system facilities and instructions reached only through their own
// intrinsics (invpcid, xsaves, pku, sgx, rdseed, aes ...) are not. A name
// this runtime cannot detect counts as missing: it may be an instruction set
// newer than the table, and nothing vouches for it.
std::vector<std::string> missing_cpu_features(const std::string& llvm_features,
                                              const std::set<std::string>& available);
std::vector<std::string> missing_cpu_features(const std::string& llvm_features);

}  // namespace lathe::runtime
