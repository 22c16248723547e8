// A code-generation target as the user writes it (TVM's "llvm -mcpu=..."),
// apart from the back end's entry points so that clients that only name a
// target (the driver's options, the studio's settings) see no JIT or TIR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/vector_unit.h"

namespace lathe::codegen {

// The kinds of hardware Lathe compiles for; each has a row in the table of
// target.cpp (its name, options and their parsers).
enum class TargetKind : uint8_t {
  Llvm,  // the CPU, through LLVM's native back end
  Cuda,  // NVIDIA GPUs, through LLVM's NVPTX back end, as PTX
};
const char* target_kind_name(TargetKind kind);  // "llvm", "cuda"

// A target, parsed from TVM-style text: a kind, then that kind's options.
//   llvm [-mcpu=NAME] [-mattr=+avx2,-avx512f,...] [-mtriple=TRIPLE] [-opt-level=0..3] [-fast-math]
//   cuda [-arch=sm_NN] [-max_threads_per_block=N] [-max_shared_memory_per_block=BYTES]
//        [-thread_warp_size=32] [-opt-level=0..3] [-fast-math]
// llvm: without -mcpu (or with -mcpu=native), the host CPU and the features
// detected on it, amended by -mattr; with -mcpu, that CPU's own features,
// amended by -mattr. cuda: the limits default to TVM's (1024 threads, 48 KiB
// of shared memory per block, warps of 32), -arch to sm_75.
struct Target {
  TargetKind kind = TargetKind::Llvm;
  // ---- llvm
  std::string mcpu;                // empty: host CPU
  std::vector<std::string> mattr;  // "+avx2", "-fma": as written
  std::string mtriple;             // empty: the host's triple
  // ---- cuda
  std::string arch = "sm_75";  // the oldest arch CUDA 13's ptxas still assembles
  int64_t max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 49152;
  int64_t thread_warp_size = 32;
  // ---- every kind
  int opt_level = 3;
  bool fast_math = false;

  // Throws lathe::Error naming the offending option and what is accepted.
  static Target parse(const std::string& text);
  // "llvm" for the machine this runs on.
  static Target host() { return parse("llvm"); }

  bool is_gpu() const { return kind == TargetKind::Cuda; }

  // The options as given, in canonical order: parse(to_string()) == *this.
  std::string to_string() const;
  // What LLVM is told: the CPU name (for cuda the arch, "sm_90") and the
  // comma-separated feature string, with the host's filled in as above.
  std::string cpu() const;
  std::string features() const;
  std::string triple() const;
  // "+avx2,+avx512f,..." — every instruction-set extension code for this
  // target may use (the CPU's own and -mattr's): what a package records so a
  // loader can refuse a CPU that lacks one.
  std::string isa_features() const;
  // The vector unit those features give: AVX-512 (512 bits, or 256 with
  // -evex512 off, 32 registers), AVX/AVX2 (256 bits, 16), else SSE (128, 16).
  // cuda: 128 bits (ld.global.v4.f32, the widest load a thread makes).
  VectorUnit vector_unit() const;
  bool is_host() const;  // whether the JIT can run code for it (never for cuda)

  bool operator==(const Target&) const = default;
};

}  // namespace lathe::codegen
