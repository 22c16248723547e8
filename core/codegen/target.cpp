// Target strings: parsing with errors that name the bad option, defaults from
// the host CPU, and validation of CPU and feature names against LLVM's tables.
#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "codegen/codegen.h"
#include "codegen/llvm_codegen.h"
#include "support/error.h"

namespace lathe::codegen {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// Subtarget tables of the target's triple: the CPUs and features LLVM knows.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget_info(const std::string& where,
                                                      const std::string& triple,
                                                      const std::string& cpu,
                                                      const std::string& features) {
  detail::initialize_llvm();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    fail(str(where, ": triple '", triple,
             "' is not available (Lathe initialises the native LLVM target and NVPTX)"));
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, cpu, features));
}

// Detected once: every function of every kernel is tagged with these.
const std::string& host_feature_string() {
  static const std::string features = [] {
    std::vector<std::string> parts;
    for (const auto& entry : llvm::sys::getHostCPUFeatures())
      parts.push_back((entry.second ? "+" : "-") + entry.first().str());
    std::sort(parts.begin(), parts.end());
    return join(parts, ",");
  }();
  return features;
}

const std::string& host_cpu_name() {
  static const std::string name = llvm::sys::getHostCPUName().str();
  return name;
}

}  // namespace

const char* target_kind_name(TargetKind kind) {
  switch (kind) {
    case TargetKind::Llvm:
      return "llvm";
    case TargetKind::Cuda:
      return "cuda";
  }
  return "?";
}

namespace {

// One option of a target kind: its key, how it is written, and how its value
// (empty when it has none) sets the target; `set` throws with the option's own
// message, `where` names the target text.
struct KindOption {
  const char* key;
  const char* syntax;
  void (*set)(Target& target, const std::string& where, const std::string& key,
              const std::string& value, bool has_value);
};

// A row of the table of kinds: what `parse` reads after the kind's name, and
// an example for the messages. A new kind is a row and its options.
struct KindInfo {
  TargetKind kind;
  const char* name;
  const char* example;
  std::vector<KindOption> options;
};

void need_value(const std::string& where, const std::string& key, const std::string& value) {
  if (value.empty()) fail(str(where, ": option '", key, "' needs a value, as '", key, "=...'"));
}

int64_t positive_integer(const std::string& where, const std::string& key,
                         const std::string& value) {
  need_value(where, key, value);
  int64_t v = 0;
  bool ok = value.size() <= 12;
  for (char c : value) {
    if (c < '0' || c > '9') ok = false;
    if (ok) v = v * 10 + (c - '0');
  }
  if (!ok || v <= 0) fail(str(where, ": ", key, " must be a positive integer, got '", value, "'"));
  return v;
}

void set_opt_level(Target& t, const std::string& where, const std::string& key,
                   const std::string& value, bool) {
  need_value(where, key, value);
  if (value.size() != 1 || value[0] < '0' || value[0] > '3')
    fail(str(where, ": -opt-level must be 0, 1, 2 or 3, got '", value, "'"));
  t.opt_level = value[0] - '0';
}

void set_fast_math(Target& t, const std::string& where, const std::string&, const std::string&,
                   bool has_value) {
  if (has_value) fail(str(where, ": -fast-math takes no value"));
  t.fast_math = true;
}

const std::vector<KindInfo>& kind_table() {
  static const std::vector<KindInfo> table = {
      {TargetKind::Llvm,
       "llvm",
       "'llvm -mcpu=znver4'",
       {
           {"-mcpu", "-mcpu=NAME",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              need_value(where, key, value);
              t.mcpu = value;
            }},
           {"-mattr", "-mattr=+feature,-feature,...",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              need_value(where, key, value);
              for (const std::string& feature : split(value, ',')) {
                if (feature.size() < 2 || (feature[0] != '+' && feature[0] != '-'))
                  fail(str(where, ": -mattr entry '", feature,
                           "' must be a feature name with + or - in front, as '+avx2'"));
                t.mattr.push_back(feature);
              }
            }},
           {"-mtriple", "-mtriple=TRIPLE",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              need_value(where, key, value);
              t.mtriple = value;
            }},
           {"-opt-level", "-opt-level=0..3", set_opt_level},
           {"-fast-math", "-fast-math", set_fast_math},
       }},
      {TargetKind::Cuda,
       "cuda",
       "'cuda -arch=sm_90'",
       {
           {"-arch", "-arch=sm_NN",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              need_value(where, key, value);
              const bool digits = value.size() >= 5 && value.compare(0, 3, "sm_") == 0 &&
                                  std::all_of(value.begin() + 3, value.end(), [](char c) {
                                    return (c >= '0' && c <= '9') || c == 'a';
                                  });
              if (!digits)
                fail(str(where,
                         ": -arch must be sm_NN (the GPU's compute capability, e.g. sm_90 "
                         "for H100), got '",
                         value, "'"));
              t.arch = value;
            }},
           {"-max_threads_per_block", "-max_threads_per_block=N",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              t.max_threads_per_block = positive_integer(where, key, value);
              if (t.max_threads_per_block > 1024)
                fail(str(where,
                         ": -max_threads_per_block is at most 1024 on every NVIDIA GPU, got ",
                         value));
            }},
           {"-max_shared_memory_per_block", "-max_shared_memory_per_block=BYTES",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value,
               bool) { t.max_shared_memory_per_block = positive_integer(where, key, value); }},
           {"-thread_warp_size", "-thread_warp_size=32",
            [](Target& t, const std::string& where, const std::string& key,
               const std::string& value, bool) {
              t.thread_warp_size = positive_integer(where, key, value);
              if (t.thread_warp_size != 32)
                fail(str(where, ": -thread_warp_size is 32 on NVIDIA GPUs, got ", value));
            }},
           {"-opt-level", "-opt-level=0..3", set_opt_level},
           {"-fast-math", "-fast-math", set_fast_math},
       }},
  };
  return table;
}

std::string option_list(const KindInfo& kind) {
  std::vector<std::string> parts;
  for (const KindOption& o : kind.options) parts.push_back(o.syntax);
  return join(parts, ", ");
}

std::string kind_names() {
  std::vector<std::string> parts;
  for (const KindInfo& k : kind_table())
    parts.push_back(str("'", k.name, "' (e.g. ", k.example, ")"));
  return join(parts, ", ");
}

const KindInfo& kind_info(TargetKind kind) {
  for (const KindInfo& k : kind_table())
    if (k.kind == kind) return k;
  fail("target kind without a row in the table of kinds");
}

}  // namespace

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  const std::string where = str("target '", text, "'");
  if (tokens.empty()) fail(str(where, ": empty; expected a kind and its options: ", kind_names()));
  const KindInfo* kind = nullptr;
  for (const KindInfo& k : kind_table())
    if (tokens[0] == k.name) kind = &k;
  if (!kind)
    fail(str(where, ": unknown target kind '", tokens[0], "'; Lathe compiles for ", kind_names()));
  Target target;
  target.kind = kind->kind;
  std::set<std::string> given;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token.size() < 2 || token[0] != '-')
      fail(str(where, ": expected an option starting with '-', got '", token, "' (options of '",
               kind->name, "': ", option_list(*kind), ")"));
    const size_t eq = token.find('=');
    const std::string key = token.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? token.substr(eq + 1) : "";
    if (!given.insert(key).second) fail(str(where, ": option '", key, "' is given twice"));
    const KindOption* option = nullptr;
    for (const KindOption& o : kind->options)
      if (key == o.key) option = &o;
    if (!option)
      fail(str(where, ": unknown option '", key, "' for kind '", kind->name,
               "' (options: ", option_list(*kind), ")"));
    option->set(target, where, key, value, has_value);
  }

  if (target.kind == TargetKind::Cuda) {
    // An arch the NVPTX back end does not know would fail later, inside LLVM.
    auto info = subtarget_info(where, target.triple(), "", "");
    if (!info->isCPUStringValid(target.arch))
      fail(str(where, ": LLVM's NVPTX back end does not know -arch=", target.arch,
               " (it knows sm_20 ... sm_90a; e.g. sm_80 for A100, sm_90 for H100)"));
    return target;
  }

  // Names LLVM does not know would only produce a warning on stderr and a
  // generic CPU: reject them here, where the user can still see why.
  auto info = subtarget_info(where, target.triple(), "", "");
  if (!target.mcpu.empty() && target.mcpu != "native" && !info->isCPUStringValid(target.mcpu))
    fail(str(where, ": unknown CPU '", target.mcpu, "' for ", target.triple(),
             " (e.g. x86-64-v3, skylake-avx512, znver4, native)"));
  std::set<std::string> known;
  for (const llvm::SubtargetFeatureKV& kv : info->getAllProcessorFeatures()) known.insert(kv.Key);
  for (const std::string& feature : target.mattr)
    if (!known.count(feature.substr(1)))
      fail(str(where, ": unknown CPU feature '", feature.substr(1), "' for ", target.triple(),
               " (e.g. avx2, fma, avx512f)"));
  return target;
}

std::string Target::to_string() const {
  std::string out = kind_info(kind).name;
  if (kind == TargetKind::Cuda) {
    const Target defaults;  // the kind's defaults
    if (arch != defaults.arch) out += " -arch=" + arch;
    if (max_threads_per_block != defaults.max_threads_per_block)
      out += " -max_threads_per_block=" + std::to_string(max_threads_per_block);
    if (max_shared_memory_per_block != defaults.max_shared_memory_per_block)
      out += " -max_shared_memory_per_block=" + std::to_string(max_shared_memory_per_block);
    if (thread_warp_size != defaults.thread_warp_size)
      out += " -thread_warp_size=" + std::to_string(thread_warp_size);
  } else {
    if (!mcpu.empty()) out += " -mcpu=" + mcpu;
    if (!mattr.empty()) out += " -mattr=" + join(mattr, ",");
    if (!mtriple.empty()) out += " -mtriple=" + mtriple;
  }
  if (opt_level != 3) out += " -opt-level=" + std::to_string(opt_level);
  if (fast_math) out += " -fast-math";
  return out;
}

std::string Target::cpu() const {
  if (kind == TargetKind::Cuda) return arch;
  if (mcpu.empty() || mcpu == "native") return host_cpu_name();
  return mcpu;
}

std::string Target::features() const {
  // cuda: none; LLVM picks the lowest PTX ISA that has the arch.
  if (kind == TargetKind::Cuda) return "";
  // The host CPU comes with the features detected on it (an OS may disable
  // some the CPU name implies); -mattr amends them. An explicit CPU brings
  // its own features, amended the same way.
  std::vector<std::string> parts;
  if (mcpu.empty() || mcpu == "native") {
    if (!host_feature_string().empty()) parts.push_back(host_feature_string());
  }
  parts.insert(parts.end(), mattr.begin(), mattr.end());
  return join(parts, ",");
}

std::string Target::isa_features() const {
  if (kind == TargetKind::Cuda) return "";
  auto info = subtarget_info(str("target '", to_string(), "'"), triple(), cpu(), features());
  // The features host detection knows are the instruction-set extensions;
  // tuning flags are left out.
  std::vector<std::string> enabled;
  for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
    const std::string name = entry.first().str();
    if (info->checkFeatures("+" + name)) enabled.push_back("+" + name);
  }
  std::sort(enabled.begin(), enabled.end());
  return join(enabled, ",");
}

VectorUnit Target::vector_unit() const {
  // A GPU thread's widest load is 128 bits; its registers are not a budget a
  // schedule plans for as a CPU's vector registers are.
  if (kind == TargetKind::Cuda) return {128, 255};
  const std::string features = "," + isa_features() + ",";
  auto has = [&](const char* f) { return features.find(str(",+", f, ",")) != std::string::npos; };
  if (has("avx512f")) return {has("evex512") ? 512 : 256, 32};
  if (has("avx")) return VectorUnit::avx2();
  return VectorUnit::sse();
}

std::string Target::triple() const {
  if (kind == TargetKind::Cuda) return "nvptx64-nvidia-cuda";
  return mtriple.empty() ? llvm::sys::getProcessTriple() : llvm::Triple::normalize(mtriple);
}

bool Target::is_host() const {
  if (kind != TargetKind::Llvm) return false;
  llvm::Triple mine(triple()), host(llvm::sys::getProcessTriple());
  return mine.getArch() == host.getArch() && mine.getOS() == host.getOS();
}

}  // namespace lathe::codegen
