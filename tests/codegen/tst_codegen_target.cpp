// Target strings: defaults from the host, canonical round trips, and errors
// that name the offending option.
#include <QtTest>
#include <set>
#include <sstream>

#include "../runtime/recorded_cpus.h"
#include "codegen/codegen.h"
#include "runtime/cpu_features.h"
#include "support/error.h"
#include "test_kernels.h"

using namespace lathe;
using codegen::Target;

namespace {

QString error_of(const std::string& text) {
  try {
    Target::parse(text);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestCodegenTarget : public QObject {
  Q_OBJECT

 private slots:
  void plainLlvmMeansTheHost() {
    Target t = Target::parse("llvm");
    QVERIFY(t.mcpu.empty());
    QVERIFY(!t.cpu().empty());
    QVERIFY(!t.features().empty());
    QCOMPARE(t.opt_level, 3);
    QVERIFY(!t.fast_math);
    QVERIFY(t.is_host());
    QCOMPARE(QString::fromStdString(t.to_string()), QString("llvm"));
    QCOMPARE(Target::host(), t);
    QCOMPARE(Target::parse("  llvm   ").to_string(), std::string("llvm"));
  }

  void optionsRoundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("cpu") << "llvm -mcpu=skylake-avx512";
    QTest::newRow("attrs") << "llvm -mattr=+avx2,-fma";
    QTest::newRow("all") << "llvm -mcpu=x86-64-v3 -mattr=+avx2 -opt-level=2 -fast-math";
    QTest::newRow("triple") << "llvm -mtriple=x86_64-linux-gnu -opt-level=0";
  }
  void optionsRoundTrip() {
    QFETCH(QString, text);
    Target t = Target::parse(text.toStdString());
    QCOMPARE(QString::fromStdString(t.to_string()), text);
    QCOMPARE(Target::parse(t.to_string()), t);
  }

  void optionsAreParsed() {
    Target t = Target::parse("llvm -fast-math -opt-level=1 -mattr=+avx2,-avx512f -mcpu=znver4");
    QCOMPARE(t.mcpu, std::string("znver4"));
    QCOMPARE(t.cpu(), std::string("znver4"));
    QCOMPARE(t.mattr, (std::vector<std::string>{"+avx2", "-avx512f"}));
    QCOMPARE(t.features(), std::string("+avx2,-avx512f"));
    QCOMPARE(t.opt_level, 1);
    QVERIFY(t.fast_math);
    // Without -mcpu, -mattr amends the host's features.
    Target amended = Target::parse("llvm -mattr=-avx512f");
    QVERIFY(QString::fromStdString(amended.features()).endsWith(",-avx512f"));
    QCOMPARE(Target::parse("llvm -mcpu=native").cpu(), Target::host().cpu());
  }

  void cudaTargetsParseAndPrint_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical");
    QTest::newRow("defaults") << "cuda"
                              << "cuda";
    QTest::newRow("arch") << "cuda -arch=sm_90"
                          << "cuda -arch=sm_90";
    QTest::newRow("defaults given") << "cuda -arch=sm_75 -max_threads_per_block=1024"
                                    << "cuda";
    QTest::newRow("every option")
        << "cuda -fast-math -thread_warp_size=32 -max_shared_memory_per_block=101376 "
           "-opt-level=2 -max_threads_per_block=512 -arch=sm_80"
        << "cuda -arch=sm_80 -max_threads_per_block=512 -max_shared_memory_per_block=101376 "
           "-opt-level=2 -fast-math";
    QTest::newRow("TVM's") << "cuda -arch=sm_90 -max_threads_per_block=1024 "
                              "-max_shared_memory_per_block=49152"
                           << "cuda -arch=sm_90";
  }
  void cudaTargetsParseAndPrint() {
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    const Target t = Target::parse(text.toStdString());
    QCOMPARE(t.kind, codegen::TargetKind::Cuda);
    QVERIFY(t.is_gpu());
    QVERIFY(!t.is_host());
    QCOMPARE(QString::fromStdString(t.to_string()), canonical);
    QCOMPARE(Target::parse(t.to_string()), t);
    QCOMPARE(t.triple(), std::string("nvptx64-nvidia-cuda"));
    QCOMPARE(t.cpu(), t.arch);
  }

  void cudaAttributesHaveTvmDefaults() {
    const Target t = Target::parse("cuda");
    QCOMPARE(t.arch, std::string("sm_75"));
    QCOMPARE(t.max_threads_per_block, int64_t(1024));
    QCOMPARE(t.max_shared_memory_per_block, int64_t(49152));
    QCOMPARE(t.thread_warp_size, int64_t(32));
    // The llvm kind is untouched by them.
    QCOMPARE(Target::host().kind, codegen::TargetKind::Llvm);
    QVERIFY(!Target::host().is_gpu());
    QCOMPARE(Target::host().to_string(), std::string("llvm"));
  }

  void badTargetsSayWhatIsWrong_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("kind") << "rocm"
                          << "unknown target kind 'rocm'";
    QTest::newRow("option") << "llvm -foo=1"
                            << "unknown option '-foo'";
    QTest::newRow("option list") << "llvm -O3"
                                 << "-mcpu=NAME";
    QTest::newRow("not an option") << "llvm avx2"
                                   << "expected an option starting with '-'";
    QTest::newRow("cpu") << "llvm -mcpu=notacpu"
                         << "unknown CPU 'notacpu'";
    QTest::newRow("cpu value") << "llvm -mcpu"
                               << "'-mcpu' needs a value";
    QTest::newRow("attr sign") << "llvm -mattr=avx2"
                               << "with + or - in front";
    QTest::newRow("attr name") << "llvm -mattr=+avx9000"
                               << "unknown CPU feature 'avx9000'";
    QTest::newRow("opt level") << "llvm -opt-level=7"
                               << "must be 0, 1, 2 or 3";
    QTest::newRow("fast math value") << "llvm -fast-math=1"
                                     << "-fast-math takes no value";
    QTest::newRow("twice") << "llvm -mcpu=znver4 -mcpu=znver3"
                           << "given twice";
    QTest::newRow("triple") << "llvm -mtriple=nonsense-foo-bar"
                            << "not available";
    QTest::newRow("cuda arch") << "cuda -arch=90"
                               << "-arch must be sm_NN";
    QTest::newRow("cuda arch LLVM lacks") << "cuda -arch=sm_99"
                                          << "does not know -arch=sm_99";
    QTest::newRow("cuda option of llvm") << "cuda -mcpu=sm_90"
                                         << "unknown option '-mcpu' for kind 'cuda'";
    QTest::newRow("cuda option list") << "cuda -foo"
                                      << "-max_threads_per_block=N";
    QTest::newRow("llvm option of cuda") << "llvm -arch=sm_90"
                                         << "unknown option '-arch' for kind 'llvm'";
    QTest::newRow("cuda threads") << "cuda -max_threads_per_block=2048"
                                  << "at most 1024";
    QTest::newRow("cuda threads value") << "cuda -max_threads_per_block=many"
                                        << "-max_threads_per_block must be a positive integer";
    QTest::newRow("cuda shared zero") << "cuda -max_shared_memory_per_block=0"
                                      << "must be a positive integer";
    QTest::newRow("cuda warp") << "cuda -thread_warp_size=64"
                               << "is 32 on NVIDIA GPUs";
    QTest::newRow("cuda twice") << "cuda -arch=sm_80 -arch=sm_90"
                                << "given twice";
  }
  void badTargetsSayWhatIsWrong() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const QString message = error_of(text.toStdString());
    QVERIFY2(message.contains(expected), qPrintable("'" + text + "' gave: " + message));
    QVERIFY2(message.contains("target '" + text + "'"), qPrintable(message));
  }

  void jitRefusesFeaturesTheHostLacks() {
    const std::string host = "," + Target::host().features() + ",";
    std::string lacking;
    for (const char* feature : {"amx-tile", "avx512f", "avx2"})
      if (host.find(std::string(",-") + feature + ",") != std::string::npos) {
        lacking = feature;
        break;
      }
    if (lacking.empty()) QSKIP("the host has every feature this test would ask for");
    const Target t = Target::parse("llvm -mattr=+" + lacking);
    QString message;
    try {
      codegen::jit_compile(lathe::testing::vector_add(64), t);
    } catch (const Error& e) {
      message = e.what();
    }
    QVERIFY2(message.contains("lacks") && message.contains(QString::fromStdString(lacking)),
             qPrintable(message));
  }

  // A hypervisor hides system features that LLVM's CPU models name (haswell
  // invpcid, skylake rdseed and xsaves, znver4 pku and rdpru ...); no kernel
  // contains them, so the JIT runs such a target's code on the guest.
  void jitRunsCpuModelsOnGuestsHidingSystemFeatures() {
    for (const test::GuestRun& run : test::guest_runs()) {
      const Target t = Target::parse("llvm -mcpu=" + run.mcpu);
      const std::set<std::string> guest = runtime::decode_cpu_features(run.cpuid);
      const QString where = QString::fromStdString(run.mcpu + " on " + run.guest);
      // The guest lacks something the model names: a check comparing every
      // name would refuse it.
      bool hides_one = false;
      std::istringstream items(t.isa_features());
      for (std::string item; std::getline(items, item, ',');)
        hides_one = hides_one || !guest.count(item.substr(1));
      QVERIFY2(hides_one, qPrintable(where + ": the guest hides nothing the model names"));
      try {
        codegen::check_jit_target(t, guest);
      } catch (const Error& e) {
        QFAIL(qPrintable(where + ": " + e.what()));
      }
    }
  }

  void jitRefusesHaswellCodeWithoutAvx2() {
    const Target haswell = Target::parse("llvm -mcpu=haswell");
    for (const runtime::CpuidSnapshot& cpuid :
         {test::without_avx2(test::as_vm_guest(test::haswell_cpuid())),
          test::without_avx2(test::zen5_vm_cpuid())}) {
      QString message;
      try {
        codegen::check_jit_target(haswell, runtime::decode_cpu_features(cpuid));
      } catch (const Error& e) {
        message = e.what();
      }
      QVERIFY2(message.contains("'llvm -mcpu=haswell' uses CPU features this machine lacks (avx2)"),
               qPrintable(message));
    }
  }

  // One truth: the runtime's CPUID decoding and LLVM's host detection, which
  // the compiler records in every package, agree name for name here.
  void runtimeDetectionAgreesWithLlvm() {
    const std::set<std::string>& runtime_has = runtime::host_cpu_features();
    const std::vector<std::string> names = runtime::detectable_cpu_features();
    const std::set<std::string> detectable(names.begin(), names.end());
    std::istringstream items(Target::host().features());
    int compared = 0;
    for (std::string item; std::getline(items, item, ',');) {
      const std::string name = item.substr(1);
      QVERIFY2(detectable.count(name), qPrintable("LLVM detects '" + QString::fromStdString(name) +
                                                  "', which the runtime cannot"));
      QVERIFY2(runtime_has.count(name) == (item[0] == '+'),
               qPrintable("LLVM says " + QString::fromStdString(item) + ", the runtime " +
                          (runtime_has.count(name) ? "has it" : "does not")));
      ++compared;
    }
    QVERIFY(compared > 50);
  }

  // A package records the ISA features of its -mcpu; the loader compares
  // them with the CPUID of the machine it runs on.
  void packagesForOneCpuOnAnother() {
    auto missing = [](const char* mcpu, const runtime::CpuidSnapshot& host) {
      const Target t = Target::parse(std::string("llvm -mcpu=") + mcpu);
      return runtime::missing_cpu_features(t.isa_features(), runtime::decode_cpu_features(host));
    };
    auto has = [](const std::vector<std::string>& list, const char* f) {
      return std::find(list.begin(), list.end(), f) != list.end();
    };
    const runtime::CpuidSnapshot haswell = test::haswell_cpuid();
    const runtime::CpuidSnapshot spr = test::sapphire_rapids_cpuid();
    const runtime::CpuidSnapshot zen4 = test::zen4_cpuid();

    // Each CPU runs its own code, and an AVX2 package runs everywhere.
    QCOMPARE(missing("haswell", haswell), std::vector<std::string>());
    QCOMPARE(missing("sapphirerapids", spr), std::vector<std::string>());
    QCOMPARE(missing("znver4", zen4), std::vector<std::string>());
    QCOMPARE(missing("haswell", spr), std::vector<std::string>());
    QCOMPARE(missing("haswell", zen4), std::vector<std::string>());
    QCOMPARE(missing("x86-64-v3", zen4), std::vector<std::string>());

    const std::vector<std::string> zen4_on_haswell = missing("znver4", haswell);
    QVERIFY(has(zen4_on_haswell, "avx512f") && has(zen4_on_haswell, "sse4a"));
    QVERIFY(!has(zen4_on_haswell, "avx2") && !has(zen4_on_haswell, "lzcnt"));
    const std::vector<std::string> spr_on_zen4 = missing("sapphirerapids", zen4);
    QVERIFY(has(spr_on_zen4, "amx-tile") && has(spr_on_zen4, "avx512fp16"));
    QVERIFY(!has(spr_on_zen4, "avx512f") && !has(spr_on_zen4, "avx512vnni"));
    QCOMPARE(missing("znver4", spr), std::vector<std::string>({"sse4a"}));
  }
};

QTEST_GUILESS_MAIN(TestCodegenTarget)
#include "tst_codegen_target.moc"
