// A GPU's roofline from the driver's device attributes (driver/gpu_roof.h):
// the formulas against NVIDIA's data sheets for boards of three generations,
// an architecture without a lane count refused by name, and a cuda build's
// kernels placed under a GPU roof (DRAM traffic: what misses the L2, so a
// model whose data fits moves each tensor about once).
#include <QtTest>

#include <cmath>

#include "../graph_builder.h"
#include "driver/gpu_roof.h"
#include "driver/graph_compiler.h"
#include "driver/kernel_roofline.h"
#include "support/error.h"

using namespace lathe;
using lathe::testing::random_tensor;

namespace {

// What the driver reports for an H100 SXM (sm_90: 132 SMs, boost 1980 MHz,
// HBM3 at 2619 MHz on a 5120-bit bus, 50 MiB of L2).
driver::GpuDeviceProperties h100() {
  return {"NVIDIA H100 80GB HBM3", 0, 9, 0, 132, 1980000, 2619000, 5120, 50 << 20};
}

// x [64, 256] -> Gemm (W [128, 256], transB) -> Relu -> Gemm (V [10, 128]).
Graph mlp() {
  testing::GraphBuilder b;
  const ValueId x = b.input("x", {64, 256});
  const Attributes trans = testing::attrs_of({{"transB", int64_t(1)}});
  const ValueId h =
      b.node("Gemm", "fc1", {x, b.constant("w", random_tensor({128, 256}, 1))}, trans);
  const ValueId r = b.node("Relu", "relu", {h});
  const ValueId y = b.node("Gemm", "fc2", {r, b.constant("v", random_tensor({10, 128}, 2))}, trans);
  return b.finish({y});
}

}  // namespace

class TestGpuRoof : public QObject {
  Q_OBJECT

 private slots:
  void peakAndBandwidthFromTheAttributes_data() {
    QTest::addColumn<int>("major");
    QTest::addColumn<int>("minor");
    QTest::addColumn<int>("sms");
    QTest::addColumn<int>("clock_mhz");
    QTest::addColumn<int>("memory_mhz");
    QTest::addColumn<int>("bus_bits");
    QTest::addColumn<double>("sheet_tflops");
    QTest::addColumn<double>("sheet_gbps");
    // Data sheets: H100 SXM 67 TFLOPS FP32, 3.35 TB/s; A100 40GB 19.5
    // TFLOPS, 1555 GB/s; RTX 4090 (Ada, sm_89) 82.6 TFLOPS, 1008 GB/s.
    QTest::newRow("H100 SXM") << 9 << 0 << 132 << 1980 << 2619 << 5120 << 67.0 << 3350.0;
    QTest::newRow("A100") << 8 << 0 << 108 << 1410 << 1215 << 5120 << 19.5 << 1555.0;
    QTest::newRow("RTX 4090") << 8 << 9 << 128 << 2520 << 10501 << 384 << 82.6 << 1008.0;
  }
  void peakAndBandwidthFromTheAttributes() {
    QFETCH(int, major);
    QFETCH(int, minor);
    QFETCH(int, sms);
    QFETCH(int, clock_mhz);
    QFETCH(int, memory_mhz);
    QFETCH(int, bus_bits);
    QFETCH(double, sheet_tflops);
    QFETCH(double, sheet_gbps);
    const driver::MachineRoof roof = driver::gpu_machine_roof(
        {"board", 1, major, minor, sms, clock_mhz * 1000, memory_mhz * 1000, bus_bits, 1 << 20});
    // Within 1.5 % of the data sheet (which rounds).
    QVERIFY2(std::abs(roof.peak_gflops / 1e3 - sheet_tflops) / sheet_tflops < 0.015,
             qPrintable(QString::number(roof.peak_gflops)));
    QCOMPARE(int(roof.bandwidth.levels.size()), 1);
    QCOMPARE(QString::fromStdString(roof.bandwidth.levels[0].name), QString("DRAM"));
    const double gbps = roof.bandwidth.levels[0].read_gbps;
    QVERIFY2(std::abs(gbps - sheet_gbps) / sheet_gbps < 0.015, qPrintable(QString::number(gbps)));
    QCOMPARE(QString::fromStdString(roof.device), QString("cuda:1 board"));
    QCOMPARE(roof.machine.caches.back().capacity_bytes, int64_t(1 << 20));
  }

  void unknownArchitectureIsRefusedByName() {
    driver::GpuDeviceProperties kepler = h100();
    kepler.name = "Tesla K80";
    kepler.major = 3;
    kepler.minor = 7;
    try {
      driver::gpu_machine_roof(kepler);
      QFAIL("a Kepler got a roof");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("Tesla K80 (sm_37)"), e.what());
    }
  }

  // The cuda build of a small MLP under an H100's roof: every kernel's data
  // fits the L2, so its DRAM traffic is its tensors about once, whose time at
  // 3352 GB/s exceeds its FLOPs' at the peak: DRAM-bound.
  void cudaKernelsUnderTheGpuRoof() {
    driver::CompileOptions options;
    options.target = driver::Target::parse("cuda -arch=sm_90");
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(mlp(), options);
    std::vector<driver::KernelProfile> profile;
    for (const driver::FusedGroup& g : compiled.optimized.groups)
      for (const driver::KernelTask& t : compiled.tasks)
        for (int gi : t.groups)
          if (gi == g.id) profile.push_back({g.name, t.func_name, 5, {}});
    QVERIFY(!profile.empty());
    const driver::MachineRoof machine = driver::gpu_machine_roof(h100());
    const std::vector<driver::KernelRoofline> rows =
        driver::kernel_rooflines(compiled, profile, machine);
    QCOMPARE(rows.size(), profile.size());
    for (const driver::KernelRoofline& r : rows) {
      QVERIFY2(r.roof.levels.size() == 1 && r.roof.levels[0].name == "DRAM",
               r.profile.func_name.c_str());
      // Each parameter buffer crosses DRAM once, the output at most twice
      // (the model reads back an output a reduction accumulates into).
      double tensors = 0, output = 0;
      for (size_t i = 0; i < compiled.tasks.size(); ++i)
        if (compiled.tasks[i].func_name == r.profile.func_name)
          for (const tir::Buffer& b : compiled.funcs[i].params) {
            output = double(b.numel()) * b.dtype.bytes();  // the last: the output
            tensors += output;
          }
      QVERIFY2(tensors > 0, r.profile.func_name.c_str());
      const double bytes = r.roof.levels[0].bytes;
      QVERIFY2(bytes >= tensors && bytes <= tensors + output,
               qPrintable(QString("%1: %2 bytes, tensors %3")
                              .arg(QString::fromStdString(r.profile.func_name))
                              .arg(bytes)
                              .arg(tensors)));
      QCOMPARE(r.roof.peak_gflops, machine.peak_gflops);
      QCOMPARE(r.roof.bound, std::string("DRAM"));
      QVERIFY(r.dram_gbps > 0);
    }
    const QString text = QString::fromStdString(driver::format_roofline_profile(rows, machine));
    QVERIFY2(text.startsWith("Roofline: cuda:0 NVIDIA H100 80GB HBM3: peak 66908.2 GFLOPS FP32 on "
                             "132 SMs; GB/s DRAM 3352.3; from the driver's device attributes"),
             qPrintable(text));
  }
};

QTEST_GUILESS_MAIN(TestGpuRoof)
#include "tst_gpu_roof.moc"
