// The roofline's driver side on a known machine: the machine's roof kept in
// its file and measured again only when asked or when the machine differs;
// and what-if hints from the fused graph, given for a memory-bound kernel
// whose output the next group reads again and never for a compute-bound one,
// and for a kernel reading what a layout transform wrote for it alone.
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>
#include <iterator>
#include <string>

#include "../graph_builder.h"
#include "driver/graph_compiler.h"
#include "driver/kernel_roofline.h"
#include "driver/machine_roof.h"
#include "driver/optimized_graph.h"
#include "driver/what_if.h"

using namespace lathe;
using lathe::testing::attrs_of;
using lathe::testing::random_tensor;

namespace {

// Round numbers, so every bound below follows from the arithmetic.
MemoryBandwidth knownBandwidth() {
  MemoryBandwidth bw;
  bw.threads = 4;
  bw.vector_bits = 512;
  bw.levels = {{"L1", 48 << 10, 1, 96 << 10, 2000, 1500},
               {"L2", 2 << 20, 1, 4 << 20, 800, 600},
               {"DRAM", 0, 1, 256 << 20, 20, 16}};
  return bw;
}

driver::MachineIdentity knownMachine(int threads = 4) {
  return {"Test CPU 9000", {{1, 48 << 10, 1}, {2, 2 << 20, 1}}, threads};
}

driver::MachineRoof knownRoof(const driver::MachineIdentity& machine, double peak = 100) {
  driver::MachineRoof roof;
  roof.machine = machine;
  roof.peak_gflops = peak;
  roof.bandwidth = knownBandwidth();
  roof.measured_at = "2026-11-24T18:00:00.000Z";
  return roof;
}

// x (3.2 MB) + c -> conv3x3 -> conv3x3: the Add (with the layout transform
// into channel blocks it fuses with) moves bytes and barely computes; each
// conv computes ~0.9 GFLOP over a few MB.
Graph addThenTwoConvs() {
  testing::GraphBuilder b;
  const Shape shape = {1, 64, 112, 112};
  const ValueId x = b.input("x", shape);
  const ValueId c = b.constant("c", random_tensor(shape, 1));
  const ValueId sum = b.node("Add", "add", {x, c});
  const Attributes conv = attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const ValueId y1 =
      b.node("Conv", "conv1", {sum, b.constant("w1", random_tensor({64, 64, 3, 3}, 2))}, conv);
  const ValueId y2 =
      b.node("Conv", "conv2", {y1, b.constant("w2", random_tensor({64, 64, 3, 3}, 3))}, conv);
  return b.finish({y2});
}

const driver::KernelRoofline* rowOf(const std::vector<driver::KernelRoofline>& rows,
                                    const std::string& op) {
  for (const driver::KernelRoofline& r : rows)
    if (r.profile.func_name.find(op) != std::string::npos) return &r;
  return nullptr;
}

}  // namespace

class TestKernelRoofline : public QObject {
  Q_OBJECT

 private slots:
  // Measured once, then read back equal; measured again on demand, and for
  // a machine whose key differs (another thread count).
  void machineRoofIsKeptPerMachine() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path folder = dir.filePath("cache").toStdString();
    int measured = 0;
    const driver::MeasureMachine measure = [&](const driver::MachineIdentity& machine) {
      ++measured;
      return knownRoof(machine, 100 + measured);
    };

    const driver::MachineIdentity machine = knownMachine();
    const driver::MachineRoof first =
        driver::machine_roof(folder, machine, driver::Remeasure::IfMissing, measure);
    QCOMPARE(measured, 1);
    QVERIFY(!first.from_cache);
    QVERIFY(std::filesystem::exists(driver::machine_cache_file(folder, machine)));

    const driver::MachineRoof kept =
        driver::machine_roof(folder, machine, driver::Remeasure::IfMissing, measure);
    QCOMPARE(measured, 1);
    QVERIFY(kept.from_cache);
    QCOMPARE(kept.peak_gflops, first.peak_gflops);
    QCOMPARE(kept.measured_at, first.measured_at);
    QCOMPARE(kept.machine.key(), machine.key());
    QCOMPARE(kept.bandwidth.threads, 4);
    QCOMPARE(kept.bandwidth.levels.size(), size_t{3});
    for (size_t i = 0; i < 3; ++i) {
      QCOMPARE(kept.bandwidth.levels[i].name, first.bandwidth.levels[i].name);
      QCOMPARE(kept.bandwidth.levels[i].capacity_bytes, first.bandwidth.levels[i].capacity_bytes);
      QCOMPARE(kept.bandwidth.levels[i].read_gbps, first.bandwidth.levels[i].read_gbps);
      QCOMPARE(kept.bandwidth.levels[i].read_write_gbps, first.bandwidth.levels[i].read_write_gbps);
    }

    const driver::MachineRoof again =
        driver::machine_roof(folder, machine, driver::Remeasure::Always, measure);
    QCOMPARE(measured, 2);
    QVERIFY(!again.from_cache);
    QCOMPARE(again.peak_gflops, 102.0);
    QCOMPARE(
        driver::machine_roof(folder, machine, driver::Remeasure::IfMissing, measure).peak_gflops,
        102.0);

    // Another thread count is another machine: a file of its own, measured.
    const driver::MachineIdentity fewer = knownMachine(2);
    QVERIFY(driver::machine_cache_file(folder, fewer) !=
            driver::machine_cache_file(folder, machine));
    QCOMPARE(driver::machine_roof(folder, fewer, driver::Remeasure::IfMissing, measure).peak_gflops,
             103.0);
    QCOMPARE(measured, 3);
  }

  // A measurement again under load (lower numbers) keeps the best of what the
  // machine has shown, number by number; a higher one replaces it.
  void measuringAgainKeepsTheBest() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path folder = dir.filePath("cache").toStdString();
    const driver::MachineIdentity machine = knownMachine();
    double scale = 1.0;
    const driver::MeasureMachine measure = [&](const driver::MachineIdentity& m) {
      driver::MachineRoof roof = knownRoof(m, 100 * scale);
      for (BandwidthLevel& l : roof.bandwidth.levels) l.read_gbps *= scale;
      roof.bandwidth.levels[1].read_write_gbps *= 2;  // one number higher than before
      return roof;
    };
    const driver::MachineRoof first =
        driver::machine_roof(folder, machine, driver::Remeasure::Always, measure);
    scale = 0.5;
    const driver::MachineRoof loaded =
        driver::machine_roof(folder, machine, driver::Remeasure::Always, measure);
    QCOMPARE(loaded.peak_gflops, 100.0);
    for (size_t i = 0; i < loaded.bandwidth.levels.size(); ++i)
      QCOMPARE(loaded.bandwidth.levels[i].read_gbps, first.bandwidth.levels[i].read_gbps);
    QCOMPARE(loaded.bandwidth.levels[1].read_write_gbps,
             knownBandwidth().levels[1].read_write_gbps * 2);
    QCOMPARE(driver::machine_roof(folder, machine, driver::Remeasure::IfMissing, measure)
                 .bandwidth.levels[0]
                 .read_gbps,
             first.bandwidth.levels[0].read_gbps);
    scale = 2.0;
    QCOMPARE(driver::machine_roof(folder, machine, driver::Remeasure::Always, measure).peak_gflops,
             200.0);
  }

  // A file whose key is not the machine's (a copied cache folder, a changed
  // CPU under the same name hash), of an older version or that does not
  // parse is not trusted.
  void foreignOrBrokenFileIsMeasuredAgain() {
    QTemporaryDir dir;
    const std::filesystem::path file = dir.filePath("machine.json").toStdString();
    driver::MachineIdentity other = knownMachine();
    other.cpu = "Other CPU";
    driver::write_machine_roof(file, knownRoof(other));
    QVERIFY(driver::read_machine_roof(file, other).has_value());
    QVERIFY(!driver::read_machine_roof(file, knownMachine()).has_value());

    // A file of the first version kept no int8 peak: measured again.
    std::string text;
    {
      std::ifstream in(file);
      text.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t version = text.find("\"version\": 2");
    QVERIFY2(version != std::string::npos, text.c_str());
    text.replace(version, 12, "\"version\": 1");
    std::ofstream(file) << text;
    QVERIFY(!driver::read_machine_roof(file, other).has_value());

    std::ofstream(file) << "{\"version\": 2, \"key\": ";
    QVERIFY(!driver::read_machine_roof(file, other).has_value());
  }

  // On the known machine (100 GFLOPS, 20 GB/s DRAM) the Add is DRAM-bound
  // and its 3.2 MB output (beyond L2) is read again by conv1: one hint, with
  // that output's write and read at DRAM's read+write bandwidth. The convs
  // are compute-bound: conv1's output, re-read by conv2, gets no hint.
  void whatIfForAMemoryBoundProducerOnly() {
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(addThenTwoConvs(), options);
    std::vector<driver::KernelProfile> profile;
    for (const driver::FusedGroup& g : compiled.optimized.groups) {
      for (const driver::KernelTask& t : compiled.tasks)
        for (int gi : t.groups)
          if (gi == g.id) profile.push_back({g.name, t.func_name, 1000, {}});
    }
    QCOMPARE(profile.size(), compiled.optimized.groups.size());
    const driver::MachineRoof machine = knownRoof(knownMachine());
    const std::vector<driver::KernelRoofline> rows =
        driver::kernel_rooflines(compiled, profile, machine);

    const driver::KernelRoofline* add = rowOf(rows, "add");
    QVERIFY(add);
    QCOMPARE(add->roof.bound, std::string("DRAM"));
    QCOMPARE(add->hints.size(), size_t{1});
    const driver::WhatIfHint& hint = add->hints.front();
    const driver::KernelRoofline* conv1 = nullptr;
    for (const driver::KernelRoofline& r : rows)
      if (r.profile.node_name == hint.other_group) conv1 = &r;
    QVERIFY2(conv1, hint.other_group.c_str());
    QVERIFY2(conv1->profile.func_name.find("conv2d") != std::string::npos, hint.text.c_str());
    QCOMPARE(hint.level, std::string("DRAM"));
    const double tensor = 64.0 * 112 * 112 * 4;
    QCOMPARE(hint.bytes_saved, 2 * tensor);
    QCOMPARE(hint.seconds_saved, 2 * tensor / 16e9);
    QVERIFY2(QString::fromStdString(hint.text).contains("(3.2 MB) is read again by"),
             hint.text.c_str());
    QVERIFY2(QString::fromStdString(hint.text).contains("6.4 MB of DRAM traffic"),
             hint.text.c_str());

    int convs = 0;
    for (const driver::KernelRoofline& r : rows) {
      if (r.profile.func_name.find("conv2d") == std::string::npos) continue;
      ++convs;
      QCOMPARE(r.roof.bound, std::string("compute"));
      QVERIFY(r.hints.empty());
      QVERIFY(r.task >= 0);
      QVERIFY(!r.workload.empty());
    }
    QCOMPARE(convs, 2);

    const std::string table = driver::format_roofline_profile(rows, machine);
    QVERIFY2(table.find("What if") != std::string::npos, table.c_str());
    QVERIFY2(table.find(add->profile.node_name + ": " + hint.text) != std::string::npos,
             table.c_str());
  }

  // x -> [LayoutTransform] -> [Relu] -> output, in two groups by hand: the
  // Relu reads a 3.2 MB copy only it reads, so sinking the transform into
  // it spares the copy's write and read; the transform's own hint says the
  // same from its side. The Relu's output is the graph's: nothing reads it again.
  void whatIfSinksALayoutTransformReadByOneKernel() {
    testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 64, 112, 112});
    const ValueId blocked = b.node(
        "LayoutTransform", "to16c", {x},
        attrs_of({{"src_layout", std::string("NCHW")}, {"dst_layout", std::string("NCHW16c")}}));
    const ValueId y = b.node("Relu", "relu", {blocked});
    driver::OptimizedGraph optimized;
    optimized.graph = b.finish({y});
    optimized.groups = {
        {0, "fused_layout_transform", {0}, 0, FusionKind::Injective, {x}, {blocked}},
        {1, "fused_relu", {1}, 1, FusionKind::ElemWise, {blocked}, {y}}};
    Roofline dram;
    dram.bound = "DRAM";
    dram.estimated_seconds = 1e-3;
    const MemoryBandwidth bandwidth = knownBandwidth();
    const double tensor = 64.0 * 112 * 112 * 4;

    const std::vector<driver::WhatIfHint> relu =
        driver::what_if_hints(optimized, 1, dram, bandwidth);
    QCOMPARE(relu.size(), size_t{1});
    QCOMPARE(relu[0].other_group, std::string("fused_layout_transform"));
    QCOMPARE(relu[0].bytes_saved, 2 * tensor);
    QVERIFY2(
        QString::fromStdString(relu[0].text)
            .contains("from the layout transform fused_layout_transform, which nothing else reads: "
                      "sinking the transform into this kernel"),
        relu[0].text.c_str());

    const std::vector<driver::WhatIfHint> transform =
        driver::what_if_hints(optimized, 0, dram, bandwidth);
    QCOMPARE(transform.size(), size_t{1});
    QCOMPARE(transform[0].other_group, std::string("fused_relu"));
    QVERIFY2(
        QString::fromStdString(transform[0].text).contains("sinking the transform into fused_relu"),
        transform[0].text.c_str());

    Roofline compute = dram;
    compute.bound = "compute";
    QVERIFY(driver::what_if_hints(optimized, 1, compute, bandwidth).empty());
  }
};

QTEST_GUILESS_MAIN(TestKernelRoofline)
#include "tst_kernel_roofline.moc"
