// The example op plugin end to end: a model with ONNX Runtime's
// com.microsoft Gelu and FastGelu, written by the ONNX Python API with
// PyTorch's outputs (make_gelu_model.py), imported, compiled and run with the
// plugin, in this process and through `lathe --plugin`; without the plugin,
// the import names the op and the way to provide it.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>

#include "driver/compiled_module.h"
#include "driver/model_loader.h"
#include "driver/plugins.h"
#include "driver/reference_run.h"
#include "driver/tensor_files.h"
#include "ir/normalized_error.h"

using namespace lathe;

namespace {

struct Result {
  int code;
  QString out;
  QString err;
};

Result run_process(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(120000)) return {-1, {}, "timed out"};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

Result lathe_cli(const QStringList& args) {
  return run_process(qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe", args);
}

const Tensor& named(const driver::NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  throw std::runtime_error("no tensor named " + name);
}

const std::vector<std::string> kOutputs = {"gelu", "fast_gelu", "fast_gelu_no_bias"};

}  // namespace

class TestContribGelu : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString model_, io_;
  driver::NamedTensors expected_;

 private slots:
  void initTestCase() {
    Result r =
        run_process(LATHE_PYTHON,
                    {QString(LATHE_SOURCE_DIR) + "/tests/plugins/make_gelu_model.py", dir_.path()});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    model_ = dir_.filePath("gelu.onnx");
    io_ = dir_.filePath("gelu.io.npz");
    expected_ = driver::read_npz_tensors(io_.toStdString());
  }

  // First, before this process loads the plugin.
  void withoutThePluginTheImportSaysWhatIsMissing() {
    Result r = lathe_cli({"inspect", model_});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("unsupported op com.microsoft.Gelu (a plugin may provide it: lathe "
                            "--plugin NAME"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("unsupported op com.microsoft.FastGelu"), qPrintable(r.err));
  }

  void compiledAndReferenceMatchPyTorch() {
    driver::load_plugin("contrib_gelu");
    const Graph graph = driver::load_model(model_.toStdString());
    const std::map<std::string, Tensor> inputs = {{"x", named(expected_, "x")}};
    const std::vector<Tensor> compiled = driver::run_compiled(graph, inputs);
    const std::vector<Tensor> reference = driver::run_reference(graph, inputs);
    QCOMPARE(compiled.size(), kOutputs.size());
    for (size_t k = 0; k < kOutputs.size(); ++k) {
      const Tensor& want = named(expected_, kOutputs[k]);
      const double compiled_error = normalized_error(compiled[k], want);
      const double reference_error = normalized_error(reference[k], want);
      QVERIFY2(compiled_error <= 1e-4,
               qPrintable(QString("%1 compiled: %2").arg(kOutputs[k].c_str()).arg(compiled_error)));
      QVERIFY2(
          reference_error <= 1e-5,
          qPrintable(QString("%1 reference: %2").arg(kOutputs[k].c_str()).arg(reference_error)));
    }
  }

  // The studio takes the same --plugin, and refuses to start on a bad one.
  void studioNamesAPluginItCannotLoad() {
    Result r = run_process(qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe-studio",
                           {"--plugin", "contrib_gelu,no_such_plugin", model_});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("lathe-studio: error: cannot find plugin 'no_such_plugin': no "
                            "no_such_plugin.so in "),
             qPrintable(r.err));
  }

  // As a user runs it, found by name in the build tree's plugin folder.
  void cliRunsTheModelWithThePlugin() {
    const QString out = dir_.filePath("out.npz");
    Result r =
        lathe_cli({"run", model_, "--plugin", "contrib_gelu", "--inputs", io_, "--output", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const driver::NamedTensors got = driver::read_npz_tensors(out.toStdString());
    for (const std::string& name : kOutputs) {
      const double error = normalized_error(named(got, name), named(expected_, name));
      QVERIFY2(error <= 1e-4, qPrintable(QString("%1: %2").arg(name.c_str()).arg(error)));
    }
  }
};

QTEST_GUILESS_MAIN(TestContribGelu)
#include "tst_contrib_gelu.moc"
