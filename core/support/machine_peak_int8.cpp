// The int8 peak: vpdpbusd (AVX-512 VNNI, else AVX-VNNI) on independent
// accumulators, each instruction 16 (8) lanes x 4 u8*s8 products, an
// operation being a multiply or an add as for FLOPs (2 per product). Without
// VNNI, the AVX2 sequence the dot-product intrinsic uses (two vpmaddubsw, two
// vpmaddwd and two vpaddd per 8 lanes x 4 products). The functions pick
// their ISA by target attribute, so this file needs no special flags.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/machine_peak.h"

namespace lathe {
namespace {

constexpr long kIterations = 4'000'000;
// Independent accumulators: vpdpbusd's latency (5 to 6 cycles) times its
// ports (up to 2). Twelve left the zmm loop short of the conv kernels' own
// rate (28 accumulators) on Zen 5; with AVX-512's 32 registers it takes 24.
constexpr int kChains = 12;
constexpr int kChains512 = 24;

typedef int Vec16i __attribute__((vector_size(64)));
typedef int Vec8i __attribute__((vector_size(32)));

// Twelve independent accumulators, each updated by STEP(c) per iteration
// (a macro: a lambda would not inherit the function's target attribute).
#define LATHE_DOT_LOOP(Vec, STEP)                                                                  \
  Vec c0 = a, c1 = a, c2 = a, c3 = a, c4 = a, c5 = a, c6 = a, c7 = a, c8 = a, c9 = a, c10 = a,     \
      c11 = a;                                                                                     \
  for (long i = 0; i < kIterations; ++i) {                                                         \
    c0 = STEP(c0);                                                                                 \
    c1 = STEP(c1);                                                                                 \
    c2 = STEP(c2);                                                                                 \
    c3 = STEP(c3);                                                                                 \
    c4 = STEP(c4);                                                                                 \
    c5 = STEP(c5);                                                                                 \
    c6 = STEP(c6);                                                                                 \
    c7 = STEP(c7);                                                                                 \
    c8 = STEP(c8);                                                                                 \
    c9 = STEP(c9);                                                                                 \
    c10 = STEP(c10);                                                                               \
    c11 = STEP(c11);                                                                               \
    asm volatile(""                                                                                \
                 : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5), "+x"(c6), "+x"(c7), \
                   "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));                                      \
  }                                                                                                \
  Vec s = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11;                             \
  return s[0]

__attribute__((target("avx512f,avx512vnni"), noinline)) int vnni512_loop(int seed) {
  Vec16i a, b;
  for (int l = 0; l < 16; ++l) a[l] = seed + l, b[l] = seed * 3 + l;
  Vec16i c0 = a, c1 = a, c2 = a, c3 = a, c4 = a, c5 = a, c6 = a, c7 = a, c8 = a, c9 = a, c10 = a,
         c11 = a, c12 = a, c13 = a, c14 = a, c15 = a, c16 = a, c17 = a, c18 = a, c19 = a, c20 = a,
         c21 = a, c22 = a, c23 = a;
  for (long i = 0; i < kIterations; ++i) {
#define LATHE_STEP(c) c = (Vec16i)_mm512_dpbusd_epi32((__m512i)(c), (__m512i)a, (__m512i)b)
    LATHE_STEP(c0);
    LATHE_STEP(c1);
    LATHE_STEP(c2);
    LATHE_STEP(c3);
    LATHE_STEP(c4);
    LATHE_STEP(c5);
    LATHE_STEP(c6);
    LATHE_STEP(c7);
    LATHE_STEP(c8);
    LATHE_STEP(c9);
    LATHE_STEP(c10);
    LATHE_STEP(c11);
    LATHE_STEP(c12);
    LATHE_STEP(c13);
    LATHE_STEP(c14);
    LATHE_STEP(c15);
    LATHE_STEP(c16);
    LATHE_STEP(c17);
    LATHE_STEP(c18);
    LATHE_STEP(c19);
    LATHE_STEP(c20);
    LATHE_STEP(c21);
    LATHE_STEP(c22);
    LATHE_STEP(c23);
#undef LATHE_STEP
    // Twelve accumulators per barrier: an asm statement takes at most 30 operands.
    asm volatile(""
                 : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7),
                   "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));
    asm volatile(""
                 : "+v"(c12), "+v"(c13), "+v"(c14), "+v"(c15), "+v"(c16), "+v"(c17), "+v"(c18),
                   "+v"(c19), "+v"(c20), "+v"(c21), "+v"(c22), "+v"(c23));
  }
  Vec16i s = c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11 ^ c12 ^ c13 ^ c14 ^ c15 ^
             c16 ^ c17 ^ c18 ^ c19 ^ c20 ^ c21 ^ c22 ^ c23;
  return s[0];
}

__attribute__((target("avx2,avxvnni"), noinline)) int avxvnni_loop(int seed) {
  Vec8i a, b;
  for (int l = 0; l < 8; ++l) a[l] = seed + l, b[l] = seed * 3 + l;
#define LATHE_STEP(c) (Vec8i) _mm256_dpbusd_avx_epi32((__m256i)(c), (__m256i)a, (__m256i)b)
  LATHE_DOT_LOOP(Vec8i, LATHE_STEP);
#undef LATHE_STEP
}

// The exact sequence of codegen/tensor_intrinsic_x86.cpp: the activation's
// low seven bits and its top bit through separate vpmaddubsw.
__attribute__((target("avx2"), noinline)) int avx2_loop(int seed) {
  Vec8i a, b;
  for (int l = 0; l < 8; ++l) a[l] = seed + l, b[l] = seed * 3 + l;
  const __m256i ones = _mm256_set1_epi16(1), weight = _mm256_set1_epi16(128);
  const __m256i low = _mm256_and_si256((__m256i)a, _mm256_set1_epi8(0x7f));
  const __m256i high = _mm256_and_si256(_mm256_srli_epi32((__m256i)a, 7), _mm256_set1_epi8(1));
#define LATHE_STEP(c)                                                                  \
  (Vec8i) _mm256_add_epi32(                                                            \
      (__m256i)(c),                                                                    \
      _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(low, (__m256i)b), ones), \
                       _mm256_madd_epi16(_mm256_maddubs_epi16(high, (__m256i)b), weight)))
  LATHE_DOT_LOOP(Vec8i, LATHE_STEP);
#undef LATHE_STEP
}

struct Kernel {
  int (*fn)(int);
  int lanes;
  const char* isa;
  int chains = kChains;
};

Kernel best_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni")) return {vnni512_loop, 16, "avx512_vnni", kChains512};
  if (__builtin_cpu_supports("avxvnni")) return {avxvnni_loop, 8, "avx_vnni"};
  if (__builtin_cpu_supports("avx2")) return {avx2_loop, 8, "avx2"};
  return {nullptr, 0, "none", 0};
}

double run(const Kernel& k, int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  std::vector<int> sink(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (!go) std::this_thread::yield();
      sink[static_cast<size_t>(t)] = k.fn(t + 1);
    });
  while (ready < threads) std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  go = true;
  for (auto& th : pool) th.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Four products a lane, each a multiply and an add.
  double ops = 8.0 * k.lanes * k.chains * static_cast<double>(kIterations) * threads;
  return ops / seconds / 1e9;
}

}  // namespace

PeakInt8 measure_peak_int8(int threads, int trials) {
  Kernel k = best_kernel();
  PeakInt8 p;
  p.threads = threads;
  p.isa = k.isa;
  if (!k.fn) return p;
  for (int i = 0; i < trials; ++i) {
    p.gops_per_core = std::max(p.gops_per_core, run(k, 1));
    p.gops_all_cores = std::max(p.gops_all_cores, run(k, threads));
  }
  return p;
}

}  // namespace lathe
