// The machine's memory roofline: cache sizes come from the OS, the measured
// bandwidths are positive and fall (loosely: the machine is shared) from L1
// out to DRAM, and the roofline classification of given numbers picks the
// level that takes longest.
#include <QtTest>

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "support/memory_bandwidth.h"
#include "support/roofline.h"

using namespace lathe;

class TestMemoryBandwidth : public QObject {
  Q_OBJECT

 private slots:
  void cacheSizesComeFromTheOs() {
    std::vector<CacheLevel> caches = detect_data_caches();
    QVERIFY(!caches.empty());
    QCOMPARE(caches.front().level, 1);
    // L1d as sysconf reports it, where it does.
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (l1 > 0) QCOMPARE(caches.front().capacity_bytes, static_cast<int64_t>(l1));
    for (size_t i = 1; i < caches.size(); ++i) {
      QVERIFY(caches[i].level > caches[i - 1].level);
      QVERIFY(caches[i].capacity_bytes > caches[i - 1].capacity_bytes);
      QVERIFY(caches[i].shared_by_cpus >= caches[i - 1].shared_by_cpus);
    }
  }

  void bandwidthFallsFromL1ToDram() {
    auto start = std::chrono::steady_clock::now();
    MemoryBandwidth mb = measure_memory_bandwidth();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("measured in %.2f s on %d threads, %d-bit vectors", seconds, mb.threads, mb.vector_bits);
    QVERIFY(mb.threads >= 1);
    QVERIFY(mb.levels.size() >= 2);
    QCOMPARE(mb.levels.front().name, std::string("L1"));
    QCOMPARE(mb.levels.back().name, std::string("DRAM"));
    std::vector<CacheLevel> caches = detect_data_caches();
    for (const BandwidthLevel& l : mb.levels) {
      qInfo("%-4s %10lld B  read %7.1f GB/s  read+write %7.1f GB/s", l.name.c_str(),
            static_cast<long long>(l.capacity_bytes), l.read_gbps, l.read_write_gbps);
      QVERIFY(l.read_gbps > 0);
      QVERIFY(l.read_write_gbps > 0);
      if (l.name == "DRAM") continue;
      // Each cache level measured is one the OS reported, at a working set
      // inside it.
      bool reported = false;
      for (const CacheLevel& c : caches)
        reported |= "L" + std::to_string(c.level) == l.name && c.capacity_bytes == l.capacity_bytes;
      QVERIFY(reported);
      QVERIFY(l.working_set_bytes / mb.threads < l.capacity_bytes);
    }
    // Noise on a shared machine can swap neighbours; a process on one of
    // the cores measured with can even put one L1 measurement under DRAM's.
    // The best of up to three of each puts L1 above DRAM.
    BandwidthLevel l1 = mb.levels.front(), dram = mb.levels.back();
    for (int again = 0;
         again < 2 && !(l1.read_gbps > dram.read_gbps && l1.read_write_gbps > dram.read_write_gbps);
         ++again) {
      const MemoryBandwidth more = measure_memory_bandwidth();
      l1.read_gbps = std::max(l1.read_gbps, more.levels.front().read_gbps);
      l1.read_write_gbps = std::max(l1.read_write_gbps, more.levels.front().read_write_gbps);
      dram.read_gbps = std::max(dram.read_gbps, more.levels.back().read_gbps);
      dram.read_write_gbps = std::max(dram.read_write_gbps, more.levels.back().read_write_gbps);
    }
    QVERIFY(l1.read_gbps > dram.read_gbps);
    QVERIFY(l1.read_write_gbps > dram.read_write_gbps);
  }

  void roofIsTheLowestOfPeakAndEachLevel() {
    MemoryBandwidth mb;
    mb.levels = {{"L1", 1, 1, 1, 400, 200}, {"L2", 1, 1, 1, 100, 100}, {"DRAM", 0, 1, 1, 10, 8}};
    // 1 GFLOP, 0.5 GB read from L1, 0.1 GB from L2, 0.01 GB read + 0.01 GB
    // written at DRAM: 10 ms compute at 100 GFLOPS, 1.25 ms L1, 1 ms L2,
    // 1 ms + 1.5 ms (a write costs 2/8 - 1/10 ns a byte) DRAM.
    std::vector<LevelTraffic> traffic = {{5e8, 0}, {1e8, 0}, {1e7, 1e7}};
    Roofline r = classify_roofline(1e9, traffic, 100, mb);
    QCOMPARE(r.bound, std::string("compute"));
    QCOMPARE(r.roof_gflops, 100.0);
    QCOMPARE(r.levels.size(), size_t{3});
    QCOMPARE(r.levels[0].intensity, 2.0);
    QCOMPARE(r.levels[0].roof_gflops, 100.0);  // 2 flop/B x 400 GB/s, capped by the peak
    QCOMPARE(r.levels[1].roof_gflops, 100.0);
    QVERIFY(qFuzzyCompare(r.levels[2].seconds, 2.5e-3));
    QCOMPARE(r.levels[2].roof_gflops, 100.0);  // 400 GFLOPS, capped

    // Ten times fewer FLOPs: DRAM's 2.5 ms now exceeds compute's 1 ms.
    r = classify_roofline(1e8, traffic, 100, mb);
    QCOMPARE(r.bound, std::string("DRAM"));
    QVERIFY(qFuzzyCompare(r.roof_gflops, 40.0));
    QVERIFY(qFuzzyCompare(r.estimated_seconds, 2.5e-3));
    // A kernel without FLOPs is bound by the level it spends longest in.
    QCOMPARE(classify_roofline(0, {{1e9, 0}, {0, 0}, {0, 0}}, 100, mb).bound, std::string("L1"));
  }
};

QTEST_GUILESS_MAIN(TestMemoryBandwidth)
#include "tst_memory_bandwidth.moc"
