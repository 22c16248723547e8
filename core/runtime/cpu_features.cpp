// LLVM x86 feature names against /proc/cpuinfo flags.
#include "runtime/cpu_features.h"

#include <fstream>
#include <map>
#include <sstream>

namespace lathe::runtime {

namespace {

// Instruction-set extensions LLVM can emit in kernels, by LLVM name, with the
// Linux cpuinfo flag that announces them.
const std::map<std::string, std::string>& isa_extensions() {
  static const std::map<std::string, std::string> table = {
      {"mmx", "mmx"},
      {"sse", "sse"},
      {"sse2", "sse2"},
      {"sse3", "pni"},
      {"ssse3", "ssse3"},
      {"sse4.1", "sse4_1"},
      {"sse4.2", "sse4_2"},
      {"sse4a", "sse4a"},
      {"avx", "avx"},
      {"avx2", "avx2"},
      {"fma", "fma"},
      {"fma4", "fma4"},
      {"xop", "xop"},
      {"f16c", "f16c"},
      {"popcnt", "popcnt"},
      {"lzcnt", "abm"},
      {"bmi", "bmi1"},
      {"bmi2", "bmi2"},
      {"tbm", "tbm"},
      {"movbe", "movbe"},
      {"adx", "adx"},
      {"aes", "aes"},
      {"pclmul", "pclmulqdq"},
      {"vpclmulqdq", "vpclmulqdq"},
      {"vaes", "vaes"},
      {"gfni", "gfni"},
      {"sha", "sha_ni"},
      {"rdrnd", "rdrand"},
      {"rdseed", "rdseed"},
      {"cx8", "cx8"},
      {"cx16", "cx16"},
      {"cmov", "cmov"},
      {"sahf", "lahf_lm"},
      {"prfchw", "3dnowprefetch"},
      {"fxsr", "fxsr"},
      {"avx512f", "avx512f"},
      {"avx512cd", "avx512cd"},
      {"avx512dq", "avx512dq"},
      {"avx512bw", "avx512bw"},
      {"avx512vl", "avx512vl"},
      {"avx512ifma", "avx512ifma"},
      {"avx512vbmi", "avx512vbmi"},
      {"avx512vbmi2", "avx512_vbmi2"},
      {"avx512vnni", "avx512_vnni"},
      {"avx512bitalg", "avx512_bitalg"},
      {"avx512vpopcntdq", "avx512_vpopcntdq"},
      {"avx512bf16", "avx512_bf16"},
      {"avx512fp16", "avx512_fp16"},
      {"avx512vp2intersect", "avx512_vp2intersect"},
      {"avxvnni", "avx_vnni"},
      {"amx-tile", "amx_tile"},
      {"amx-int8", "amx_int8"},
      {"amx-bf16", "amx_bf16"},
      {"amx-fp16", "amx_fp16"},
  };
  return table;
}

}  // namespace

std::set<std::string> host_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

std::string cpuinfo_flag_for(const std::string& llvm_feature) {
  auto it = isa_extensions().find(llvm_feature);
  return it == isa_extensions().end() ? std::string() : it->second;
}

std::vector<std::string> missing_cpu_features(const std::string& llvm_features,
                                              const std::set<std::string>& cpu_flags) {
  std::vector<std::string> missing;
  if (cpu_flags.empty()) return missing;
  std::istringstream items(llvm_features);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.size() < 2 || item[0] != '+') continue;
    const std::string feature = item.substr(1);
    const std::string flag = cpuinfo_flag_for(feature);
    if (!flag.empty() && !cpu_flags.count(flag)) missing.push_back(feature);
  }
  return missing;
}

std::vector<std::string> missing_cpu_features(const std::string& llvm_features) {
  return missing_cpu_features(llvm_features, host_cpu_flags());
}

}  // namespace lathe::runtime
