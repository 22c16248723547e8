// Every case of ONNX's backend test data shipped by Debian's libonnx-testdata,
// through the importer and the reference executor, and through the graph
// compiler, and compiled for a cuda GPU on the GPU simulator. Fails when a case whose operators are
// all supported fails, unless known_exceptions*.txt lists it, and when the passing cases differ
// from expected_passes*.txt: a regression that turns a case "unsupported"
// fails too. `tests/onnx_conformance [--compiled] --list-passing` prints a list.
#include <QtTest>

#include <iostream>

#include "conformance_runner.h"

using namespace lathe::conformance;

class TestOnnxConformance : public QObject {
  Q_OBJECT

  // Runs `folder` with `executor`: fails on a failed case or an unexpected
  // pass (against `exceptions`) and where the passing cases differ from
  // `expected`; prints the counts under `label`.
  static void checkFolder(const QString& folder, ExecutorKind executor, const char* exceptions,
                          const char* expected, const char* label) {
    RunOptions options;
    options.folders = {folder.toStdString()};
    options.executor = executor;
    options.exceptions = load_exceptions(exceptions);
    QStringList failures;
    auto results = run_all(options, [&](const CaseResult& r) {
      if (r.outcome == Outcome::Failed || r.outcome == Outcome::UnexpectedPass)
        failures << QString::fromStdString(r.folder + "/" + r.name + ": " + r.message);
    });
    const FolderSummary s = summarize(results)[folder.toStdString()];
    std::cout << folder.toStdString() << label << ": " << s.passed << " passed";
    if (executor != ExecutorKind::Reference)
      std::cout << " (" << s.folded << " of them folded to constants, no kernel run)";
    std::cout << ", " << s.failed << " failed, " << s.unsupported << " unsupported, " << s.known
              << " known failures" << std::endl;
    QVERIFY2(s.passed > 0, "no case passed: is libonnx-testdata installed?");
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    checkExpectedPasses(results, expected);
  }

  static void checkExpectedPasses(const std::vector<CaseResult>& results, const char* list) {
    QStringList lines;
    for (const std::string& line : expected_pass_differences(results, load_case_list(list)))
      lines << QString::fromStdString(line);
    QVERIFY2(lines.isEmpty(),
             qPrintable(
                 QStringLiteral("against %1:\n%2").arg(QString::fromUtf8(list), lines.join("\n"))));
  }

 private slots:
  void referenceExecutorPassesEverySupportedCase_data() {
    QTest::addColumn<QString>("folder");
    for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"})
      QTest::newRow(folder) << QString(folder);
  }

  void referenceExecutorPassesEverySupportedCase() {
    QFETCH(QString, folder);
    checkFolder(folder, ExecutorKind::Reference, LATHE_CONFORMANCE_EXCEPTIONS,
                LATHE_CONFORMANCE_EXPECTED, "");
  }

  // The same cases through the graph compiler: every case whose ops all have
  // compiled kernels must pass with the same rule, else be listed in
  // known_exceptions_compiled.txt with the reason.
  void compiledExecutorPassesEverySupportedCase_data() {
    referenceExecutorPassesEverySupportedCase_data();
  }

  void compiledExecutorPassesEverySupportedCase() {
    QFETCH(QString, folder);
    checkFolder(folder, ExecutorKind::Compiled, LATHE_CONFORMANCE_COMPILED_EXCEPTIONS,
                LATHE_CONFORMANCE_COMPILED_EXPECTED, " (compiled)");
  }

  // The same cases compiled for a cuda GPU, the kernels run by the GPU
  // simulator: the GPU schedules, lowering and polynomial math on every
  // operator, known_exceptions_simulated_gpu.txt listing what fails.
  void simulatedGpuPassesEverySupportedCase_data() {
    referenceExecutorPassesEverySupportedCase_data();
  }

  void simulatedGpuPassesEverySupportedCase() {
    QFETCH(QString, folder);
    checkFolder(folder, ExecutorKind::SimulatedGpu, LATHE_CONFORMANCE_SIMULATED_GPU_EXCEPTIONS,
                LATHE_CONFORMANCE_SIMULATED_GPU_EXPECTED, " (cuda, simulated)");
  }
};

QTEST_GUILESS_MAIN(TestOnnxConformance)
#include "tst_onnx_conformance.moc"
