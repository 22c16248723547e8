// Numeric tests of the kernel compiler: matmul, conv2d, depthwise conv2d,
// pooling, softmax and an elementwise chain, each lowered and JIT-compiled
// with its default schedule and with 20 seeded random legal schedules, and
// compared with the reference executor.
#include <QtTest>

#include <functional>

#include "kernel_harness.h"
#include "topi/default_schedule.h"
#include "topi/nn.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

struct Workload {
  std::vector<te::Tensor> inputs;
  te::Tensor output;
  std::string op;  // ONNX op for the reference executor
  Attributes attrs;
};

using Factory = std::function<Workload()>;

Workload matmul() {
  te::Tensor a = te::placeholder({37, 64}, te::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({64, 48}, te::DataType::Float(32), "B");
  return {{a, b}, topi::matmul(a, b), "MatMul", {}};
}

Workload conv(int64_t groups, int64_t channels, int64_t filters, int64_t k, int64_t stride,
              int64_t pad) {
  te::Tensor x = te::placeholder({1, channels, 14, 13}, te::DataType::Float(32), "X");
  te::Tensor w = te::placeholder({filters, channels / groups, k, k}, te::DataType::Float(32), "W");
  topi::Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.groups = groups;
  Attributes attrs;
  attrs.set("group", groups);
  attrs.set("strides", std::vector<int64_t>{stride, stride});
  attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  attrs.set("kernel_shape", std::vector<int64_t>{k, k});
  attrs.set("dilations", std::vector<int64_t>{1, 1});
  return {{x, w}, topi::conv2d_nchw(x, w, p), "Conv", attrs};
}

Workload pool(topi::PoolKind kind) {
  te::Tensor x = te::placeholder({1, 8, 15, 16}, te::DataType::Float(32), "X");
  topi::Pool2dParams p;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.set("strides", std::vector<int64_t>{2, 2});
  attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  return {{x},
          topi::pool2d_nchw(x, kind, p),
          kind == topi::PoolKind::Max ? "MaxPool" : "AveragePool",
          attrs};
}

Workload softmax() {
  te::Tensor x = te::placeholder({6, 100}, te::DataType::Float(32), "X");
  Attributes attrs;
  attrs.set("axis", int64_t{-1});
  return {{x}, topi::softmax_last_axis(x), "Softmax", attrs};
}

// relu(x * 0.5 + 1) as three stages, compared with the reference's Relu of
// the same arithmetic done by hand below.
Workload elementwise_chain() {
  te::Tensor x = te::placeholder({3, 5, 40}, te::DataType::Float(32), "X");
  auto each = [](const te::Tensor& in, const std::string& name,
                 const std::function<te::Expr(te::Expr)>& f) {
    return te::compute(in.shape(),
                       [&](const std::vector<te::Var>& i) {
                         return f(in(std::vector<te::Expr>(i.begin(), i.end())));
                       },
                       name, {"a", "b", "c"});
  };
  te::Tensor scaled = each(x, "scaled", [](te::Expr v) { return v * te::Expr(0.5f); });
  te::Tensor shifted = each(scaled, "shifted", [](te::Expr v) { return v + te::Expr(1.0f); });
  te::Tensor out = each(shifted, "relu", [](te::Expr v) { return te::max(v, te::Expr(0.0f)); });
  return {{x}, out, "ElementwiseChain", {}};
}

Tensor reference_output(const Workload& w, const std::vector<Tensor>& inputs) {
  TensorType out{DType::Float32, w.output.shape()};
  if (w.op != "ElementwiseChain") return run_reference(w.op, w.attrs, inputs, out);
  Tensor half = Tensor::from_vector<float>({0.5f}, {});
  Tensor one = Tensor::from_vector<float>({1.0f}, {});
  Tensor a = run_reference("Mul", {}, {inputs[0], half}, out);
  Tensor b = run_reference("Add", {}, {a, one}, out);
  return run_reference("Relu", {}, {b}, out);
}

void check(const Workload& w, schedule::Schedule& sch, std::mt19937& rng, const std::string& what) {
  std::vector<Tensor> inputs = random_inputs(w.inputs, rng);
  std::vector<te::Tensor> args = w.inputs;
  args.push_back(w.output);
  std::vector<Tensor> got = run_compiled(sch, args, inputs);
  double err = normalized_error(got[0], reference_output(w, inputs));
  QVERIFY2(
      err <= 1e-5,
      qPrintable(QString("%1: normalized error %2").arg(QString::fromStdString(what)).arg(err)));
}

}  // namespace

class TestKernels : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<int>("which");
    const char* names[] = {"matmul",         "conv2d 3x3",       "conv2d 7x7 stride 2",
                           "conv2d grouped", "depthwise conv2d", "max pool",
                           "avg pool",       "softmax",          "elementwise chain"};
    for (int i = 0; i < 9; ++i) QTest::newRow(names[i]) << i;
  }

  void matchesReference() {
    QFETCH(int, which);
    const Factory factories[] = {matmul,
                                 [] { return conv(1, 8, 16, 3, 1, 1); },
                                 [] { return conv(1, 3, 8, 7, 2, 3); },
                                 [] { return conv(2, 8, 6, 3, 1, 1); },
                                 [] { return conv(8, 8, 8, 3, 1, 1); },
                                 [] { return pool(topi::PoolKind::Max); },
                                 [] { return pool(topi::PoolKind::Avg); },
                                 softmax,
                                 elementwise_chain};
    std::mt19937 rng(1000 + which);
    {
      Workload w = factories[which]();
      schedule::Schedule sch({w.output.op()});
      topi::apply_default_schedule(sch);
      check(w, sch, rng, "default schedule");
    }
    for (int trial = 0; trial < 20; ++trial) {
      Workload w = factories[which]();
      schedule::Schedule sch({w.output.op()});
      std::string text;
      // Producers: inline or keep at the root, at random.
      for (schedule::Stage st : sch.stages()) {
        const te::ComputeOpNode* c = st.op().as_compute();
        if (!c || st.node().is_output) continue;
        if (c->reduce_axis.empty() && rng() % 2) {
          st.compute_inline();
          text += st.name() + ".compute_inline(); ";
        } else {
          text += st.name() + ": " + random_loop_schedule(st, rng);
        }
      }
      schedule::Stage out = sch[w.output];
      text += random_loop_schedule(out, rng);
      // Producers read only by the output may move into one of its loops.
      for (schedule::Stage st : sch.stages()) {
        if (!st.op().as_compute() || st.node().is_output ||
            st.node().attach_type != schedule::AttachType::Root || rng() % 2)
          continue;
        int readers = 0;
        for (schedule::Stage other : sch.stages())
          for (const te::Tensor& t : other.op().input_tensors()) readers += t.op().same_as(st.op());
        bool output_reads = false;
        for (const te::Tensor& t : out.op().input_tensors())
          output_reads |= t.op().same_as(st.op());
        if (readers != 1 || !output_reads) continue;
        const auto& leaves = out.node().leaf_iter_vars;
        te::IterVar at = leaves[rng() % leaves.size()];
        st.compute_at(out, at);
        text += st.name() + ".compute_at(" + at.name() + "); ";
      }
      check(w, sch, rng, "trial " + std::to_string(trial) + ": " + text);
    }
  }
};

QTEST_GUILESS_MAIN(TestKernels)
#include "tst_kernels.moc"
