// CPUID and XCR0 of three machines, for testing the package loader's feature
// check without their hardware: an AVX2-only Intel Haswell, an Intel
// Sapphire Rapids with AMX and AVX-512 FP16, and an AMD Zen 4 EPYC.
#pragma once

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

}  // namespace lathe::test
