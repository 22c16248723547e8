// Whether this CPU can run code compiled for an LLVM feature string: the
// package loader refuses a mod.so built for instructions the host lacks
// rather than dying of SIGILL in the middle of a run.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace lathe::runtime {

// The "flags" of the first processor in /proc/cpuinfo; empty where there is
// no such line (not x86, or no /proc).
std::set<std::string> host_cpu_flags();

// The cpuinfo flag for an LLVM x86 feature that code generation can emit
// instructions for (SIMD, bit manipulation, crypto, AMX ...): "sse4.1" ->
// "sse4_1", "avx512vnni" -> "avx512_vnni", "lzcnt" -> "abm", "avx2" -> "avx2".
// Empty for features that are not such instruction-set extensions (tuning
// flags like "fast-gather", "64bit", and system features like "xsave", "sgx",
// "pku" that kernels never use): those are not checked.
std::string cpuinfo_flag_for(const std::string& llvm_feature);

// The "+feature"s of `llvm_features` ("+avx2,+avx512f,-sse4a") that map to a
// cpuinfo flag `cpu_flags` lacks, in the order given. With no flags at all
// (a host without /proc/cpuinfo flags) nothing can be checked: empty.
std::vector<std::string> missing_cpu_features(const std::string& llvm_features,
                                              const std::set<std::string>& cpu_flags);
std::vector<std::string> missing_cpu_features(const std::string& llvm_features);

}  // namespace lathe::runtime
