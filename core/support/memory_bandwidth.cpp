#include "support/memory_bandwidth.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <thread>

namespace lathe {
namespace {

// ---- Cache sizes from the OS -------------------------------------------------

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K", "1024K", "32M" as /sys writes cache sizes.
int64_t parse_size(const std::string& text) {
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || value <= 0) return 0;
  switch (*end) {
    case 'K':
      return value << 10;
    case 'M':
      return value << 20;
    case 'G':
      return value << 30;
    default:
      return value;
  }
}

// "0-1,4-5" -> 4.
int count_cpus(const std::string& list) {
  int count = 0;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string part =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = part.find('-');
    if (dash == std::string::npos)
      count += part.empty() ? 0 : 1;
    else
      count += std::atoi(part.c_str() + dash + 1) - std::atoi(part.c_str()) + 1;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::max(count, 1);
}

std::vector<CacheLevel> caches_from_sysfs() {
  std::vector<CacheLevel> caches;
  std::error_code ec;
  const std::filesystem::path root = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::string type = read_line(entry.path() / "type");
    if (type != "Data" && type != "Unified") continue;
    CacheLevel c;
    c.level = std::atoi(read_line(entry.path() / "level").c_str());
    c.capacity_bytes = parse_size(read_line(entry.path() / "size"));
    c.shared_by_cpus = count_cpus(read_line(entry.path() / "shared_cpu_list"));
    if (c.level > 0 && c.capacity_bytes > 0) caches.push_back(c);
  }
  return caches;
}

// sysconf knows no sharing; and in a VM it may report the host's whole L3
// (320 MB where /sys says 32 MB shared by our 2 CPUs), so /sys comes first.
std::vector<CacheLevel> caches_from_sysconf() {
  std::vector<CacheLevel> caches;
  const int names[] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE};
  for (int i = 0; i < 3; ++i) {
    long size = sysconf(names[i]);
    if (size > 0) caches.push_back({i + 1, size, 1});
  }
  return caches;
}

// ---- Streaming kernels -------------------------------------------------------

typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

// Eight accumulators hide the add latency behind two loads a cycle.
constexpr int64_t kUnroll = 8;

template <typename Vec>
inline __attribute__((always_inline)) float read_stream(const float* data, int64_t floats,
                                                        int64_t passes) {
  constexpr int64_t lanes = sizeof(Vec) / sizeof(float);
  // Four streams, one per quarter of the buffer: a core's prefetchers track
  // each stream on its own, and a single one left DRAM reads at half the
  // bandwidth that two-input kernels reach.
  const int64_t quarter = floats / lanes / 4;
  const Vec* s0 = reinterpret_cast<const Vec*>(data);
  const Vec *s1 = s0 + quarter, *s2 = s1 + quarter, *s3 = s2 + quarter;
  Vec a0{}, a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
  for (int64_t p = 0; p < passes; ++p) {
    for (int64_t i = 0; i < quarter; i += 2) {
      a0 += s0[i];
      a1 += s0[i + 1];
      a2 += s1[i];
      a3 += s1[i + 1];
      a4 += s2[i];
      a5 += s2[i + 1];
      a6 += s3[i];
      a7 += s3[i + 1];
    }
    asm volatile("" ::: "memory");  // each pass reads memory again
  }
  Vec sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  float total = 0;
  for (int64_t l = 0; l < lanes; ++l) total += sum[l];
  return total;
}

// b[i] = q * a[i]: one read and one write stream (not a copy, which the
// compiler may turn into memcpy and its non-temporal stores).
template <typename Vec>
inline __attribute__((always_inline)) float scale_stream(float* data, int64_t floats,
                                                         int64_t passes) {
  constexpr int64_t lanes = sizeof(Vec) / sizeof(float);
  const int64_t half = floats / 2 / lanes;
  const Vec* a = reinterpret_cast<const Vec*>(data);
  Vec* b = reinterpret_cast<Vec*>(data) + half;
  for (int64_t p = 0; p < passes; ++p) {
    for (int64_t i = 0; i < half; ++i) b[i] = a[i] * 0.5f;
    asm volatile("" ::: "memory");  // every pass's stores happen
  }
  return data[floats / 2];
}

__attribute__((target("avx512f"), noinline)) float read_avx512(const float* d, int64_t n,
                                                               int64_t p) {
  return read_stream<Vec16>(d, n, p);
}
__attribute__((target("avx2"), noinline)) float read_avx2(const float* d, int64_t n, int64_t p) {
  return read_stream<Vec8>(d, n, p);
}
__attribute__((noinline)) float read_sse(const float* d, int64_t n, int64_t p) {
  return read_stream<Vec4>(d, n, p);
}
__attribute__((target("avx512f"), noinline)) float scale_avx512(float* d, int64_t n, int64_t p) {
  return scale_stream<Vec16>(d, n, p);
}
__attribute__((target("avx2"), noinline)) float scale_avx2(float* d, int64_t n, int64_t p) {
  return scale_stream<Vec8>(d, n, p);
}
__attribute__((noinline)) float scale_sse(float* d, int64_t n, int64_t p) {
  return scale_stream<Vec4>(d, n, p);
}

struct Kernels {
  float (*read)(const float*, int64_t, int64_t);
  float (*scale)(float*, int64_t, int64_t);
  int vector_bits;
};

Kernels best_kernels() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {read_avx512, scale_avx512, 512};
  if (__builtin_cpu_supports("avx2")) return {read_avx2, scale_avx2, 256};
  return {read_sse, scale_sse, 128};
}

// ---- Timing ------------------------------------------------------------------

struct LevelResult {
  double read_gbps = 0, read_write_gbps = 0;
};

// Each thread streams over a buffer of its own (allocated and first touched
// by that thread, so it lands on the thread's NUMA node), all threads started
// together. Best of `samples`: the machine is shared, and other work only
// ever slows a sample down, so the fastest one is closest to what the memory
// system sustains.
LevelResult measure_level(const Kernels& k, int threads, int64_t bytes_per_thread, int samples) {
  // Whole unrolled blocks of the widest vector in each quarter (the read
  // kernel's streams) and each half (the scale kernel's).
  const int64_t block = 4 * kUnroll * 64;
  bytes_per_thread = std::max(block, bytes_per_thread / block * block);
  const int64_t floats = bytes_per_thread / static_cast<int64_t>(sizeof(float));
  // Enough passes that one sample streams 64 MB a thread: long enough for the
  // clock and the start-up of the threads not to matter.
  const int64_t passes = std::max<int64_t>(1, (int64_t{64} << 20) / bytes_per_thread);

  using Clock = std::chrono::steady_clock;
  std::atomic<int> generation{0}, done{0}, ready{0};
  std::vector<std::thread> pool;
  std::vector<float> sink(static_cast<size_t>(threads));
  std::vector<Clock::time_point> starts(static_cast<size_t>(threads)), ends(starts);
  const int runs = 2 * samples;  // read, scale, read, scale ...
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      auto* data = static_cast<float*>(
          ::operator new (static_cast<size_t>(bytes_per_thread), std::align_val_t{64}));
      std::fill(data, data + floats, 1.0f);
      ++ready;
      for (int r = 0; r < runs; ++r) {
        while (generation.load() <= r) std::this_thread::yield();
        starts[t] = Clock::now();
        sink[t] += r % 2 == 0 ? k.read(data, floats, passes) : k.scale(data, floats, passes);
        ends[t] = Clock::now();
        ++done;
      }
      ::operator delete (data, std::align_val_t{64});
    });
  // The coordinating thread sleeps rather than spins: on a machine with as
  // many cores as workers it would otherwise take a core from one of them.
  auto wait_for = [](const std::atomic<int>& counter, int value) {
    while (counter.load() < value) std::this_thread::sleep_for(std::chrono::microseconds(50));
  };
  wait_for(ready, threads);

  LevelResult result;
  const double bytes = static_cast<double>(bytes_per_thread) * passes * threads;
  for (int r = 0; r < runs; ++r) {
    generation.store(r + 1);
    wait_for(done, threads * (r + 1));
    // From the first thread's start to the last one's end, as the workers
    // saw it: the wake-up of this thread is not part of it.
    Clock::time_point first = *std::min_element(starts.begin(), starts.end());
    Clock::time_point last = *std::max_element(ends.begin(), ends.end());
    double seconds = std::chrono::duration<double>(last - first).count();
    // The scale kernel reads half the buffer and writes the other half: the
    // same bytes in all, read + written.
    double& best = r % 2 == 0 ? result.read_gbps : result.read_write_gbps;
    best = std::max(best, bytes / seconds / 1e9);
  }
  for (std::thread& th : pool) th.join();
  return result;
}

}  // namespace

std::vector<CacheLevel> detect_data_caches() {
  std::vector<CacheLevel> caches = caches_from_sysfs();
  if (caches.empty()) caches = caches_from_sysconf();
  std::sort(caches.begin(), caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  return caches;
}

MemoryBandwidth measure_memory_bandwidth(int threads, int samples) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Kernels k = best_kernels();
  MemoryBandwidth mb;
  mb.threads = threads;
  mb.vector_bits = k.vector_bits;

  // Half a cache per thread sharing it: well inside it (the other half
  // holds whatever else runs), and for a shared level far beyond the private
  // levels inside it. Never less than twice the level inside, so that a small
  // share of a big shared cache does not measure the level below.
  int64_t inner_capacity = 0;
  for (const CacheLevel& c : detect_data_caches()) {
    BandwidthLevel level;
    level.name = "L" + std::to_string(c.level);
    level.capacity_bytes = c.capacity_bytes;
    level.shared_by_cpus = c.shared_by_cpus;
    int64_t sharing = std::min(threads, c.shared_by_cpus);
    int64_t per_thread = std::max(c.capacity_bytes / 2 / sharing, 2 * inner_capacity);
    if (per_thread > c.capacity_bytes) continue;  // a level we cannot isolate
    inner_capacity = c.capacity_bytes;
    level.working_set_bytes = per_thread * threads;
    LevelResult r = measure_level(k, threads, per_thread, samples);
    level.read_gbps = r.read_gbps;
    level.read_write_gbps = r.read_write_gbps;
    mb.levels.push_back(level);
  }

  // DRAM: four times the outermost cache (and at least 64 MB), so that at most
  // a quarter of it could still be hit; capped at 1 GB for huge L3s.
  int64_t outer = mb.levels.empty() ? 0 : mb.levels.back().capacity_bytes;
  int64_t total = std::clamp<int64_t>(4 * outer, int64_t{64} << 20, int64_t{1} << 30);
  BandwidthLevel dram;
  dram.name = "DRAM";
  dram.working_set_bytes = total;
  // DRAM is where other work on a shared machine interferes most: more samples.
  LevelResult r = measure_level(k, threads, total / threads, 2 * samples);
  dram.read_gbps = r.read_gbps;
  dram.read_write_gbps = r.read_write_gbps;
  mb.levels.push_back(dram);
  return mb;
}

}  // namespace lathe
