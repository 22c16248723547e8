// CPUID and XCR0 decoded into LLVM's x86 feature names.
#include "runtime/cpu_features.h"

#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace lathe::runtime {

namespace {

// Where a feature's bit lives in a snapshot.
enum class Reg {
  none,
  leaf1_ecx,
  leaf1_edx,
  leaf7_ebx,
  leaf7_ecx,
  leaf7_edx,
  leaf7_1_eax,
  leaf7_1_edx,
  leaf_d_1_eax,
  leaf14_ebx,
  leaf19_ebx,
  leaf24_ebx,
  ext1_ecx,
  ext1_edx,
  ext8_ebx,
};

struct Bit {
  Reg reg = Reg::none;
  int bit = 0;
};

// The register state the OS must save for a feature's instructions to work.
enum class State { none, avx, avx512, amx };

// Whether generated code can contain the feature's instructions: the
// allow-list that decides which features a CPU must have to run it (the JIT's
// check and the package loader's alike, through missing_cpu_features).
//   kernel:    LLVM selects these from the IR Lathe emits (vector and scalar
//              arithmetic, conversions, bit counts, fused multiply-adds,
//              prefetches): SSE to AVX-512 and AVX10, AMX, FMA/FMA4, F16C,
//              BMI1/2, LZCNT, POPCNT, MOVBE, XOP, GFNI, APX ...
//   intrinsic: user instructions LLVM emits only through their own x86
//              intrinsics (crypto, random numbers, ADX, CMPccXADD ...), which
//              Lathe's code generator never calls.
//   system:    privileged or OS facilities (context save, enclaves, shadow
//              stacks, TSX, INVPCID, protection keys ...), which hypervisors
//              often hide from guests whose CPU model names them.
// Intrinsic and system features are detected, so the names are known, but
// never compared: a VM hiding RDSEED or INVPCID runs -mcpu=skylake code.
enum class Use { kernel, intrinsic, system };

struct Feature {
  const char* name;
  Bit bit;
  State state;
  Use use;
  Bit also = {};  // a second bit that must be set too
};

// LLVM 19's getHostCPUFeatures for x86, one row per name, in its order; the
// K rows are the allow-list of features generated code can contain (see Use).
// tst_codegen_target checks on every test machine that this table and LLVM's
// own detection agree name for name.
const std::vector<Feature>& feature_table() {
  using R = Reg;
  using S = State;
  constexpr Use K = Use::kernel;
  constexpr Use I = Use::intrinsic;
  constexpr Use Y = Use::system;
  static const std::vector<Feature> table = {
      {"cx8", {R::leaf1_edx, 8}, S::none, K},
      {"cmov", {R::leaf1_edx, 15}, S::none, K},
      {"mmx", {R::leaf1_edx, 23}, S::none, K},
      {"fxsr", {R::leaf1_edx, 24}, S::none, Y},
      {"sse", {R::leaf1_edx, 25}, S::none, K},
      {"sse2", {R::leaf1_edx, 26}, S::none, K},
      {"sse3", {R::leaf1_ecx, 0}, S::none, K},
      {"pclmul", {R::leaf1_ecx, 1}, S::none, I},
      {"ssse3", {R::leaf1_ecx, 9}, S::none, K},
      {"cx16", {R::leaf1_ecx, 13}, S::none, K},
      {"sse4.1", {R::leaf1_ecx, 19}, S::none, K},
      {"sse4.2", {R::leaf1_ecx, 20}, S::none, K},
      {"crc32", {R::leaf1_ecx, 20}, S::none, I},
      {"movbe", {R::leaf1_ecx, 22}, S::none, K},
      {"popcnt", {R::leaf1_ecx, 23}, S::none, K},
      {"aes", {R::leaf1_ecx, 25}, S::none, I},
      {"rdrnd", {R::leaf1_ecx, 30}, S::none, I},
      {"avx", {R::leaf1_ecx, 28}, S::avx, K},
      {"fma", {R::leaf1_ecx, 12}, S::avx, K},
      {"xsave", {R::leaf1_ecx, 26}, S::avx, Y},
      {"f16c", {R::leaf1_ecx, 29}, S::avx, K},
      {"sahf", {R::ext1_ecx, 0}, S::none, K},
      {"lzcnt", {R::ext1_ecx, 5}, S::none, K},
      {"sse4a", {R::ext1_ecx, 6}, S::none, K},
      {"prfchw", {R::ext1_ecx, 8}, S::none, K},
      {"xop", {R::ext1_ecx, 11}, S::avx, K},
      {"lwp", {R::ext1_ecx, 15}, S::none, Y},
      {"fma4", {R::ext1_ecx, 16}, S::avx, K},
      {"tbm", {R::ext1_ecx, 21}, S::none, K},
      {"mwaitx", {R::ext1_ecx, 29}, S::none, Y},
      {"64bit", {R::ext1_edx, 29}, S::none, K},
      {"clzero", {R::ext8_ebx, 0}, S::none, Y},
      {"rdpru", {R::ext8_ebx, 4}, S::none, Y},
      {"wbnoinvd", {R::ext8_ebx, 9}, S::none, Y},
      {"fsgsbase", {R::leaf7_ebx, 0}, S::none, Y},
      {"sgx", {R::leaf7_ebx, 2}, S::none, Y},
      {"bmi", {R::leaf7_ebx, 3}, S::none, K},
      {"avx2", {R::leaf7_ebx, 5}, S::avx, K},
      {"bmi2", {R::leaf7_ebx, 8}, S::none, K},
      {"invpcid", {R::leaf7_ebx, 10}, S::none, Y},
      {"rtm", {R::leaf7_ebx, 11}, S::none, Y},
      {"avx512f", {R::leaf7_ebx, 16}, S::avx512, K},
      {"evex512", {R::leaf7_ebx, 16}, S::avx512, K},  // 512-bit EVEX: with AVX-512F
      {"avx512dq", {R::leaf7_ebx, 17}, S::avx512, K},
      {"rdseed", {R::leaf7_ebx, 18}, S::none, I},
      {"adx", {R::leaf7_ebx, 19}, S::none, I},
      {"avx512ifma", {R::leaf7_ebx, 21}, S::avx512, K},
      {"clflushopt", {R::leaf7_ebx, 23}, S::none, I},
      {"clwb", {R::leaf7_ebx, 24}, S::none, I},
      {"avx512cd", {R::leaf7_ebx, 28}, S::avx512, K},
      {"sha", {R::leaf7_ebx, 29}, S::none, I},
      {"avx512bw", {R::leaf7_ebx, 30}, S::avx512, K},
      {"avx512vl", {R::leaf7_ebx, 31}, S::avx512, K},
      {"avx512vbmi", {R::leaf7_ecx, 1}, S::avx512, K},
      {"pku", {R::leaf7_ecx, 4}, S::none, Y},
      {"waitpkg", {R::leaf7_ecx, 5}, S::none, Y},
      {"avx512vbmi2", {R::leaf7_ecx, 6}, S::avx512, K},
      {"shstk", {R::leaf7_ecx, 7}, S::none, Y},
      {"gfni", {R::leaf7_ecx, 8}, S::none, K},
      {"vaes", {R::leaf7_ecx, 9}, S::avx, I},
      {"vpclmulqdq", {R::leaf7_ecx, 10}, S::avx, I},
      {"avx512vnni", {R::leaf7_ecx, 11}, S::avx512, K},
      {"avx512bitalg", {R::leaf7_ecx, 12}, S::avx512, K},
      {"avx512vpopcntdq", {R::leaf7_ecx, 14}, S::avx512, K},
      {"rdpid", {R::leaf7_ecx, 22}, S::none, Y},
      {"kl", {R::leaf7_ecx, 23}, S::none, Y},
      {"cldemote", {R::leaf7_ecx, 25}, S::none, Y},
      {"movdiri", {R::leaf7_ecx, 27}, S::none, Y},
      {"movdir64b", {R::leaf7_ecx, 28}, S::none, Y},
      {"enqcmd", {R::leaf7_ecx, 29}, S::none, Y},
      {"uintr", {R::leaf7_edx, 5}, S::none, Y},
      {"avx512vp2intersect", {R::leaf7_edx, 8}, S::avx512, K},
      {"serialize", {R::leaf7_edx, 14}, S::none, Y},
      {"tsxldtrk", {R::leaf7_edx, 16}, S::none, Y},
      {"pconfig", {R::leaf7_edx, 18}, S::none, Y},
      {"amx-bf16", {R::leaf7_edx, 22}, S::amx, K},
      {"avx512fp16", {R::leaf7_edx, 23}, S::avx512, K},
      {"amx-tile", {R::leaf7_edx, 24}, S::amx, K},
      {"amx-int8", {R::leaf7_edx, 25}, S::amx, K},
      {"sha512", {R::leaf7_1_eax, 0}, S::none, I},
      {"sm3", {R::leaf7_1_eax, 1}, S::none, I},
      {"sm4", {R::leaf7_1_eax, 2}, S::none, I},
      {"raoint", {R::leaf7_1_eax, 3}, S::none, I},
      {"avxvnni", {R::leaf7_1_eax, 4}, S::avx, K},
      {"avx512bf16", {R::leaf7_1_eax, 5}, S::avx512, K},
      {"amx-fp16", {R::leaf7_1_eax, 21}, S::amx, K},
      {"cmpccxadd", {R::leaf7_1_eax, 7}, S::none, I},
      {"hreset", {R::leaf7_1_eax, 22}, S::none, Y},
      {"avxifma", {R::leaf7_1_eax, 23}, S::avx, K},
      {"avxvnniint8", {R::leaf7_1_edx, 4}, S::avx, K},
      {"avxneconvert", {R::leaf7_1_edx, 5}, S::avx, K},
      {"amx-complex", {R::leaf7_1_edx, 8}, S::amx, K},
      {"avxvnniint16", {R::leaf7_1_edx, 10}, S::avx, K},
      {"prefetchi", {R::leaf7_1_edx, 14}, S::none, K},
      {"usermsr", {R::leaf7_1_edx, 15}, S::none, Y},
      {"avx10.1-256", {R::leaf7_1_edx, 19}, S::none, K},
      // APX: one CPUID bit, six LLVM features.
      {"egpr", {R::leaf7_1_edx, 21}, S::none, K},
      {"push2pop2", {R::leaf7_1_edx, 21}, S::none, K},
      {"ppx", {R::leaf7_1_edx, 21}, S::none, K},
      {"ndd", {R::leaf7_1_edx, 21}, S::none, K},
      {"ccmp", {R::leaf7_1_edx, 21}, S::none, K},
      {"cf", {R::leaf7_1_edx, 21}, S::none, K},
      {"xsaveopt", {R::leaf_d_1_eax, 0}, S::avx, Y},
      {"xsavec", {R::leaf_d_1_eax, 1}, S::avx, Y},
      {"xsaves", {R::leaf_d_1_eax, 3}, S::avx, Y},
      {"ptwrite", {R::leaf14_ebx, 4}, S::none, Y},
      {"widekl", {R::leaf19_ebx, 2}, S::none, Y},
      {"avx10.1-512", {R::leaf7_1_edx, 19}, S::none, K, {R::leaf24_ebx, 18}},
  };
  return table;
}

uint32_t word(const CpuidSnapshot& s, Reg reg) {
  switch (reg) {
    case Reg::none:
      return 0;
    case Reg::leaf1_ecx:
      return s.leaf1.ecx;
    case Reg::leaf1_edx:
      return s.leaf1.edx;
    case Reg::leaf7_ebx:
      return s.leaf7.ebx;
    case Reg::leaf7_ecx:
      return s.leaf7.ecx;
    case Reg::leaf7_edx:
      return s.leaf7.edx;
    case Reg::leaf7_1_eax:
      return s.leaf7_1.eax;
    case Reg::leaf7_1_edx:
      return s.leaf7_1.edx;
    case Reg::leaf_d_1_eax:
      return s.leaf_d_1.eax;
    case Reg::leaf14_ebx:
      return s.leaf14.ebx;
    case Reg::leaf19_ebx:
      return s.leaf19.ebx;
    case Reg::leaf24_ebx:
      return s.leaf24.ebx;
    case Reg::ext1_ecx:
      return s.ext1.ecx;
    case Reg::ext1_edx:
      return s.ext1.edx;
    case Reg::ext8_ebx:
      return s.ext8.ebx;
  }
  return 0;
}

bool is_set(const CpuidSnapshot& s, Bit b) {
  return (word(s, b.reg) >> b.bit) & 1u;
}

const Feature* find_feature(const std::string& name) {
  for (const Feature& f : feature_table())
    if (name == f.name) return &f;
  return nullptr;
}

#if defined(__x86_64__) || defined(__i386__)
CpuidSnapshot::Registers cpuid(unsigned leaf, unsigned subleaf) {
  CpuidSnapshot::Registers r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  // xgetbv is legal only where the OS set CR4.OSXSAVE (CPUID 1 ECX bit 27).
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}
#endif

}  // namespace

CpuidSnapshot read_host_cpuid() {
  CpuidSnapshot s;
#if defined(__x86_64__) || defined(__i386__)
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 1) return s;
  s.leaf1 = cpuid(1, 0);
  if ((s.leaf1.ecx >> 27) & 1u) s.xcr0 = read_xcr0();
  if (max_leaf >= 7) {
    s.leaf7 = cpuid(7, 0);
    // Subleaf 0's EAX is the last valid subleaf; some CPUs answer garbage
    // for the ones beyond it.
    if (s.leaf7.eax >= 1) s.leaf7_1 = cpuid(7, 1);
  }
  if (max_leaf >= 0xd) s.leaf_d_1 = cpuid(0xd, 1);
  if (max_leaf >= 0x14) s.leaf14 = cpuid(0x14, 0);
  if (max_leaf >= 0x19) s.leaf19 = cpuid(0x19, 0);
  if (max_leaf >= 0x24) s.leaf24 = cpuid(0x24, 0);
  const unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  if (max_ext >= 0x80000001u) s.ext1 = cpuid(0x80000001u, 0);
  if (max_ext >= 0x80000008u) s.ext8 = cpuid(0x80000008u, 0);
#endif
  return s;
}

std::set<std::string> decode_cpu_features(const CpuidSnapshot& s) {
  // The OS saves a register file only if it says so in XCR0: SSE and AVX
  // halves (bits 1, 2), AVX-512's opmask and upper registers (5, 6, 7), AMX
  // tile configuration and data (17, 18).
  const bool xsave = (s.leaf1.ecx >> 27) & 1u;
  const bool avx_state = xsave && ((s.leaf1.ecx >> 28) & 1u) && (s.xcr0 & 0x6) == 0x6;
  const bool avx512_state = avx_state && (s.xcr0 & 0xe0) == 0xe0;
  const uint64_t amx_bits = (uint64_t(1) << 17) | (uint64_t(1) << 18);
  const bool amx_state = xsave && (s.xcr0 & amx_bits) == amx_bits;

  std::set<std::string> features;
  for (const Feature& f : feature_table()) {
    if (!is_set(s, f.bit)) continue;
    if (f.also.reg != Reg::none && !is_set(s, f.also)) continue;
    const bool saved = f.state == State::none || (f.state == State::avx && avx_state) ||
                       (f.state == State::avx512 && avx512_state) ||
                       (f.state == State::amx && amx_state);
    if (saved) features.insert(f.name);
  }
  return features;
}

const std::set<std::string>& host_cpu_features() {
  static const std::set<std::string> features = decode_cpu_features(read_host_cpuid());
  return features;
}

std::vector<std::string> detectable_cpu_features() {
  std::vector<std::string> names;
  for (const Feature& f : feature_table()) names.push_back(f.name);
  return names;
}

std::vector<std::string> missing_cpu_features(const std::string& llvm_features,
                                              const std::set<std::string>& available) {
  std::vector<std::string> missing;
  std::istringstream items(llvm_features);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.size() < 2 || item[0] != '+') continue;
    const std::string name = item.substr(1);
    const Feature* feature = find_feature(name);
    if (feature && feature->use != Use::kernel) continue;
    if (!available.count(name)) missing.push_back(name);
  }
  return missing;
}

std::vector<std::string> missing_cpu_features(const std::string& llvm_features) {
  return missing_cpu_features(llvm_features, host_cpu_features());
}

}  // namespace lathe::runtime
