// Einsum, rewritten by the importer into transposes, sums and batched MatMuls
// (einsum.cpp), against the definition: a loop over every assignment of the
// labels, adding each product of operand elements into the output element
// its output labels pick. ONNX's five backend cases cover one form each; here
// are the forms models use (attention's "bhqd,bhkd->bhqk", ellipses that
// broadcast, three operands, implicit outputs, diagonals beside other axes,
// outer products) and the malformed equations, which are clear errors.
#include <onnx/onnx_pb.h>

#include <QtTest>
#include <cmath>
#include <map>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "frontend/onnx/onnx_import.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

namespace {

using Shapes = std::vector<Shape>;

// The output's type gives its rank only (libonnx's checker wants a shape).
std::string einsum_model(const std::string& equation, const Shapes& shapes, size_t output_rank) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(12);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("einsum");
  onnx::NodeProto* node = g->add_node();
  node->set_name("einsum");
  node->set_op_type("Einsum");
  for (size_t i = 0; i < shapes.size(); ++i) {
    onnx::ValueInfoProto* v = g->add_input();
    v->set_name("x" + std::to_string(i));
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shapes[i]) t->mutable_shape()->add_dim()->set_dim_value(d);
    node->add_input(v->name());
  }
  node->add_output("y");
  onnx::ValueInfoProto* y = g->add_output();
  y->set_name("y");
  auto* yt = y->mutable_type()->mutable_tensor_type();
  yt->set_elem_type(onnx::TensorProto::FLOAT);
  yt->mutable_shape();
  for (size_t k = 0; k < output_rank; ++k)
    yt->mutable_shape()->add_dim()->set_dim_param("d" + std::to_string(k));
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name("equation");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(equation);
  return m.SerializeAsString();
}

// The definition, for equations with "->" and single-letter labels; "..."
// stands for the axes an operand has beyond its letters, right-aligned.
Tensor einsum_by_definition(std::string equation, const std::vector<Tensor>& xs) {
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string lhs = equation.substr(0, arrow), rhs = equation.substr(arrow + 2);
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  // Ellipsis axes become labels '0', '1', ... (right-aligned).
  size_t ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].find("...") != std::string::npos)
      ellipsis = std::max(ellipsis, xs[i].shape().size() - (terms[i].size() - 3));
  auto expand = [&](const std::string& term, size_t rank) {
    const size_t dots = term.find("...");
    if (dots == std::string::npos) return term;
    const size_t covered = rank - (term.size() - 3);
    std::string digits;
    for (size_t k = ellipsis - covered; k < ellipsis; ++k) digits += char('0' + k);
    return term.substr(0, dots) + digits + term.substr(dots + 3);
  };
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i) {
    terms[i] = expand(terms[i], xs[i].shape().size());
    for (size_t k = 0; k < terms[i].size(); ++k)
      extent[terms[i][k]] = std::max(extent[terms[i][k]], xs[i].shape()[k]);
  }
  rhs = expand(rhs, ellipsis + rhs.size() - (rhs.find("...") == std::string::npos ? 0 : 3));
  Shape out_shape;
  for (char l : rhs) out_shape.push_back(extent[l]);
  Tensor out(DType::Float32, out_shape);
  std::vector<char> labels;
  for (const auto& [l, e] : extent) labels.push_back(l);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  for (;;) {
    float product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t offset = 0;
      for (size_t k = 0; k < terms[i].size(); ++k) {
        const int64_t e = xs[i].shape()[k];
        offset = offset * e + (e == 1 ? 0 : at[terms[i][k]]);
      }
      product *= xs[i].data<float>()[offset];
    }
    int64_t o = 0;
    for (char l : rhs) o = o * extent[l] + at[l];
    out.data<float>()[o] += product;
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == extent[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) break;
  }
  return out;
}

}  // namespace

class TestEinsum : public QObject {
  Q_OBJECT

 private slots:
  void matchesTheDefinition_data() {
    QTest::addColumn<QString>("equation");
    QTest::addColumn<Shapes>("shapes");
    QTest::newRow("attention scores") << "bhqd,bhkd->bhqk" << Shapes{{2, 3, 4, 5}, {2, 3, 6, 5}};
    QTest::newRow("attention values") << "bhqk,bhkd->bqhd" << Shapes{{2, 3, 4, 6}, {2, 3, 6, 5}};
    QTest::newRow("ellipsis broadcast") << "...ij,...jk->...ik" << Shapes{{2, 1, 3, 4}, {5, 4, 2}};
    QTest::newRow("three operands") << "ij,jk,kl->il" << Shapes{{3, 4}, {4, 5}, {5, 2}};
    QTest::newRow("implicit output") << "ij,jk" << Shapes{{3, 4}, {4, 5}};
    QTest::newRow("diagonal beside a batch axis") << "bii,bj->bij" << Shapes{{2, 3, 3}, {2, 4}};
    QTest::newRow("outer product") << "i,j->ij" << Shapes{{3}, {4}};
    QTest::newRow("label summed in one operand") << "ijk,jl->il" << Shapes{{2, 3, 4}, {3, 5}};
    QTest::newRow("hadamard and sum") << "bi,bi->b" << Shapes{{3, 7}, {3, 7}};
    QTest::newRow("transpose with ellipsis") << "...ij->...ji" << Shapes{{2, 3, 4}};
  }

  void matchesTheDefinition() {
    QFETCH(QString, equation);
    QFETCH(Shapes, shapes);
    const std::string eq = equation.toStdString();
    std::map<std::string, Tensor> inputs;
    std::vector<Tensor> xs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      xs.push_back(testing::random_tensor(shapes[i], static_cast<uint32_t>(i + 1)));
      inputs["x" + std::to_string(i)] = xs.back();
    }
    std::string explicit_eq = eq;
    if (eq.find("->") == std::string::npos) explicit_eq += "->ik";  // "ij,jk"'s implicit output
    const Tensor expected = einsum_by_definition(explicit_eq, xs);
    const Graph graph = onnx_frontend::import_model_bytes(
        einsum_model(eq, shapes, expected.shape().size()), "e.onnx", ".");
    const Tensor got = reference::Executor(graph).run(inputs)[0];
    QCOMPARE(got.shape(), expected.shape());
    for (int64_t i = 0; i < got.numel(); ++i)
      QVERIFY2(std::abs(got.data<float>()[i] - expected.data<float>()[i]) < 1e-4,
               qPrintable(QString("element %1: %2, expected %3")
                              .arg(i)
                              .arg(got.data<float>()[i])
                              .arg(expected.data<float>()[i])));

    const driver::CompiledGraph compiled = driver::compile_graph(graph);
    driver::JitGraphModule module(compiled, codegen::Target::host());
    runtime::GraphExecutor& exec = module.executor();
    for (const auto& [name, t] : inputs) exec.set_input(name, t.raw(), t.nbytes());
    exec.run();
    const Tensor compiled_out = driver::from_ndarray(exec.output(0));
    for (int64_t i = 0; i < got.numel(); ++i)
      QVERIFY(std::abs(compiled_out.data<float>()[i] - expected.data<float>()[i]) < 1e-4);
  }

  // A label both operands share and the output drops is the MatMul's K, not
  // a batch axis summed after an outer product per element of it: attention
  // written as einsum ("B G H I D, B G H J D -> B G H I J", MaxViT's, with
  // spaces) imports as one MatMul and no ReduceSum.
  void contractedLabelsAreTheMatMulsReduction() {
    const Graph graph = onnx_frontend::import_model_bytes(
        einsum_model("B G H I D, B G H J D -> B G H I J", {{1, 4, 2, 7, 8}, {1, 4, 2, 7, 8}}, 5),
        "e.onnx", ".");
    int matmuls = 0;
    for (const Node& n : graph.nodes) {
      QVERIFY2(n.op != "ReduceSum", "the contraction was summed after the MatMul");
      if (n.op != "MatMul") continue;
      ++matmuls;
      const Shape& a = graph.values[static_cast<size_t>(n.inputs[0])].type.shape;
      QCOMPARE(a.back(), int64_t{8});  // K = D
    }
    QCOMPARE(matmuls, 1);
  }

  void malformedEquationsAreClearErrors_data() {
    QTest::addColumn<QString>("equation");
    QTest::addColumn<Shapes>("shapes");
    QTest::addColumn<QString>("message");
    QTest::newRow("too many terms") << "ij,jk,k->i" << Shapes{{2, 3}, {3, 4}} << "operand terms";
    QTest::newRow("rank mismatch") << "ijk->i" << Shapes{{2, 3}} << "rank 2";
    QTest::newRow("unknown output label") << "ij->iz" << Shapes{{2, 3}} << "'z' is in no operand";
    QTest::newRow("no broadcast") << "bi,bj->bij" << Shapes{{2, 3}, {4, 5}} << "do not broadcast";
  }

  void malformedEquationsAreClearErrors() {
    QFETCH(QString, equation);
    QFETCH(Shapes, shapes);
    QFETCH(QString, message);
    try {
      onnx_frontend::import_model_bytes(einsum_model(equation.toStdString(), shapes, 1), "e.onnx",
                                        ".");
      QFAIL("the equation was accepted");
    } catch (const Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("'einsum'") != std::string::npos &&
                   what.find(message.toStdString()) != std::string::npos,
               what.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestEinsum)
#include "tst_einsum.moc"
