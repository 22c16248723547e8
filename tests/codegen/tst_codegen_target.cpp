// Target strings: defaults from the host, canonical round trips, and errors
// that name the offending option.
#include <QtTest>

#include "codegen/codegen.h"
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

  void badTargetsSayWhatIsWrong_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("kind") << "cuda"
                          << "unknown target kind 'cuda'";
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
};

QTEST_GUILESS_MAIN(TestCodegenTarget)
#include "tst_codegen_target.moc"
