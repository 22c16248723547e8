// The microkernels pick their ISA per function (target attributes) and the
// CPU's at run time, so this file needs no special compile flags.
#include "support/machine_peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace lathe {
namespace {

// Independent accumulators hide the FMA latency (4 cycles on 2 ports: 8+ chains).
constexpr int kChains = 12;
constexpr long kIterations = 4'000'000;

typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

// Twelve named accumulators (an array would live in memory): each iteration
// is twelve independent FMAs whose results stay in registers.
template <typename Vec, int Lanes>
inline __attribute__((always_inline)) float fma_loop(float seed) {
  Vec a, b;
  for (int l = 0; l < Lanes; ++l) {
    a[l] = 0.999999f;
    b[l] = seed * 1e-7f;
  }
  Vec c0 = a, c1 = a * 2, c2 = a * 3, c3 = a * 4, c4 = a * 5, c5 = a * 6;
  Vec c6 = a * 7, c7 = a * 8, c8 = a * 9, c9 = a * 10, c10 = a * 11, c11 = a * 12;
  for (long i = 0; i < kIterations; ++i) {
    c0 = c0 * a + b;
    c1 = c1 * a + b;
    c2 = c2 * a + b;
    c3 = c3 * a + b;
    c4 = c4 * a + b;
    c5 = c5 * a + b;
    c6 = c6 * a + b;
    c7 = c7 * a + b;
    c8 = c8 * a + b;
    c9 = c9 * a + b;
    c10 = c10 * a + b;
    c11 = c11 * a + b;
    // Claims to change the registers, so the loop cannot be folded away.
    asm volatile(""
                 : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5), "+x"(c6), "+x"(c7),
                   "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));
  }
  Vec sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;
  float total = 0;
  for (int l = 0; l < Lanes; ++l) total += sum[l];
  return total;
}

__attribute__((target("avx512f"), noinline)) float fma_loop_avx512(float seed) {
  return fma_loop<Vec16, 16>(seed);
}
__attribute__((target("avx2,fma"), noinline)) float fma_loop_avx2(float seed) {
  return fma_loop<Vec8, 8>(seed);
}
__attribute__((noinline)) float fma_loop_sse(float seed) {
  return fma_loop<Vec4, 4>(seed);
}

struct Kernel {
  float (*fn)(float);
  int lanes;
};

Kernel best_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {fma_loop_avx512, 16};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {fma_loop_avx2, 8};
  return {fma_loop_sse, 4};
}

double run(const Kernel& k, int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  std::vector<float> sink(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (!go) std::this_thread::yield();
      sink[t] = k.fn(static_cast<float>(t + 1));
    });
  while (ready < threads) std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  go = true;
  for (auto& th : pool) th.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Two flops per lane per FMA (a multiply and an add).
  double flops = 2.0 * k.lanes * kChains * static_cast<double>(kIterations) * threads;
  return flops / seconds / 1e9;
}

}  // namespace

PeakFlops measure_peak_flops(int threads, int trials) {
  Kernel k = best_kernel();
  PeakFlops p;
  p.threads = threads;
  p.vector_bits = k.lanes * 32;
  // Best of several: the machine is shared, and the peak is what it can do.
  for (int i = 0; i < trials; ++i) {
    p.gflops_per_core = std::max(p.gflops_per_core, run(k, 1));
    p.gflops_all_cores = std::max(p.gflops_all_cores, run(k, threads));
  }
  return p;
}

}  // namespace lathe
