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

constexpr const char* kKnownOptions =
    "-mcpu=NAME, -mattr=+feature,-feature,..., -mtriple=TRIPLE, -opt-level=0..3, -fast-math";

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
             "' is not available (only the native LLVM target is "
             "initialised)"));
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

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  const std::string where = str("target '", text, "'");
  if (tokens.empty())
    fail(str(where, ": empty; expected 'llvm [options]' (options: ", kKnownOptions, ")"));
  if (tokens[0] != "llvm")
    fail(str(where, ": unknown target kind '", tokens[0],
             "'; Lathe compiles for 'llvm' (the CPU), e.g. 'llvm -mcpu=znver4'"));
  Target target;
  std::set<std::string> given;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token.size() < 2 || token[0] != '-')
      fail(str(where, ": expected an option starting with '-', got '", token,
               "' (options: ", kKnownOptions, ")"));
    const size_t eq = token.find('=');
    const std::string key = token.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? token.substr(eq + 1) : "";
    if (!given.insert(key).second) fail(str(where, ": option '", key, "' is given twice"));
    auto need_value = [&] {
      if (value.empty()) fail(str(where, ": option '", key, "' needs a value, as '", key, "=...'"));
    };
    if (key == "-mcpu") {
      need_value();
      target.mcpu = value;
    } else if (key == "-mattr") {
      need_value();
      for (const std::string& feature : split(value, ',')) {
        if (feature.size() < 2 || (feature[0] != '+' && feature[0] != '-'))
          fail(str(where, ": -mattr entry '", feature,
                   "' must be a feature name with + or - in front, as '+avx2'"));
        target.mattr.push_back(feature);
      }
    } else if (key == "-mtriple") {
      need_value();
      target.mtriple = value;
    } else if (key == "-opt-level") {
      need_value();
      if (value.size() != 1 || value[0] < '0' || value[0] > '3')
        fail(str(where, ": -opt-level must be 0, 1, 2 or 3, got '", value, "'"));
      target.opt_level = value[0] - '0';
    } else if (key == "-fast-math") {
      if (has_value) fail(str(where, ": -fast-math takes no value"));
      target.fast_math = true;
    } else {
      fail(str(where, ": unknown option '", key, "' (options: ", kKnownOptions, ")"));
    }
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
  std::string out = "llvm";
  if (!mcpu.empty()) out += " -mcpu=" + mcpu;
  if (!mattr.empty()) out += " -mattr=" + join(mattr, ",");
  if (!mtriple.empty()) out += " -mtriple=" + mtriple;
  if (opt_level != 3) out += " -opt-level=" + std::to_string(opt_level);
  if (fast_math) out += " -fast-math";
  return out;
}

std::string Target::cpu() const {
  if (mcpu.empty() || mcpu == "native") return host_cpu_name();
  return mcpu;
}

std::string Target::features() const {
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
  const std::string features = "," + isa_features() + ",";
  auto has = [&](const char* f) { return features.find(str(",+", f, ",")) != std::string::npos; };
  if (has("avx512f")) return {has("evex512") ? 512 : 256, 32};
  if (has("avx")) return VectorUnit::avx2();
  return VectorUnit::sse();
}

std::string Target::triple() const {
  return mtriple.empty() ? llvm::sys::getProcessTriple() : llvm::Triple::normalize(mtriple);
}

bool Target::is_host() const {
  llvm::Triple mine(triple()), host(llvm::sys::getProcessTriple());
  return mine.getArch() == host.getArch() && mine.getOS() == host.getOS();
}

}  // namespace lathe::codegen
