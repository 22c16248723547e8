// CPUID and XCR0 of four machines, for testing the package loader's and the
// JIT's feature checks without their hardware: an AVX2-only Intel Haswell, an
// Intel Sapphire Rapids with AMX and AVX-512 FP16, an AMD Zen 4 EPYC, and a
// Zen 5 virtual machine whose hypervisor hides system features; and the guests
// a hypervisor makes of them.
#pragma once

#include <string>
#include <vector>

#include "runtime/cpu_features.h"

namespace lathe::test {

// Core i7-4770 (family 6, model 0x3c): AVX2, FMA, LZCNT; no AVX-512, no
// PREFETCHW, no ADX. The OS saves x87, SSE and AVX state (XCR0 = 7).
inline runtime::CpuidSnapshot haswell_cpuid() {
  runtime::CpuidSnapshot s;
  s.leaf1 = {0x000306C3, 0x00100800, 0x7FFAFBBF, 0xBFEBFBFF};
  s.leaf7 = {0x00000000, 0x000027AB, 0x00000000, 0x00000000};
  s.leaf_d_1 = {0x00000001, 0, 0, 0};
  s.ext1 = {0, 0, 0x00000021, 0x2C100800};
  s.xcr0 = 0x7;
  return s;
}

// Xeon Platinum 8480+ (family 6, model 0x8f): AVX-512 with FP16 and BF16,
// AVX-VNNI, AMX tiles; the OS saves AVX-512 and AMX tile state as well
// (XCR0 = 0x602e7: x87, SSE, AVX, opmask, ZMM upper halves, ZMM16-31, PKRU,
// TILECFG, TILEDATA).
inline runtime::CpuidSnapshot sapphire_rapids_cpuid() {
  runtime::CpuidSnapshot s;
  s.leaf1 = {0x000806F8, 0x00800800, 0x7FFEFBFF, 0xBFEBFBFF};
  s.leaf7 = {0x00000001, 0xF3BFBFEF, 0x7B417FFE, 0xAFDD4430};
  s.leaf7_1 = {0x00001C30, 0, 0, 0};
  s.leaf_d_1 = {0x0000001F, 0, 0, 0};
  s.leaf14 = {0x00000001, 0x0000005F, 0x00000007, 0};
  s.ext1 = {0, 0, 0x00000121, 0x2C100800};
  s.xcr0 = 0x602e7;
  return s;
}

// AMD EPYC 9004 "Genoa" (family 0x19, model 0x11) under KVM, as read on a
// Lathe CI machine: AVX-512 with BF16 and VNNI but no FP16 and no AMX,
// SSE4A, CLZERO.
inline runtime::CpuidSnapshot zen4_cpuid() {
  runtime::CpuidSnapshot s;
  s.leaf1 = {0x00A10F11, 0x00020800, 0xFFFA3203, 0x178BFBFF};
  s.leaf7 = {0x00000001, 0xF1BF07AB, 0x00405FC6, 0x00000010};
  s.leaf7_1 = {0x00000020, 0, 0, 0};
  s.leaf_d_1 = {0x0000000F, 0x000009A8, 0x00001800, 0};
  s.ext1 = {0x00A10F11, 0x40000000, 0x004003F3, 0x2FD3FBFF};
  s.ext8 = {0x00303030, 0x50020005, 0x00007001, 0};
  s.xcr0 = 0xe7;
  return s;
}

// An AMD EPYC Zen 5 guest (family 0x1a, model 2; "Oxide Virtual Turin-like
// Processor"), as read on a Lathe build machine: AVX-512 with VP2INTERSECT,
// BF16 and VNNI, SSE4A; its hypervisor hides INVPCID, RDSEED, XSAVES, PKU,
// RDPID, MWAITX, RDPRU and WBNOINVD, which LLVM's -mcpu=haswell, skylake and
// znver4 models all name some of.
inline runtime::CpuidSnapshot zen5_vm_cpuid() {
  runtime::CpuidSnapshot s;
  s.leaf1 = {0x00B00F21, 0x03FE0800, 0xFED83203, 0x178BFBFF};
  s.leaf7 = {0x00000001, 0xF1BB03A9, 0x18005F42, 0x00000110};
  s.leaf7_1 = {0x00000030, 0, 0, 0};
  s.leaf_d_1 = {0x00000007, 0x00000980, 0, 0};
  s.ext1 = {0x00B00F21, 0x40000000, 0x440001F1, 0x25D3FBFF};
  s.ext8 = {0x00003030, 0x20000005, 0, 0};
  s.xcr0 = 0xe7;
  return s;
}

// A machine as a guest of a hypervisor that hides what VMs commonly do not
// pass through: INVPCID, RDSEED, XSAVES, protection keys and FSGSBASE.
inline runtime::CpuidSnapshot as_vm_guest(runtime::CpuidSnapshot s) {
  s.leaf7.ebx &= ~((1u << 0) | (1u << 10) | (1u << 18));  // fsgsbase, invpcid, rdseed
  s.leaf7.ecx &= ~(1u << 4);                              // pku
  s.leaf_d_1.eax &= ~(1u << 3);                           // xsaves
  return s;
}

// The same machine with AVX2 switched off (CPUID 7 EBX bit 5), as a VM
// configured for an older CPU model shows it.
inline runtime::CpuidSnapshot without_avx2(runtime::CpuidSnapshot s) {
  s.leaf7.ebx &= ~(1u << 5);
  return s;
}

// Code for an -mcpu that a guest runs: the JIT and the package loader must
// both accept it, though each CPU model names system features the guest
// hides.
struct GuestRun {
  std::string mcpu;   // "haswell"
  std::string guest;  // what the snapshot is, for messages
  runtime::CpuidSnapshot cpuid;
};

inline std::vector<GuestRun> guest_runs() {
  return {
      {"haswell", "a Haswell guest", as_vm_guest(haswell_cpuid())},
      {"haswell", "a Zen 4 guest", as_vm_guest(zen4_cpuid())},
      {"haswell", "the Zen 5 VM", zen5_vm_cpuid()},
      {"skylake-avx512", "a Sapphire Rapids guest", as_vm_guest(sapphire_rapids_cpuid())},
      {"skylake-avx512", "the Zen 5 VM", zen5_vm_cpuid()},
      {"znver4", "a Zen 4 guest", as_vm_guest(zen4_cpuid())},
      {"znver4", "the Zen 5 VM", zen5_vm_cpuid()},
  };
}

}  // namespace lathe::test
