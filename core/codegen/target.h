// A code-generation target as the user writes it (TVM's "llvm -mcpu=..."),
// apart from the back end's entry points so that clients that only name a
// target (the driver's options, the studio's settings) see no JIT or TIR.
#pragma once

#include <string>
#include <vector>

#include "support/vector_unit.h"

namespace lathe::codegen {

// A CPU target, parsed from TVM-style text:
//   llvm [-mcpu=NAME] [-mattr=+avx2,-avx512f,...] [-mtriple=TRIPLE] [-opt-level=0..3] [-fast-math]
// Without -mcpu (or with -mcpu=native): the host CPU and the features detected
// on it, amended by -mattr. With -mcpu: that CPU's own features, amended by -mattr.
struct Target {
  std::string mcpu;                // empty: host CPU
  std::vector<std::string> mattr;  // "+avx2", "-fma": as written
  std::string mtriple;             // empty: the host's triple
  int opt_level = 3;
  bool fast_math = false;

  // Throws lathe::Error naming the offending option and what is accepted.
  static Target parse(const std::string& text);
  // "llvm" for the machine this runs on.
  static Target host() { return parse("llvm"); }

  // The options as given, in canonical order: parse(to_string()) == *this.
  std::string to_string() const;
  // What LLVM is told: the CPU name and the comma-separated feature string,
  // with the host's filled in as above.
  std::string cpu() const;
  std::string features() const;
  std::string triple() const;
  // "+avx2,+avx512f,..." — every instruction-set extension code for this
  // target may use (the CPU's own and -mattr's): what a package records so a
  // loader can refuse a CPU that lacks one.
  std::string isa_features() const;
  // The vector unit those features give: AVX-512 (512 bits, or 256 with
  // -evex512 off, 32 registers), AVX/AVX2 (256 bits, 16), else SSE (128, 16).
  VectorUnit vector_unit() const;
  bool is_host() const;  // whether the JIT can run code for it

  bool operator==(const Target&) const = default;
};

}  // namespace lathe::codegen
