// Dimensions a model leaves symbolic take their values from --input-shapes,
// then from the arrays given for the inputs, then from another input with
// the same symbol; a batch dimension nothing fixes is 1, with a note; any
// other is an error naming the input, the symbol and how to give it; an
// array that contradicts the model's rank or a fixed size is refused.
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "../symbolic_models.h"
#include "driver/model_loader.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;
using lathe::testing::DeclaredDim;

namespace {

const DeclaredDim N = std::string("N");
const DeclaredDim H = std::string("H");
const DeclaredDim W = std::string("W");

// Loads `options` and collects its notes; the error's text when it fails.
struct Loaded {
  Graph graph;
  std::vector<std::string> notes;
};

Loaded load(const std::string& path, driver::LoadOptions options = {}) {
  Loaded loaded;
  options.note = [&](const std::string& note) { loaded.notes.push_back(note); };
  loaded.graph = driver::load_model(path, options);
  return loaded;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class TestSymbolicInputs : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  std::string write(const onnx::ModelProto& model, const QString& name) {
    const std::string path = dir_.filePath(name).toStdString();
    if (!lathe::testing::write_model(model, path)) qFatal("cannot write %s", path.c_str());
    return path;
  }

 private slots:
  void arraysGiveTheSymbolicDims() {
    const std::string path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "nchw.onnx");
    driver::LoadOptions options;
    options.input_arrays = {{"x", {1, 3, 20, 24}}, {"y", {1, 4, 20, 24}}};
    Loaded loaded = load(path, options);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{1, 3, 20, 24}));
    QCOMPARE(loaded.graph.type(loaded.graph.outputs[0]).shape, (Shape{1, 4, 20, 24}));
    QVERIFY(loaded.notes.empty());

    // The imported graph runs on an array of that shape.
    Tensor x(DType::Float32, {1, 3, 20, 24});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3;
    std::vector<Tensor> out = reference::Executor(loaded.graph).run({{"x", x}});
    QCOMPARE(out.at(0).shape(), (Shape{1, 4, 20, 24}));
  }

  void inputShapesWinOverArrays() {
    const std::string path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "nchw.onnx");
    driver::LoadOptions options;
    options.input_shapes = {{"x", {2, 3, 16, 8}}};
    options.input_arrays = {{"x", {1, 3, 20, 24}}};
    Loaded loaded = load(path, options);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{2, 3, 16, 8}));
  }

  void batchDefaultsToOneWithANote() {
    const std::string path =
        write(lathe::testing::conv_model({N, int64_t{3}, int64_t{8}, int64_t{8}}), "batch.onnx");
    Loaded loaded = load(path);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{1, 3, 8, 8}));
    QCOMPARE(loaded.notes.size(), size_t{1});
    QVERIFY2(contains(loaded.notes[0], "input 'x' has a symbolic batch dimension 'N'") &&
                 contains(loaded.notes[0], "taken as 1"),
             loaded.notes[0].c_str());

    // An array's batch wins, and nothing is assumed.
    driver::LoadOptions options;
    options.input_arrays = {{"x", {3, 3, 8, 8}}};
    loaded = load(path, options);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{3, 3, 8, 8}));
    QVERIFY(loaded.notes.empty());
  }

  // Sizes other than the batch are not guessed: the error names the input,
  // the dimensions with their symbols, and --input-shapes' text to give them.
  void otherSymbolicDimsAreAnError() {
    const std::string path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "nchw.onnx");
    try {
      load(path);
      QFAIL("a model with symbolic H and W imported without their sizes");
    } catch (const driver::OpenInputShapesError& e) {
      QCOMPARE(e.diagnostics().size(), size_t{1});
      const Diagnostic& d = e.diagnostics()[0];
      QCOMPARE(d.where, std::string("input 'x'"));
      for (const char* part : {"dimensions 2 ('H') and 3 ('W')", "x[N,3,H,W]",
                               "--input-shapes \"x:[1,3,?,?]\"", "--inputs"})
        QVERIFY2(contains(d.message, part), d.message.c_str());
      // What a client asking for the shapes prefills: fixed sizes, a batch of 1.
      QCOMPARE(e.open_inputs().size(), size_t{1});
      const driver::DeclaredInput& open = e.open_inputs()[0];
      QCOMPARE(open.name, std::string("x"));
      QCOMPARE(open.dims, (std::vector<int64_t>{1, 3, -1, -1}));
      QCOMPARE(open.symbols, (std::vector<std::string>{"N", "", "H", "W"}));
    }
  }

  void contradictingArraysAreRefused_data() {
    QTest::addColumn<Shape>("array");
    QTest::addColumn<QString>("expected");
    QTest::newRow("rank") << Shape{1, 3, 20}
                          << "has rank 3, but the model declares x[N,3,H,W] of rank 4";
    QTest::newRow("fixed size") << Shape{1, 4, 20, 24}
                                << "has 4 in dimension 1, but the model declares x[N,3,H,W], fixed "
                                   "at 3 there";
  }

  void contradictingArraysAreRefused() {
    QFETCH(Shape, array);
    QFETCH(QString, expected);
    const std::string path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "nchw.onnx");
    driver::LoadOptions options;
    options.input_arrays = {{"x", array}};
    try {
      load(path, options);
      QFAIL("an array that contradicts the model was taken");
    } catch (const DiagnosticError& e) {
      QVERIFY2(dynamic_cast<const driver::OpenInputShapesError*>(&e) == nullptr,
               "a contradiction is not a question of missing shapes");
      QVERIFY2(contains(e.what(), "input 'x': the array given for it does not fit"), e.what());
      QVERIFY2(contains(e.what(), expected.toStdString()), e.what());
    }
    // Where the arrays were found rather than given, the array is left out
    // with a note, and the batch still defaults (here H and W are fixed).
    const std::string fixed = write(
        lathe::testing::conv_model({N, int64_t{3}, int64_t{8}, int64_t{8}}), "batch_only.onnx");
    options.unfitting_arrays_are_notes = true;
    Loaded loaded = load(fixed, options);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{1, 3, 8, 8}));
    QCOMPARE(loaded.notes.size(), size_t{2});
    QVERIFY2(contains(loaded.notes[0], "the array given for input 'x' is left out"),
             loaded.notes[0].c_str());
  }

  // An input that shares its symbols with one given takes their values.
  void sharedSymbolsFollowTheGivenInput() {
    const std::string path = write(lathe::testing::shared_symbols_model(), "shared.onnx");
    driver::LoadOptions options;
    options.input_arrays = {{"a", {2, 7}}};
    Loaded loaded = load(path, options);
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[0]).shape, (Shape{2, 7}));
    QCOMPARE(loaded.graph.type(loaded.graph.inputs[1]).shape, (Shape{2, 7}));
    QVERIFY(loaded.notes.empty());

    // Without either, the shared batch is 1 (one note) and the length is asked for, per input.
    try {
      load(path);
      QFAIL("a symbolic length was guessed");
    } catch (const driver::OpenInputShapesError& e) {
      QCOMPARE(e.open_inputs().size(), size_t{2});
      for (const driver::DeclaredInput& open : e.open_inputs())
        QCOMPARE(open.dims, (std::vector<int64_t>{1, -1}));
      QVERIFY2(contains(e.what(), "dimension 1 ('seq')"), e.what());
    }
  }

  void inputShapesNamingNoInputAreRefused() {
    const std::string path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "nchw.onnx");
    driver::LoadOptions options;
    options.input_shapes = {{"image", {1, 3, 8, 8}}};
    options.input_arrays = {{"x", {1, 3, 8, 8}}};
    QVERIFY_THROWS_EXCEPTION(DiagnosticError, load(path, options));
    try {
      load(path, options);
    } catch (const DiagnosticError& e) {
      QVERIFY2(contains(e.what(), "--input-shapes: the model has no input named 'image'"),
               e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestSymbolicInputs)
#include "tst_symbolic_inputs.moc"
