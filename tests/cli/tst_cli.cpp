// The `lathe` command as a user runs it: inspect and run on real files, and
// bad input answered with one error line and a non-zero exit.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <cmath>

#include "../frontend/control_flow_models.h"
#include "../symbolic_models.h"
#include "../test_models.h"
#include "driver/tensor_files.h"
#include "ir/normalized_error.h"

using namespace lathe;

namespace {

struct Result {
  int code;
  QString out;
  QString err;
};

Result lathe_cli(const QStringList& args) {
  QProcess p;
  p.start(qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe", args);
  if (!p.waitForFinished(120000)) return {-1, {}, "timed out"};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

QString models() {
  return lathe::testing::test_models_dir();
}

// PyTorch's output for a test model: the array "output" of its .io.npz.
Tensor reference_output(const QString& model) {
  const std::string path = (models() + "/" + model + ".io.npz").toStdString();
  for (const auto& [name, t] : driver::read_npz_tensors(path))
    if (name == "output") return t;
  throw std::runtime_error(path + " has no array 'output'");
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void inspectPrintsSummary() {
    Result r = lathe_cli({"inspect", models() + "/mlp.onnx"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("input  float32[1,1,28,28]"));
    QVERIFY(r.out.contains("Gemm"));
    QVERIFY(r.out.contains("Parameters: 535818"));
    QVERIFY(r.out.contains("Total MACs: 535040"));
  }

  void runWritesOutputsThatMatchTheReference() {
    QString out = dir_.filePath("out.npz");
    Result r = lathe_cli({"run", models() + "/squeezenet1_1.onnx", "--executor", "reference",
                          "--inputs", models() + "/squeezenet1_1.io.npz", "--output", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    driver::NamedTensors got = driver::read_npz_tensors(out.toStdString());
    QCOMPARE(got.size(), size_t{1});
    const double error = normalized_error(got[0].second, reference_output("squeezenet1_1"));
    QVERIFY2(error <= 1e-4, qPrintable(QString("normalized error %1").arg(error)));
  }

  // tvmc's workflow: compile to a package, run it with the time summary and
  // the per-kernel profile; the package's output matches PyTorch's.
  void compileThenRunPackage() {
    QString tar = dir_.filePath("mlp.tar");
    Result c = lathe_cli({"compile", models() + "/mlp.onnx", "--output", tar});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY(c.out.contains("wrote " + tar));
    QString out = dir_.filePath("mlp_out.npz");
    Result r = lathe_cli({"run", tar, "--inputs", models() + "/mlp.io.npz", "--output", out,
                          "--print-time", "--repeat", "5", "--profile"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("Execution time summary:"));
    QVERIFY(r.out.contains("mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)"));
    QVERIFY(r.out.contains("Node Name"));
    QVERIFY(r.out.contains("fused_gemm"));
    driver::NamedTensors got = driver::read_npz_tensors(out.toStdString());
    QCOMPARE(got.size(), size_t{1});
    QCOMPARE(got[0].first, std::string("output_0"));
    const double error = normalized_error(got[0].second, reference_output("mlp"));
    QVERIFY2(error <= 1e-4, qPrintable(QString("normalized error %1").arg(error)));
  }

  // Profiling a model compiled in the same run places every kernel on the
  // machine's roofline: each row names its bound, and a model of convs and a
  // global pool has both kinds (SqueezeNet's convs compute-bound, its
  // layout transforms and pools memory-bound). The machine measured on
  // demand is kept for the next run.
  void profilePlacesKernelsOnTheRoofline() {
    Result r = lathe_cli({"run", models() + "/squeezenet1_1.onnx", "--profile", "--repeat", "3",
                          "--measure-machine"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("Roofline: peak "), qPrintable(r.out));
    QVERIFY2(r.out.contains("; measured now\n"), qPrintable(r.out));
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    const int header = lines.indexOf(QRegularExpression("^Node Name .*% Roof +Bound$"));
    QVERIFY2(header >= 0, qPrintable(r.out));
    QSet<QString> bounds;
    int kernels = 0;
    for (int i = header + 2; i < lines.size() && !lines[i].startsWith("Total_time"); ++i) {
      const QString bound = lines[i].split(' ', Qt::SkipEmptyParts).last();
      QVERIFY2(QStringList({"compute", "L1", "L2", "L3", "DRAM"}).contains(bound),
               qPrintable(lines[i]));
      bounds.insert(bound == "compute" ? bound : "memory");
      ++kernels;
    }
    QVERIFY(kernels > 10);
    QCOMPARE(bounds, (QSet<QString>{"compute", "memory"}));

    Result kept = lathe_cli({"run", models() + "/mlp.onnx", "--profile", "--repeat", "1"});
    QVERIFY2(kept.code == 0, qPrintable(kept.err));
    QVERIFY2(kept.out.contains(QRegularExpression("; measured \\S+Z \\(kept\\)\n")),
             qPrintable(kept.out));
  }

  void tasksListsFusedGroups() {
    Result r = lathe_cli({"tasks", models() + "/resnet18.onnx"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("fused_conv2dnchwc_add_relu"));
    QVERIFY(r.out.contains("Conv2dNCHWc → Add → Relu"));
    QVERIFY(r.out.contains("kernels for 25 fused groups"));
    // Each task's schedule: its template's space, none of them a fallback.
    QVERIFY2(r.out.contains("conv2d_NCHWc.x86") && !r.out.contains("fallback"), qPrintable(r.out));
    // For a GPU target, the kind's templates (NCHW: no blocked layout).
    Result gpu = lathe_cli({"tasks", models() + "/resnet18.onnx", "--target", "cuda"});
    QVERIFY2(gpu.code == 0, qPrintable(gpu.err));
    QVERIFY2(gpu.out.contains("conv2d_direct.cuda") && !gpu.out.contains(".x86"),
             qPrintable(gpu.out));
  }

  // compile and run list the kernels they built with the schedule each got;
  // a package has no tasks to list, the reference executor no kernels.
  // (tst_schedule_fallback checks the fallbacks the table reports.)
  void compileAndRunPrintTasks() {
    const QString tar = dir_.filePath("mlp_tasks.tar");
    Result c = lathe_cli({"compile", models() + "/mlp.onnx", "--print-tasks", "--output", tar});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains("schedule") && c.out.contains("\n1   fused_gemm_relu") &&
                 c.out.contains("dense_pack.x86") && c.out.contains("injective.x86"),
             qPrintable(c.out));
    Result r = lathe_cli({"run", models() + "/mlp.onnx", "--print-tasks"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("dense_pack.x86"), qPrintable(r.out));
    Result package = lathe_cli({"run", tar, "--print-tasks"});
    QVERIFY(package.code != 0);
    QVERIFY2(package.err.contains("--print-tasks needs a model"), qPrintable(package.err));
    Result reference =
        lathe_cli({"run", models() + "/mlp.onnx", "--print-tasks", "--executor", "reference"});
    QVERIFY(reference.code != 0);
    QVERIFY2(reference.err.contains("the reference executor has none"), qPrintable(reference.err));
  }

  // The schedule editor's command-line twin: default text, a user's text
  // lowered and measured against the reference, and a bad text's diagnostic.
  void scheduleShowsLowersAndMeasures() {
    Result d = lathe_cli({"schedule", models() + "/mlp.onnx", "--task", "1"});
    QVERIFY2(d.code == 0, qPrintable(d.err));
    QVERIFY(d.out.contains("s = te.create_schedule("));

    QString text = dir_.filePath("gemm.py");
    QFile f(text);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(d.out.toUtf8());
    f.close();
    Result m = lathe_cli({"schedule", models() + "/mlp.onnx", "--task", "1", "--schedule", text,
                          "--emit", "asm", "--measure", "--repeat", "5"});
    QVERIFY2(m.code == 0, qPrintable(m.err));
    QVERIFY(m.out.contains("zmm") || m.out.contains("ymm"));
    QVERIFY(m.out.contains("GFLOPS"));
    QVERIFY(m.out.contains("(ok)"));
    Result cold = lathe_cli({"schedule", models() + "/mlp.onnx", "--task", "1", "--measure",
                             "--cache-flush", "--repeat", "3"});
    QVERIFY2(cold.code == 0, qPrintable(cold.err));
    QVERIFY2(cold.out.contains("over 3 runs (weights and outputs flushed before each)"),
             qPrintable(cold.out));
    QVERIFY(cold.out.contains("(ok)"));

    QString bad = dir_.filePath("bad.py");
    QFile g(bad);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("s = te.create_schedule(nothing.op)\n");
    g.close();
    Result e = lathe_cli({"schedule", models() + "/mlp.onnx", "--task", "1", "--schedule", bad});
    QCOMPARE(e.code, 1);
    QVERIFY2(e.err.contains("1:"), qPrintable(e.err));
  }

  // The loop IR with the Schedule tab's per-loop costs: every `for` line
  // ends with its note, its trip count the loop's own extent, and every loop's
  // explanation follows, keyed by the line of its `for`.
  void scheduleAnnotatesLoopCosts() {
    Result r = lathe_cli(
        {"schedule", models() + "/mlp.onnx", "--task", "1", "--emit", "tir", "--loop-costs"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    const QRegularExpression loop(
        "^ *for \\w+ in (?:T\\.parallel|range|T\\.vectorized|T\\.unroll)\\((\\d+)\\):  # !? ?"
        "×(\\d+) · \\d+% · [\\d.]+ [KM]?B \\((?:L\\d|DRAM)\\)$");
    QSet<int> loop_lines;
    for (int i = 0; i < lines.size(); ++i) {
      if (!lines[i].trimmed().startsWith("for ")) continue;
      const QRegularExpressionMatch m = loop.match(lines[i]);
      QVERIFY2(m.hasMatch(), qPrintable(lines[i]));
      QCOMPARE(m.captured(2), m.captured(1));
      loop_lines.insert(i);
    }
    QVERIFY(!loop_lines.isEmpty());
    QVERIFY2(r.out.contains(QRegularExpression("\n# estimated \\d+\\.\\d+ ms \\(cold caches\\)\n")),
             qPrintable(r.out));
    // Lines count in the loop IR from 1; the output's line 0 is the task's header.
    QSet<int> explained;
    for (const QRegularExpressionMatch& m :
         QRegularExpression("\n# line (\\d+):\n#   (\\w+): \\d+ iterations").globalMatch(r.out)) {
      const int line = m.captured(1).toInt();
      QVERIFY2(loop_lines.contains(line), qPrintable(m.captured(0)));
      QVERIFY2(lines[line].contains("for " + m.captured(2) + " in"), qPrintable(lines[line]));
      explained.insert(line);
    }
    QCOMPARE(explained, loop_lines);
  }

  // Two schedules of one kernel side by side: the default against a tuned
  // record of another config, with both measured, the knobs that differ and
  // the loop IRs aligned loop beside loop.
  void scheduleDiffsDefaultAgainstARecord() {
    const QString mlp = models() + "/mlp.onnx";
    const QString records = dir_.filePath("diff_records.json");
    Result t = lathe_cli({"tune", mlp, "--tasks", "1", "--trials", "4", "--batch-size", "4",
                          "--repeat", "2", "--no-in-model-check", "--output", records});
    QVERIFY2(t.code == 0, qPrintable(t.err));

    // The task's records in file order: the measured default, then the search's.
    QFile file(records);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QList<QJsonObject> knobs;
    int tuned = -1;
    for (const QByteArray& line : file.readAll().split('\n')) {
      if (line.trimmed().isEmpty()) continue;
      const QJsonObject record = QJsonDocument::fromJson(line).object();
      knobs.append(record["knobs"].toObject());
      if (tuned < 0 && knobs.size() > 1 && knobs.back() != knobs.front()) tuned = knobs.size() - 1;
    }
    QVERIFY2(tuned > 0, "the search proposed only the default config");

    Result d =
        lathe_cli({"schedule", mlp, "--task", "1", "--diff", "default", QString::number(tuned),
                   "--tuning-records", records, "--repeat", "3", "--width", "400"});
    QVERIFY2(d.code == 0, qPrintable(d.err));
    QVERIFY2(d.out.contains("A: default  (dense_pack.x86 default config)"), qPrintable(d.out));
    QVERIFY(d.out.contains(QString("B: record %1 of diff_records.json").arg(tuned)));
    QVERIFY(d.out.contains("% of roof"));
    QVERIFY2(d.out.contains("reference   ok            ok"), qPrintable(d.out));

    // Each knob that differs is listed with both values, and no other.
    const QString section = d.out.section("Knobs that differ", 1).section("\n\n", 0, 0);
    int differing = 0;
    for (const QString& knob : knobs.front().keys()) {
      const bool differs = knobs.front()[knob] != knobs[tuned][knob];
      differing += differs;
      QVERIFY2(section.contains(QRegularExpression("\n  " + knob + " ")) == differs,
               qPrintable(knob + " in:" + section));
    }
    QVERIFY(section.startsWith(QString(" (dense_pack.x86, %1 of 5):").arg(differing)));

    // Side by side: paired rows hold the same kind of line in both columns
    // (a loop beside a loop), and the function heads share the first row.
    const QStringList rows = d.out.section("Loop IR aligned by loop", 1).split('\n');
    QVERIFY2(rows.size() > 4 && rows[2].startsWith("  @T.prim_func") &&
                 rows[2].endsWith("| @T.prim_func"),
             qPrintable(d.out));
    int changedLoops = 0;
    for (const QString& row : rows) {
      if (!row.startsWith("~ ")) continue;
      const QString left = row.mid(2).section(" | ", 0, 0).trimmed();
      const QString right = row.section(" | ", 1).trimmed();
      QVERIFY2(!left.isEmpty() && !right.isEmpty(), qPrintable(row));
      const QRegularExpression word("^[A-Za-z_]+");
      QCOMPARE(word.match(left).captured(), word.match(right).captured());
      changedLoops += left.startsWith("for ");
    }
    QVERIFY2(changedLoops > 0, qPrintable(d.out));

    Result u =
        lathe_cli({"schedule", mlp, "--task", "1", "--diff", "default", QString::number(tuned),
                   "--tuning-records", records, "--no-measure", "--unified"});
    QVERIFY2(u.code == 0, qPrintable(u.err));
    QVERIFY(u.out.contains("(not measured)"));
    QVERIFY(u.out.contains("--- A: default\n+++ B: record"));
    QVERIFY(u.out.contains("\n- ") && u.out.contains("\n+ "));

    Result far = lathe_cli({"schedule", mlp, "--task", "1", "--diff", "default", "99",
                            "--tuning-records", records, "--no-measure"});
    QCOMPARE(far.code, 1);
    QVERIFY2(far.err.contains(
                 QString("record 99 is out of range: %1 holds %2 records of task 1 (0 to %3)")
                     .arg(records)
                     .arg(knobs.size())
                     .arg(knobs.size() - 1)),
             qPrintable(far.err));
  }

  // Tuning for a GPU measures on one: without a driver it is refused before
  // any task is built, naming the driver library, and writes no records.
  void tuneForCudaWithoutDriverSaysSo() {
    const QString records = dir_.filePath("cuda_records.json");
    qputenv("LATHE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
    const Result r = lathe_cli({"tune", models() + "/mlp.onnx", "--target", "cuda -arch=sm_90",
                                "--trials", "2", "--output", records});
    qunsetenv("LATHE_CUDA_LIBRARY");
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("lathe tune: error: no CUDA driver: cuda: cannot open the CUDA "
                            "driver /nonexistent/libcuda.so.1"),
             qPrintable(r.err));
    QVERIFY(!QFile::exists(records));
  }

  void tunePrintsTasksAndSelectsSome() {
    Result r = lathe_cli({"tune", models() + "/mlp.onnx", "--print-tasks", "--tasks", "1-2"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("weight") && r.out.contains("MFLOP"), qPrintable(r.out));
    QVERIFY(r.out.contains("\n1 ") && r.out.contains("\n2 "));
    QVERIFY(!r.out.contains("\n0 ") && !r.out.contains("\n3 "));
    // The cache state the kernels would be measured in, and why.
    QVERIFY2(r.out.contains("kernels measured") && r.out.contains("of weights"), qPrintable(r.out));
    Result cold =
        lathe_cli({"tune", models() + "/mlp.onnx", "--print-tasks", "--cache-flush", "always"});
    QCOMPARE(cold.code, 0);
    QVERIFY2(cold.out.contains("kernels measured cold") && cold.out.contains("as asked"),
             qPrintable(cold.out));
    Result bad =
        lathe_cli({"tune", models() + "/mlp.onnx", "--print-tasks", "--cache-flush", "sometimes"});
    QVERIFY(bad.code != 0);
    QVERIFY2(bad.err.contains("--cache-flush") && bad.err.contains("sometimes"),
             qPrintable(bad.err));
  }

  // Tune two tasks, then compile with the records: those two use a tuned
  // schedule and the compiler names the others.
  void tuneThenCompileWithRecords() {
    QString records = dir_.filePath("mlp_records.json");
    Result t = lathe_cli({"tune", models() + "/mlp.onnx", "--tasks", "1,2", "--trials", "8",
                          "--batch-size", "4", "--repeat", "2", "--output", records});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QVERIFY2(t.out.contains("[Task  1/ 2] Current/Best:"), qPrintable(t.out));
    QVERIFY(t.out.contains("GFLOPS | Progress: ("));
    QVERIFY(t.out.contains("estimated end-to-end kernel latency"));
    // After the search, each task's best is timed inside the model against
    // the default, and the verdict appended after the 8 measurements.
    QVERIFY2(t.out.contains("in the model (medians of"), qPrintable(t.out));
    QFile file(records);
    QVERIFY(file.open(QIODevice::ReadOnly));
    int measurements = 0, verdicts = 0, lost = 0;
    for (const QByteArray& line : file.readAll().split('\n')) {
      if (line.trimmed().isEmpty()) continue;
      const QJsonObject record = QJsonDocument::fromJson(line).object();
      if (record["tuner"].toString() != "in-model") {
        ++measurements;
        continue;
      }
      ++verdicts;
      lost += record["confirmation"].toObject()["result"].toString() == "lost";
    }
    QCOMPARE(measurements, 8);
    QCOMPARE(verdicts, 2);
    Result c = lathe_cli({"compile", models() + "/mlp.onnx", "--tuning-records", records,
                          "--output", dir_.filePath("tuned_mlp.tar")});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains(
                 QString("tuning records: %1 of 4 kernels use a tuned schedule").arg(2 - lost)),
             qPrintable(c.out));
    QVERIFY2(lost == 0 || c.out.contains("slower inside the model"), qPrintable(c.out));
    QVERIFY(c.out.contains("no record for:\n  task 0") && c.out.contains("task 3"));
  }

  // kill -9 in the middle of tuning loses at most the line being written;
  // --prior-records resumes from what is there.
  void tuneSurvivesKillAndResumes() {
    QString records = dir_.filePath("killed_records.json");
    QProcess p;
    p.start(qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe",
            {"tune", models() + "/mlp.onnx", "--trials", "400", "--batch-size", "4", "--output",
             records});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(records).size() > 2000, 60000);
    p.kill();  // SIGKILL
    p.waitForFinished();
    QFile file(records);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = file.readAll().split('\n');
    file.close();
    int complete = 0;
    for (int i = 0; i + 1 < lines.size(); ++i) complete += lines[i].startsWith('{');
    QVERIFY(complete >= 2);
    Result r = lathe_cli({"tune", models() + "/mlp.onnx", "--trials", "4", "--batch-size", "4",
                          "--prior-records", records, "--output", dir_.filePath("resumed.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    Result c = lathe_cli({"compile", models() + "/mlp.onnx", "--tuning-records", records,
                          "--output", dir_.filePath("resumed_mlp.tar")});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY(c.out.contains("kernels use a tuned schedule"));
  }

  // --version, help COMMAND and COMMAND --help print on stdout and exit 0.
  void explainsItself() {
    Result version = lathe_cli({"--version"});
    QCOMPARE(version.code, 0);
    QVERIFY2(version.out.startsWith("lathe "), qPrintable(version.out));

    Result overview = lathe_cli({"--help"});
    QCOMPARE(overview.code, 0);
    for (const char* command : {"inspect", "compile", "run", "tasks", "schedule", "tune", "help"})
      QVERIFY2(overview.out.contains(command), command);

    for (const char* command : {"inspect", "compile", "run", "tasks", "schedule", "tune"}) {
      Result a = lathe_cli({command, "--help"});
      Result b = lathe_cli({"help", command});
      QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
      QVERIFY2(a.out.contains(QString("lathe ") + command) && a.out.contains("MODEL"),
               qPrintable(a.out));
      QCOMPARE(b.out, a.out);
    }
    Result run = lathe_cli({"run", "--help"});
    for (const char* option : {"--inputs", "--output", "--print-time", "--repeat", "--profile",
                               "--executor", "--target"})
      QVERIFY2(run.out.contains(option), option);
  }

  // A missing or unknown command: usage on stderr, exit 2.
  void unknownCommandsSuggestTheNearest() {
    Result none = lathe_cli({});
    QCOMPARE(none.code, 2);
    QVERIFY(none.err.contains("Usage"));
    Result typo = lathe_cli({"compil", "x.onnx"});
    QCOMPARE(typo.code, 2);
    QVERIFY2(typo.err.contains("unknown command 'compil'; did you mean 'compile'?"),
             qPrintable(typo.err));
    Result help = lathe_cli({"help", "tnue"});
    QCOMPARE(help.code, 2);
    QVERIFY2(help.err.contains("did you mean 'tune'?"), qPrintable(help.err));
  }

  // A GPU build writes one PTX module and the launch of each kernel; where
  // CUDA's ptxas is installed it assembles for sm_90. Running needs the CUDA
  // driver; without it the run is refused with the reason.
  void compileForCudaWritesPtx() {
    const QString model = dir_.filePath("cuda_add.onnx");
    QVERIFY(
        lathe::testing::write_model(lathe::testing::shared_symbols_model(), model.toStdString()));
    const QString conv = dir_.filePath("cuda_conv.onnx");
    using lathe::testing::DeclaredDim;
    QVERIFY(lathe::testing::write_model(
        lathe::testing::conv_model({DeclaredDim(int64_t{1}), DeclaredDim(int64_t{3}),
                                    DeclaredDim(int64_t{16}), DeclaredDim(int64_t{16})}),
        conv.toStdString()));
    const QString add_ptx = dir_.filePath("add.ptx");
    Result c = lathe_cli({"compile", model, "--input-shapes", "a:[4,1000] b:[4,1000]", "--target",
                          "cuda -arch=sm_90", "--output", add_ptx});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains("for cuda -arch=sm_90") && c.out.contains("wrote " + add_ptx),
             qPrintable(c.out));
    // 4000 elements in blocks of 256 threads.
    QVERIFY2(c.out.contains("grid 16x1x1  block 256x1x1  shared 0 B  (injective.cuda)"),
             qPrintable(c.out));
    const QString conv_ptx = dir_.filePath("conv.ptx");
    c = lathe_cli({"compile", conv, "--target", "cuda -arch=sm_90", "--output", conv_ptx});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains("(conv2d_direct.cuda)"), qPrintable(c.out));
    for (const QString& path : {add_ptx, conv_ptx}) {
      QFile file(path);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QString ptx = QString::fromUtf8(file.readAll());
      QVERIFY2(ptx.contains(".target sm_90") && ptx.contains(".entry") && ptx.contains("%tid.x") &&
                   ptx.contains("%ctaid.x"),
               qPrintable(ptx));
      if (!QFileInfo("/usr/local/cuda/bin/ptxas").isExecutable()) continue;
      QProcess ptxas;
      ptxas.start("/usr/local/cuda/bin/ptxas", {"-arch=sm_90", path, "-o", path + ".cubin"});
      QVERIFY(ptxas.waitForFinished(60000));
      QVERIFY2(ptxas.exitCode() == 0, qPrintable(ptxas.readAllStandardError()));
    }
    // --ptxas: each kernel's registers, spills and shared memory from CUDA's
    // ptxas -v, found at run time, and its occupancy; refused for a CPU build.
    c = lathe_cli(
        {"compile", conv, "--target", "cuda -arch=sm_90", "--output", conv_ptx, "--ptxas"});
    if (QFileInfo("/usr/local/cuda/bin/ptxas").isExecutable()) {
      QVERIFY2(c.code == 0, qPrintable(c.err));
      QVERIFY2(c.out.contains("ptxas -v -arch=sm_90 (") && c.out.contains(" registers, ") &&
                   c.out.contains(" B shared, ") && c.out.contains("    occupancy ") &&
                   c.out.contains(", limited by "),
               qPrintable(c.out));
    } else if (c.code != 0) {
      QVERIFY2(c.err.contains("no ptxas") && c.err.contains("CUDA toolkit"), qPrintable(c.err));
    }
    c = lathe_cli({"compile", conv, "--output", dir_.filePath("cpu.tar"), "--ptxas"});
    QVERIFY2(c.code != 0 && c.err.contains("--ptxas reports a GPU build's kernels"),
             qPrintable(c.err));
    // A model with an If: its branches' kernels are in the package and listed.
    const QString if_model = dir_.filePath("cuda_if.onnx");
    {
      QFile f(if_model);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(lathe::testing::if_model()));
    }
    c = lathe_cli({"compile", if_model, "--target", "cuda -arch=sm_90", "--output",
                   dir_.filePath("if.cuda.tar")});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains("  y_node_then_") && c.out.contains("  y_node_else_"),
             qPrintable(c.out));
    // Without a .ptx name the output is a cuda package, which runs where
    // the driver is and is refused with the reason where it is not.
    const QString package = dir_.filePath("conv.cuda.tar");
    c = lathe_cli({"compile", conv, "--target", "cuda -arch=sm_90", "--output", package});
    QVERIFY2(c.code == 0 && c.out.contains("wrote " + package + " (cuda package)"),
             qPrintable(c.err + c.out));
    for (const QStringList& run :
         {QStringList{"run", conv, "--target", "cuda"}, QStringList{"run", package}}) {
      Result r = lathe_cli(run);
      if (r.code == 0) {
        QVERIFY2(r.err.contains("note: running on cuda:0"), qPrintable(r.err));
      } else {
        QVERIFY2(r.err.contains("cuda: cannot open the CUDA driver libcuda.so.1"),
                 qPrintable(r.err));
        // A model, unlike a package, can still run on the simulator.
        QVERIFY2(r.err.contains("--simulate-gpu runs the cuda kernels") == (run[1] == conv),
                 qPrintable(r.err));
      }
    }

    // Without a GPU the simulator runs the build, and a task's schedule in
    // the measure worker against the reference.
    Result sim = lathe_cli({"run", conv, "--target", "cuda", "--simulate-gpu"});
    QVERIFY2(
        sim.code == 0 && sim.err.contains("running the cuda kernels on the host's GPU simulator"),
        qPrintable(sim.err));
    Result res = lathe_cli({"schedule", conv, "--task", "0", "--target", "cuda", "--ptxas"});
    if (QFileInfo("/usr/local/cuda/bin/ptxas").isExecutable())
      QVERIFY2(res.code == 0 && res.out.contains("fused_conv_relu: ") &&
                   res.out.contains("    occupancy ") && res.out.contains(", limited by "),
               qPrintable(res.err + res.out));
    else
      QVERIFY2(res.code != 0 && res.err.contains("no ptxas"), qPrintable(res.err));
    sim = lathe_cli({"schedule", conv, "--task", "0", "--target", "cuda", "--simulate-gpu"});
    QVERIFY2(sim.code == 0 && sim.out.contains("on the GPU simulator: max normalized error") &&
                 sim.out.contains("(ok)"),
             qPrintable(sim.err + sim.out));

    // The schedule workbench: the kind's default schedule binds threads, its
    // code is PTX, and the same schedule without its binds is refused.
    Result d = lathe_cli({"schedule", conv, "--task", "0", "--target", "cuda -arch=sm_90"});
    QVERIFY2(d.code == 0, qPrintable(d.err));
    QVERIFY2(d.out.contains("te.thread_axis(\"blockIdx.x\")") &&
                 d.out.contains("te.thread_axis(\"threadIdx.x\")"),
             qPrintable(d.out));
    Result a = lathe_cli(
        {"schedule", conv, "--task", "0", "--target", "cuda -arch=sm_90", "--emit", "asm"});
    // conv2d_direct.cuda: 16 x 16 pixels in patches of 2 x 16, a thread all
    // 4 output channels of its pixel.
    QVERIFY2(a.code == 0 && a.out.contains(".entry") && a.out.contains(".maxntid 32, 1, 1"),
             qPrintable(a.err + a.out));
    QString unbound;
    for (const QString& line : d.out.split('\n'))
      if (!line.startsWith('#') && !line.contains(".bind(")) unbound += line + "\n";
    const QString unbound_file = dir_.filePath("unbound.py");
    QFile file(unbound_file);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(unbound.toUtf8());
    file.close();
    Result u = lathe_cli({"schedule", conv, "--task", "0", "--target", "cuda", "--schedule",
                          unbound_file, "--emit", "asm"});
    QVERIFY(u.code != 0);
    QVERIFY2(u.err.contains("gpu verifier") && u.err.contains("did you forget to bind?"),
             qPrintable(u.err));
    // At a line of the file, as a parse error is.
    QVERIFY2(u.err.contains("unbound.py:\n") &&
                 QRegularExpression("\\n\\d+:\\d+: gpu verifier").match(u.err).hasMatch(),
             qPrintable(u.err));
  }

  // A model that leaves its batch, height and width symbolic runs with only
  // --inputs: the array gives the sizes, on the compiled executor as on the
  // reference one, and `compile --inputs` makes a package of those shapes
  // that computes the same.
  void symbolicDimsTakeTheSizesOfInputs() {
    using lathe::testing::DeclaredDim;
    const QString model = dir_.filePath("symbolic.onnx");
    QVERIFY(lathe::testing::write_model(
        lathe::testing::conv_model({DeclaredDim(std::string("N")), DeclaredDim(int64_t{3}),
                                    DeclaredDim(std::string("H")), DeclaredDim(std::string("W"))}),
        model.toStdString()));
    Tensor x(DType::Float32, {1, 3, 20, 24});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i % 11) * 0.25f - 1.0f;
    const QString in = dir_.filePath("symbolic_in.npz");
    driver::write_npz_tensors(in.toStdString(), {{"x", x}});

    const QString compiledOut = dir_.filePath("symbolic_compiled.npz");
    const QString referenceOut = dir_.filePath("symbolic_reference.npz");
    Result compiled = lathe_cli({"run", model, "--inputs", in, "--output", compiledOut});
    QVERIFY2(compiled.code == 0, qPrintable(compiled.err));
    QVERIFY2(!compiled.err.contains("note:"), qPrintable(compiled.err));
    Result reference = lathe_cli(
        {"run", model, "--executor", "reference", "--inputs", in, "--output", referenceOut});
    QVERIFY2(reference.code == 0, qPrintable(reference.err));
    const driver::NamedTensors got = driver::read_npz_tensors(compiledOut.toStdString());
    const driver::NamedTensors want = driver::read_npz_tensors(referenceOut.toStdString());
    QCOMPARE(got.at(0).second.shape(), (Shape{1, 4, 20, 24}));
    QCOMPARE(want.at(0).second.shape(), (Shape{1, 4, 20, 24}));
    const double error = normalized_error(got[0].second, want[0].second);
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));

    const QString tar = dir_.filePath("symbolic.tar");
    Result c = lathe_cli({"compile", model, "--inputs", in, "--output", tar});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    const QString packageOut = dir_.filePath("symbolic_package.npz");
    Result r = lathe_cli({"run", tar, "--inputs", in, "--output", packageOut});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const driver::NamedTensors packaged = driver::read_npz_tensors(packageOut.toStdString());
    QCOMPARE(packaged.at(0).second.shape(), (Shape{1, 4, 20, 24}));
    const double package_error = normalized_error(packaged[0].second, want[0].second);
    QVERIFY2(package_error <= 1e-5,
             qPrintable(QString("package: normalized error %1").arg(package_error)));
  }

  void symbolicBatchIsOneWithANote() {
    using lathe::testing::DeclaredDim;
    const QString model = dir_.filePath("symbolic_batch.onnx");
    QVERIFY(lathe::testing::write_model(
        lathe::testing::conv_model({DeclaredDim(std::string("N")), DeclaredDim(int64_t{3}),
                                    DeclaredDim(int64_t{8}), DeclaredDim(int64_t{8})}),
        model.toStdString()));
    Result r = lathe_cli({"inspect", model});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("x  float32[1,3,8,8]"), qPrintable(r.out));
    QVERIFY2(r.err.contains("note: input 'x' has a symbolic batch dimension 'N'; it is taken as "
                            "1 (--input-shapes sets another)"),
             qPrintable(r.err));
    r = lathe_cli({"inspect", model, "--input-shapes", "x:[2,3,8,8]"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("x  float32[2,3,8,8]"), qPrintable(r.out));
    QVERIFY2(!r.err.contains("note:"), qPrintable(r.err));
  }

  // Sizes nothing gives, and arrays that contradict the model, are refused
  // with what to do.
  void symbolicDimsWithoutSizesAreRefused() {
    using lathe::testing::DeclaredDim;
    const QString model = dir_.filePath("symbolic_hw.onnx");
    QVERIFY(lathe::testing::write_model(
        lathe::testing::conv_model({DeclaredDim(std::string("N")), DeclaredDim(int64_t{3}),
                                    DeclaredDim(std::string("H")), DeclaredDim(std::string("W"))}),
        model.toStdString()));
    Result r = lathe_cli({"run", model});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("input 'x': the model leaves dimensions 2 ('H') and 3 ('W') of "
                            "x[N,3,H,W] symbolic"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("pass --input-shapes \"x:[1,3,?,?]\""), qPrintable(r.err));

    const QString flat = dir_.filePath("symbolic_flat.npz");
    driver::write_npz_tensors(flat.toStdString(), {{"x", Tensor(DType::Float32, {1, 3, 20})}});
    r = lathe_cli({"run", model, "--inputs", flat});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("input 'x': the array given for it does not fit: the shape [1,3,20] "
                            "has rank 3, but the model declares x[N,3,H,W] of rank 4"),
             qPrintable(r.err));
  }

  void errorsAreOneMessageAndNonZeroExit_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QString garbage = dir_.filePath("garbage.onnx");
    QFile f(garbage);
    f.open(QIODevice::WriteOnly);
    f.write("this is not a model");
    f.close();
    QTest::newRow("missing file") << QStringList{"inspect", "/no/such.onnx"} << "/no/such.onnx";
    QTest::newRow("garbage") << QStringList{"inspect", garbage} << "not an ONNX model";
    QTest::newRow("unknown option")
        << QStringList{"inspect", garbage, "--frobnicate"} << "--frobnicate";
    QTest::newRow("bad shapes") << QStringList{"inspect", models() + "/mlp.onnx", "--input-shapes",
                                               "input:[1,x]"}
                                << "non-integer";
    QTest::newRow("wrong input shape") << QStringList{"run", models() + "/mlp.onnx", "--inputs",
                                                      models() + "/squeezenet1_1.io.npz"}
                                       << "the model declares input[1,1,28,28]";
    QTest::newRow("no such task") << QStringList{"schedule", models() + "/mlp.onnx", "--task", "99"}
                                  << "no task 99";
    QTest::newRow("loop costs without tir")
        << QStringList{"schedule", models() + "/mlp.onnx", "--task", "1", "--loop-costs"}
        << "--loop-costs annotates the final loop IR";
    QTest::newRow("not a package") << QStringList{"run", garbage + ".tar"} << ".tar";
    QTest::newRow("bad task selection")
        << QStringList{"tune", models() + "/mlp.onnx", "--tasks", "2-9", "--trials", "1"}
        << "--tasks: '2-9'";
    QTest::newRow("unknown tuner")
        << QStringList{"tune", models() + "/mlp.onnx", "--tuner", "annealing", "--trials", "1"}
        << "unknown tuner 'annealing'";
    QTest::newRow("bad budget") << QStringList{"tune", models() + "/mlp.onnx", "--time-budget",
                                               "soon"}
                                << "not a duration";
    // Measurement options: numbers in range, or an error naming the option.
    const QString mlp = models() + "/mlp.onnx";
    QTest::newRow("garbage min-repeat-ms")
        << QStringList{"tune", mlp, "--trials", "1", "--min-repeat-ms", "ten"}
        << "--min-repeat-ms expects a number, got 'ten'";
    QTest::newRow("negative min-repeat-ms")
        << QStringList{"tune", mlp, "--trials", "1", "--min-repeat-ms", "-5"}
        << "--min-repeat-ms must be zero or more";
    QTest::newRow("garbage timeout")
        << QStringList{"tune", mlp, "--trials", "1", "--timeout", "10s"}
        << "--timeout expects a number, got '10s'";
    QTest::newRow("negative timeout")
        << QStringList{"tune", mlp, "--trials", "1", "--timeout", "-1"}
        << "--timeout must be positive";
    QTest::newRow("zero batch size")
        << QStringList{"tune", mlp, "--trials", "1", "--batch-size", "0"}
        << "--batch-size must be positive";
    QTest::newRow("zero repeat") << QStringList{"tune", mlp, "--trials", "1", "--repeat", "0"}
                                 << "--repeat must be positive";
    QTest::newRow("negative number") << QStringList{"tune", mlp, "--trials", "1", "--number", "-2"}
                                     << "--number must be positive";
    QTest::newRow("garbage repeat") << QStringList{"tune", mlp, "--trials", "1", "--repeat", "3x"}
                                    << "--repeat expects an integer, got '3x'";
    QTest::newRow("unknown executor")
        << QStringList{"run", models() + "/mlp.onnx", "--executor", "tvm"} << "unknown executor";
    // Parsing: what is not declared is refused, with the nearest declared name.
    QTest::newRow("misspelt option") << QStringList{"run", mlp, "--print-tme"}
                                     << "unknown option --print-tme; did you mean "
                                        "--print-time?";
    QTest::newRow("two models") << QStringList{"inspect", mlp, mlp} << "unexpected argument";
    QTest::newRow("missing model") << QStringList{"compile"} << "MODEL is required";
    QTest::newRow("option without value") << QStringList{"compile", mlp, "--output"} << "--output";
    QTest::newRow("value on a flag")
        << QStringList{"inspect", mlp, "--print=yes"} << "option --print takes no value";
    QTest::newRow("missing task") << QStringList{"schedule", mlp} << "--task is required";
    // Schedule diffs: each source is checked before anything is lowered.
    QTest::newRow("diff: no such task")
        << QStringList{"schedule", mlp, "--task", "7", "--diff", "default", "default"}
        << "no task 7";
    QTest::newRow("diff: best without records")
        << QStringList{"schedule", mlp, "--task", "1", "--diff", "default", "best"}
        << "'best' needs --tuning-records FILE";
    QTest::newRow("diff: index without records")
        << QStringList{"schedule", mlp, "--task", "1", "--diff", "2", "default"}
        << "record index 2 needs --tuning-records FILE";
    QTest::newRow("diff: unreadable schedule file")
        << QStringList{"schedule", mlp, "--task", "1", "--diff", "default", "/no/such.py"}
        << "cannot read schedule file /no/such.py";
    QTest::newRow("diff: missing records file")
        << QStringList{"schedule",        mlp,       "--task", "1",
                       "--diff",          "default", "best",   "--tuning-records",
                       "/no/records.json"}
        << "/no/records.json";
    QString illegal = dir_.filePath("illegal.py");
    QFile g(illegal);
    g.open(QIODevice::WriteOnly);
    g.write("s = te.create_schedule(relu.op)\ns[relu].split(nothing, factor=4)\n");
    g.close();
    QTest::newRow("diff: illegal schedule names its line")
        << QStringList{"schedule", mlp, "--task", "1", "--diff", illegal, "default", "--no-measure"}
        << "file illegal.py:\n2:15: name 'nothing' is not defined";
    QTest::newRow("diff option without --diff")
        << QStringList{"schedule", mlp, "--task", "1", "--unified"} << "--unified goes with --diff";
    QTest::newRow("diff: one schedule")
        << QStringList{"schedule", mlp, "--task", "1", "--diff", "default"} << "--diff";
  }

  void errorsAreOneMessageAndNonZeroExit() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    Result r = lathe_cli(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("error: "), qPrintable(r.err));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
