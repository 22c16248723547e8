// Every test model runs through the importer and the reference
// executor and matches PyTorch's output to a normalized error of 1e-4
// (max|got - ref| / max|ref|, the project's error measure).
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "../test_models.h"
#include "driver/model_loader.h"
#include "driver/tensor_files.h"
#include "ir/normalized_error.h"
#include "reference/executor.h"
#include "support/timer.h"

using namespace lathe;

namespace {

QString models_dir() {
  return lathe::testing::test_models_dir();
}

}  // namespace

class TestSharedModels : public QObject {
  Q_OBJECT

 private slots:
  void matchesReferenceOutput_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"mlp", "transformer_block", "squeezenet1_1", "mobilenet_v2", "resnet18"})
      QTest::newRow(m) << QString(m);
  }

  void matchesReferenceOutput() {
    QFETCH(QString, model);
    const std::string base = (models_dir() + "/" + model).toStdString();
    Timer import_timer;
    Graph graph = driver::load_model(base + ".onnx");
    double import_ms = import_timer.milliseconds();

    driver::NamedTensors io = driver::read_npz_tensors(base + ".io.npz");
    auto find = [&](const std::string& name) {
      auto it = std::find_if(io.begin(), io.end(), [&](const auto& p) { return p.first == name; });
      if (it == io.end())
        QTest::qFail(qPrintable("no array " + QString::fromStdString(name)), __FILE__, __LINE__);
      return it->second;
    };
    QCOMPARE(graph.inputs.size(), size_t{1});
    QCOMPARE(graph.outputs.size(), size_t{1});
    Tensor input = find("input");
    Tensor expected = find("output");

    Timer run_timer;
    std::vector<Tensor> got =
        reference::Executor(graph).run({{graph.value(graph.inputs[0]).name, input}});
    double run_ms = run_timer.milliseconds();

    QCOMPARE(got.size(), size_t{1});
    QCOMPARE(QString::fromStdString(got[0].type().to_string()),
             QString::fromStdString(expected.type().to_string()));
    double err = normalized_error(got[0], expected);
    std::cout << model.toStdString() << ": import " << import_ms << " ms, reference run " << run_ms
              << " ms, normalized error " << err << std::endl;
    QVERIFY2(err <= 1e-4, qPrintable(QString("normalized error %1 > 1e-4").arg(err)));
  }
};

QTEST_GUILESS_MAIN(TestSharedModels)
#include "tst_shared_models.moc"
