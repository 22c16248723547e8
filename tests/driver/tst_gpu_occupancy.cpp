// Theoretical occupancy (driver/gpu_occupancy.h) against NVIDIA's occupancy
// calculator worked by hand for each limit: warps, blocks, registers (per
// warp in 256s, per sub-partition), shared memory (static + 1 KiB reserved,
// in 128 B units, of 228 KiB on sm_90), barriers; a block that cannot fit;
// other arches' tables; and the line the PTX view and `lathe compile --ptxas`
// print under a kernel's resources.
#include <QtTest>

#include "driver/gpu_occupancy.h"
#include "driver/ptx_resources.h"

using namespace lathe;
using driver::GpuOccupancy;
using driver::KernelResources;

namespace {

KernelResources kernel(int64_t registers, int64_t shared_bytes, int64_t barriers = 1) {
  KernelResources k;
  k.kernel = "k";
  k.registers = registers;
  k.shared_bytes = shared_bytes;
  k.barriers = barriers;
  return k;
}

GpuOccupancy on(const std::string& arch, int64_t threads, const KernelResources& k) {
  const std::optional<GpuOccupancy> o = driver::theoretical_occupancy(arch, threads, k);
  if (!o) qFatal("no occupancy table for %s", arch.c_str());
  return *o;
}

}  // namespace

class TestGpuOccupancy : public QObject {
  Q_OBJECT

 private slots:
  void eachLimitOnSm90_data() {
    QTest::addColumn<qint64>("threads");
    QTest::addColumn<qint64>("registers");
    QTest::addColumn<qint64>("shared");
    QTest::addColumn<qint64>("barriers");
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<QString>("limit");
    // 256 threads, 32 registers: 64 warps / 8 a block.
    QTest::newRow("warps") << qint64(256) << qint64(32) << qint64(0) << qint64(0) << qint64(8)
                           << "warps";
    // One warp a block: 32 blocks an SM at most.
    QTest::newRow("blocks") << qint64(32) << qint64(16) << qint64(0) << qint64(0) << qint64(32)
                            << "blocks";
    // 224 threads (7 warps), 40 registers: 1280 a warp, 12 warps in each
    // quarter of the 64 Ki file, 48 warps, 6 blocks.
    QTest::newRow("registers") << qint64(224) << qint64(40) << qint64(3936) << qint64(1)
                               << qint64(6) << "registers";
    // 33 registers round up to 1280 a warp too (33 x 32 = 1056).
    QTest::newRow("registers rounded")
        << qint64(224) << qint64(33) << qint64(0) << qint64(0) << qint64(6) << "registers";
    // 6700 + 1024 reserved = 7724, 7808 in 128 B units: 228 Ki / 7808 = 29
    // (30 unrounded).
    QTest::newRow("shared memory")
        << qint64(56) << qint64(32) << qint64(6700) << qint64(1) << qint64(29) << "shared memory";
    // 3 barriers a block of the 64 an sm_90 SM has (2 per block slot).
    QTest::newRow("barriers") << qint64(32) << qint64(16) << qint64(0) << qint64(3) << qint64(21)
                              << "barriers";
    // 1024 threads of 255 registers: 8160 a warp x 32 warps is past the
    // 64 Ki registers a block may have.
    QTest::newRow("does not fit") << qint64(1024) << qint64(255) << qint64(0) << qint64(0)
                                  << qint64(0) << "registers";
  }

  void eachLimitOnSm90() {
    QFETCH(qint64, threads);
    QFETCH(qint64, registers);
    QFETCH(qint64, shared);
    QFETCH(qint64, barriers);
    QFETCH(qint64, blocks);
    QFETCH(QString, limit);
    const GpuOccupancy o = on("sm_90", threads, kernel(registers, shared, barriers));
    QCOMPARE(o.blocks_per_sm, blocks);
    QCOMPARE(QString::fromStdString(o.limited_by), limit);
    QCOMPARE(o.max_warps_per_sm, int64_t(64));
    QCOMPARE(o.warps_per_sm, blocks * ((threads + 31) / 32));
  }

  void otherArches() {
    // sm_90a is sm_90's SM.
    QCOMPARE(on("sm_90a", 256, kernel(32, 0)).blocks_per_sm, int64_t(8));
    // Ada: 1536 threads (48 warps), 24 blocks, 100 KiB of shared memory.
    const GpuOccupancy ada = on("sm_89", 256, kernel(32, 0));
    QCOMPARE(ada.max_warps_per_sm, int64_t(48));
    QCOMPARE(ada.blocks_per_sm, int64_t(6));
    QCOMPARE(on("sm_89", 32, kernel(16, 0, 0)).blocks_per_sm, int64_t(24));
    QCOMPARE(on("sm_89", 64, kernel(16, 20 * 1024, 0)).blocks_per_sm, int64_t(4));  // 21 Ki each
    // Turing: 1024 threads, no reserved shared memory, 256 B units.
    const GpuOccupancy turing = on("sm_75", 128, kernel(32, 100, 0));
    QCOMPARE(turing.max_warps_per_sm, int64_t(32));
    QCOMPARE(turing.blocks_per_sm, int64_t(8));
    QCOMPARE(on("sm_75", 32, kernel(16, 6500, 0)).blocks_per_sm, int64_t(9));  // 6656 each
    // Barriers bound blocks from sm_90 on only, as in NVIDIA's calculator.
    const GpuOccupancy ampere = on("sm_86", 64, kernel(32, 0, 2));
    QCOMPARE(ampere.blocks_per_sm, int64_t(16));
    QCOMPARE(QString::fromStdString(ampere.limited_by), QString("blocks"));
    // Each table row: resident warps and blocks per SM, and its shared memory
    // (the SM's whole less the reservation fits one block, a byte more none).
    struct Row {
      const char* arch;
      int64_t warps, blocks, shared_kib, reserved;
    };
    for (const Row& r : {Row{"sm_70", 64, 32, 96, 0}, Row{"sm_72", 64, 32, 96, 0},
                         Row{"sm_75", 32, 16, 64, 0}, Row{"sm_80", 64, 32, 164, 1024},
                         Row{"sm_86", 48, 16, 100, 1024}, Row{"sm_87", 48, 16, 164, 1024},
                         Row{"sm_89", 48, 24, 100, 1024}, Row{"sm_90", 64, 32, 228, 1024}}) {
      const GpuOccupancy one_warp = on(r.arch, 32, kernel(16, 0, 0));
      QCOMPARE(one_warp.max_warps_per_sm, r.warps);
      QCOMPARE(one_warp.blocks_per_sm, r.blocks);
      const int64_t whole = r.shared_kib * 1024 - r.reserved;
      QCOMPARE(on(r.arch, 32, kernel(16, whole, 0)).blocks_per_sm, int64_t(1));
      QCOMPARE(on(r.arch, 32, kernel(16, whole + 1, 0)).blocks_per_sm, int64_t(0));
    }
    // Arches the table does not have.
    QVERIFY(!driver::theoretical_occupancy("sm_61", 128, kernel(32, 0)));
    QVERIFY(!driver::theoretical_occupancy("sm_100", 128, kernel(32, 0)));
    QVERIFY(!driver::theoretical_occupancy("gfx90a", 128, kernel(32, 0)));
  }

  void formatted() {
    QCOMPARE(QString::fromStdString(
                 driver::format_occupancy(on("sm_90", 224, kernel(40, 3936)), "sm_90")),
             QString("occupancy 66% on sm_90 (42 of 64 warps: 6 blocks of 7 warps, limited by "
                     "registers)"));
    QCOMPARE(QString::fromStdString(
                 driver::format_occupancy(on("sm_90", 1024, kernel(255, 0)), "sm_90")),
             QString("occupancy 0 on sm_90: a block does not fit an SM (registers)"));
  }

  void ptxViewShowsItUnderTheKernel() {
    driver::PtxasReport report;
    report.ptxas = "/usr/local/cuda/bin/ptxas";
    report.arch = "sm_90";
    report.kernels = {kernel(40, 3936)};
    const QString header =
        QString::fromStdString(driver::ptxas_header_comment(report, {{"k", 224}}));
    QVERIFY2(header.contains("//   k: 40 registers, 3936 B shared") &&
                 header.contains("//     occupancy 66% on sm_90 (42 of 64 warps"),
             qPrintable(header));
    // Without the launch, the resources alone.
    QVERIFY(!QString::fromStdString(driver::ptxas_header_comment(report)).contains("occupancy"));
  }
};

QTEST_GUILESS_MAIN(TestGpuOccupancy)
#include "tst_gpu_occupancy.moc"
