// Bad input never crashes the importer: at least 200 files mutated from the
// shared models (truncated, bit-flipped, random bytes, and semantic edits made
// through protobuf) each import cleanly or fail with one error that lists every
// problem and names where it is.
#include <malloc.h>
#include <onnx/onnx_pb.h>

#include <QtTest>

#include <fstream>
#include <limits>
#include <random>

#include "../test_models.h"
#include "frontend/onnx/onnx_import.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

namespace {

std::string models_dir() {
  return lathe::testing::test_models_dir().toStdString();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Outcome {
  bool imported = false;
  std::string error;
  std::vector<Diagnostic> diagnostics;
};

// Imports and, when that works, runs the model on zeros: neither may crash.
Outcome try_import(const std::string& bytes) {
  Outcome o;
  try {
    Graph g = onnx_frontend::import_model_bytes(bytes, "mutant.onnx", ".");
    o.imported = true;
    std::map<std::string, Tensor> inputs;
    for (ValueId id : g.inputs) inputs[g.value(id).name] = Tensor(g.type(id));
    if (g.nodes.size() < 40) reference::Executor(g).run(inputs);
  } catch (const DiagnosticError& e) {
    o.error = e.what();
    o.diagnostics = e.diagnostics();
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

onnx::ModelProto parse(const std::string& bytes) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) qFatal("shared model does not parse");
  return m;
}

std::string serialize(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

}  // namespace

class TestBadModels : public QObject {
  Q_OBJECT

  std::vector<std::string> originals_;
  std::mt19937 rng_{12345};
  int mutants_ = 0;

  void check_no_crash(const std::string& bytes) {
    ++mutants_;
    Outcome o = try_import(bytes);
    if (!o.imported) QVERIFY2(!o.error.empty(), "an import failed without a message");
  }

 private slots:
  void initTestCase() {
    for (const char* m : {"mlp", "squeezenet1_1", "transformer_block"})
      originals_.push_back(read_file(models_dir() + "/" + m + ".onnx"));
    for (const auto& o : originals_) QVERIFY(!o.empty());
  }

  void truncatedFiles() {
    for (const std::string& original : originals_)
      for (int i = 0; i < 20; ++i) {
        std::uniform_int_distribution<size_t> cut(0, original.size() - 1);
        Outcome o = try_import(original.substr(0, cut(rng_)));
        ++mutants_;
        QVERIFY2(!o.imported, "a truncated model imported");
        QVERIFY(o.error.find("mutant.onnx") != std::string::npos);
      }
  }

  void bitFlippedFiles() {
    for (const std::string& original : originals_)
      for (int i = 0; i < 30; ++i) {
        std::string bytes = original;
        std::uniform_int_distribution<size_t> pos(0, bytes.size() - 1);
        // Flip bytes in the first 64 KiB, where the graph structure lives, or anywhere.
        std::uniform_int_distribution<size_t> head(0, std::min<size_t>(bytes.size(), 65536) - 1);
        int flips = 1 + i % 8;
        for (int f = 0; f < flips; ++f)
          bytes[i % 2 ? pos(rng_) : head(rng_)] ^= static_cast<char>(1 + rng_() % 255);
        check_no_crash(bytes);
      }
  }

  void randomBytes() {
    for (int i = 0; i < 20; ++i) {
      std::string bytes(static_cast<size_t>(rng_() % 4096), '\0');
      for (char& c : bytes) c = static_cast<char>(rng_());
      Outcome o = try_import(bytes);
      ++mutants_;
      QVERIFY(!o.imported);
    }
    QVERIFY(!try_import("").imported);
  }

  // Edits made through protobuf: each must be rejected with a message naming the culprit.
  void semanticMutations() {
    const onnx::ModelProto base = parse(originals_[1]);  // squeezenet
    const int nodes = base.graph().node_size();
    for (int i = 0; i < 12; ++i) {
      onnx::ModelProto m = base;
      auto* node = m.mutable_graph()->mutable_node(static_cast<int>(rng_() % nodes));
      node->set_op_type("FrobnicateV" + std::to_string(i));
      Outcome o = try_import(serialize(m));
      ++mutants_;
      QVERIFY(!o.imported);
      QVERIFY2(o.error.find(node->op_type()) != std::string::npos, o.error.c_str());
    }
    for (int i = 0; i < 12; ++i) {
      onnx::ModelProto m = base;
      auto* init = m.mutable_graph()->mutable_initializer(
          static_cast<int>(rng_() % m.graph().initializer_size()));
      init->set_data_type(i % 2 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::STRING);
      Outcome o = try_import(serialize(m));
      ++mutants_;
      QVERIFY(!o.imported);
      QVERIFY2(o.error.find(init->name()) != std::string::npos, o.error.c_str());
    }
    for (int i = 0; i < 12; ++i) {
      // A weight with one dimension changed: a shape mismatch at its consumer.
      onnx::ModelProto m = base;
      auto* init = m.mutable_graph()->mutable_initializer(
          static_cast<int>(rng_() % m.graph().initializer_size()));
      init->set_dims(0, init->dims(0) + 1 + i);
      Outcome o = try_import(serialize(m));
      ++mutants_;
      QVERIFY(!o.imported);
      QVERIFY2(o.error.find(init->name()) != std::string::npos, o.error.c_str());
    }
    for (int i = 0; i < 12; ++i) {
      // A node reading a value nobody produces.
      onnx::ModelProto m = base;
      auto* node = m.mutable_graph()->mutable_node(static_cast<int>(rng_() % nodes));
      node->set_input(0, "missing_value_" + std::to_string(i));
      Outcome o = try_import(serialize(m));
      ++mutants_;
      QVERIFY(!o.imported);
      QVERIFY2(o.error.find("missing_value_") != std::string::npos, o.error.c_str());
    }
    for (int i = 0; i < 12; ++i) {
      // An attribute of the wrong kind or value.
      onnx::ModelProto m = base;
      onnx::NodeProto* conv = nullptr;
      int seen = 0;
      for (auto& n : *m.mutable_graph()->mutable_node())
        if (n.op_type() == "Conv" && seen++ == i) conv = &n;
      QVERIFY(conv);
      for (auto& a : *conv->mutable_attribute())
        if (a.name() == "strides") {
          a.clear_ints();
          a.add_ints(i % 3 == 0 ? 0 : 1);
          if (i % 3 != 1) a.add_ints(1);
          if (i % 3 == 2) a.add_ints(1);
        }
      Outcome o = try_import(serialize(m));
      ++mutants_;
      QVERIFY(!o.imported);
      QVERIFY2(o.error.find(conv->name()) != std::string::npos, o.error.c_str());
    }
  }

  // Several independent problems come back together, each naming its node.
  void everyProblemIsListed() {
    onnx::ModelProto m = parse(originals_[1]);
    auto* g = m.mutable_graph();
    g->mutable_node(3)->set_op_type("NoSuchOpA");
    g->mutable_node(30)->set_op_type("NoSuchOpB");
    Outcome o = try_import(serialize(m));
    QVERIFY(!o.imported);
    QVERIFY2(o.diagnostics.size() >= 2, o.error.c_str());
    QVERIFY(o.error.find("NoSuchOpA") != std::string::npos);
    QVERIFY(o.error.find("NoSuchOpB") != std::string::npos);
    QVERIFY(o.error.find(g->node(30).name()) != std::string::npos);
  }

  // Found by fuzz_onnx_import under UBSan: extents a model gives, multiplied
  // without a check, overflowed int64. Each row is x: float[1,2,3,4] -> OP(x,
  // an int64 constant) -> y, and must fail with a diagnostic naming the node.
  void extentsThatOverflowAreRejected_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<std::vector<int64_t>>("constant");
    QTest::addColumn<QString>("message");
    constexpr int64_t k40 = int64_t{1} << 40, k62 = int64_t{1} << 62;
    // Every extent fits, their product does not (the importer's fold sizing).
    QTest::newRow("tile count") << "Tile" << std::vector<int64_t>{1, k40, k40, 1}
                                << "more elements than fit in 64 bits";
    QTest::newRow("tile extent") << "Tile" << std::vector<int64_t>{1, 1, 1, k62}
                                 << "a tiled extent overflows 64 bits";
    QTest::newRow("reshape") << "Reshape" << std::vector<int64_t>{k40, k40, -1}
                             << "the shape's element count overflows 64 bits";
  }

  void extentsThatOverflowAreRejected() {
    QFETCH(QString, op);
    QFETCH(std::vector<int64_t>, constant);
    QFETCH(QString, message);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    onnx::GraphProto* g = m.mutable_graph();
    g->set_name("overflow");
    // Dims of 0 are left symbolic.
    auto add_value = [](onnx::ValueInfoProto* v, const char* name, std::vector<int64_t> dims) {
      v->set_name(name);
      auto* t = v->mutable_type()->mutable_tensor_type();
      t->set_elem_type(onnx::TensorProto::FLOAT);
      for (int64_t d : dims) {
        auto* dim = t->mutable_shape()->add_dim();
        d ? dim->set_dim_value(d) : dim->set_dim_param("d");
      }
    };
    add_value(g->add_input(), "x", {1, 2, 3, 4});
    add_value(g->add_output(), "y", std::vector<int64_t>(constant.size(), 0));
    onnx::TensorProto* c = g->add_initializer();
    c->set_name("c");
    c->set_data_type(onnx::TensorProto::INT64);
    c->add_dims(static_cast<int64_t>(constant.size()));
    for (int64_t v : constant) c->add_int64_data(v);
    onnx::NodeProto* node = g->add_node();
    node->set_name("n");
    node->set_op_type(op.toStdString());
    node->add_input("x");
    node->add_input("c");
    node->add_output("y");

    Outcome o = try_import(serialize(m));
    QVERIFY(!o.imported);
    QVERIFY2(o.error.find("node 'n'") != std::string::npos &&
                 o.error.find(message.toStdString()) != std::string::npos,
             o.error.c_str());
  }

  // Found by fuzz_onnx_import under UBSan: folding int64 arithmetic on
  // constants overflowed (Mul), and the lowest value over -1 traps on x86
  // (Div, Mod). Integer arithmetic wraps, as in NumPy and ONNX Runtime.
  void foldedIntegerArithmeticWraps_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int64_t>("a");
    QTest::addColumn<int64_t>("b");
    QTest::addColumn<int64_t>("expected");
    constexpr int64_t lowest = std::numeric_limits<int64_t>::min();
    QTest::newRow("mul") << "Mul" << (int64_t{3} << 61) << int64_t{256} << int64_t{0};
    QTest::newRow("add") << "Add" << std::numeric_limits<int64_t>::max() << int64_t{1} << lowest;
    QTest::newRow("div") << "Div" << lowest << int64_t{-1} << lowest;
    QTest::newRow("mod") << "Mod" << lowest << int64_t{-1} << int64_t{0};
  }

  void foldedIntegerArithmeticWraps() {
    QFETCH(QString, op);
    QFETCH(int64_t, a);
    QFETCH(int64_t, b);
    QFETCH(int64_t, expected);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    onnx::GraphProto* g = m.mutable_graph();
    g->set_name("fold");
    for (auto [name, value] : {std::pair{"a", a}, std::pair{"b", b}}) {
      onnx::TensorProto* t = g->add_initializer();
      t->set_name(name);
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(1);
      t->add_int64_data(value);
    }
    onnx::ValueInfoProto* y = g->add_output();
    y->set_name("y");
    y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
    onnx::NodeProto* node = g->add_node();
    node->set_op_type(op.toStdString());
    node->add_input("a");
    node->add_input("b");
    node->add_output("y");

    Graph imported = onnx_frontend::import_model_bytes(serialize(m), "fold.onnx", ".");
    const Value& out = imported.value(imported.outputs[0]);
    QVERIFY(out.is_constant());
    QCOMPARE(out.constant.data<int64_t>()[0], expected);
  }

  // Found by fuzz_onnx_import: an opset-6 PRelu without its slope reached the
  // upgrade's inputs.at(1), whose std::out_of_range escaped the importer.
  void legacyNodeMissingAnInputIsReported() {
    onnx::ModelProto m;
    m.set_ir_version(3);
    m.add_opset_import()->set_version(6);
    onnx::GraphProto* g = m.mutable_graph();
    g->set_name("prelu");
    for (auto [v, name] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
      v->set_name(name);
      auto* t = v->mutable_type()->mutable_tensor_type();
      t->set_elem_type(onnx::TensorProto::FLOAT);
      for (int64_t d : {1, 3, 4, 4}) t->mutable_shape()->add_dim()->set_dim_value(d);
    }
    onnx::NodeProto* node = g->add_node();
    node->set_name("prelu");
    node->set_op_type("PRelu");
    node->add_input("x");
    node->add_output("y");

    Outcome o = try_import(serialize(m));
    QVERIFY(!o.imported);
    QVERIFY2(o.error.find("node 'prelu'") != std::string::npos &&
                 o.error.find("PRelu needs input 1") != std::string::npos,
             o.error.c_str());
  }

  // Found by fuzz_onnx_import: an initializer's dims were allocated (and
  // zeroed) before its data was checked, so a few bytes of model asked for
  // 10 GB. The data's size is now checked first.
  void initializerDimsWithoutDataAllocateNothing() {
    for (bool raw : {false, true}) {
      onnx::ModelProto m;
      m.set_ir_version(8);
      m.add_opset_import()->set_version(13);
      onnx::GraphProto* g = m.mutable_graph();
      g->set_name("huge_initializer");
      onnx::TensorProto* w = g->add_initializer();
      w->set_name("w");
      w->set_data_type(onnx::TensorProto::DOUBLE);
      w->add_dims(int64_t{1} << 34);  // 128 GiB, more than the test machine has
      if (raw) w->set_raw_data("12345678");
      onnx::ValueInfoProto* y = g->add_output();
      y->set_name("w");
      y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::DOUBLE);
      y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(int64_t{1}
                                                                                          << 34);

      Outcome o = try_import(serialize(m));
      QVERIFY(!o.imported);
      const char* expected = raw ? "raw data has 8 bytes, expected 137438953472"
                                 : "has 0 values, expected 17179869184";
      QVERIFY2(o.error.find(expected) != std::string::npos, o.error.c_str());
    }
  }

  // An external-data offset that is not a number threw std::invalid_argument
  // from std::stoll, past the importer (seen while reading the code that
  // fuzz_onnx_import reaches; its seeds hold no external data).
  void externalDataOffsetMustBeANumber() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    onnx::GraphProto* g = m.mutable_graph();
    g->set_name("external");
    onnx::TensorProto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(2);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [key, value] : {std::pair{"location", "w.bin"}, std::pair{"offset", "abc"}}) {
      onnx::StringStringEntryProto* e = w->add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
    onnx::ValueInfoProto* y = g->add_output();
    y->set_name("w");
    y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);

    Outcome o = try_import(serialize(m));
    QVERIFY(!o.imported);
    QVERIFY2(o.error.find("external data offset 'abc' is not a non-negative integer") !=
                 std::string::npos,
             o.error.c_str());
  }

  // Found by fuzz_onnx_import under ASan: the pre-13 Softmax upgrade read its
  // input's shape through a pointer into the graph's values after adding
  // values, which can move them (heap-use-after-free). glibc's M_PERTURB
  // fills freed memory, so the stale read shows here too; the number of
  // unused initializers walks the values past a reallocation.
  void legacySoftmaxUpgradeKeepsItsInputShape() {
    mallopt(M_PERTURB, 0xA5);
    for (int extra = 0; extra < 40; ++extra) {
      onnx::ModelProto m;
      m.set_ir_version(6);
      m.add_opset_import()->set_version(11);
      onnx::GraphProto* g = m.mutable_graph();
      g->set_name("softmax");
      for (int i = 0; i < extra; ++i) {
        onnx::TensorProto* c = g->add_initializer();
        c->set_name("unused" + std::to_string(i));
        c->set_data_type(onnx::TensorProto::FLOAT);
        c->add_float_data(1.0f);
      }
      for (auto [v, name] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        for (int64_t d : {2, 3, 4}) t->mutable_shape()->add_dim()->set_dim_value(d);
      }
      onnx::NodeProto* node = g->add_node();
      node->set_op_type("Softmax");
      node->add_input("x");
      node->add_output("y");
      node->add_attribute()->CopyFrom(onnx::AttributeProto());
      node->mutable_attribute(0)->set_name("axis");
      node->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
      node->mutable_attribute(0)->set_i(1);

      Graph imported = onnx_frontend::import_model_bytes(serialize(m), "softmax.onnx", ".");
      QCOMPARE(imported.type(imported.outputs[0]).shape, (Shape{2, 3, 4}));
    }
    mallopt(M_PERTURB, 0);
  }

  void cleanupTestCase() {
    qInfo("%d mutated models imported or rejected without a crash", mutants_);
    QVERIFY(mutants_ >= 200);
  }
};

QTEST_GUILESS_MAIN(TestBadModels)
#include "tst_bad_models.moc"
