// Attention and RotaryEmbedding (opset 23), imported as MatMul/Softmax/
// elementwise nodes, against their definitions computed here element by
// element: 3-D and 4-D forms, grouped query heads, a key/value cache with a
// causal mask aligned to its end, softcap, float and bool masks shorter than
// the keys, partial and interleaved rotation, position ids.
#include <onnx/onnx_pb.h>

#include <QtTest>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "../compiled_run.h"
#include "frontend/onnx/onnx_import.h"
#include "onnx_model_writer.h"
#include "reference/executor.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

using Inputs = std::map<std::string, Tensor>;

Tensor random_tensor(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DType::Float32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

std::vector<Tensor> run_both(const std::string& bytes, const Inputs& inputs, bool compiled) {
  const Graph g = onnx_frontend::import_model_bytes(bytes, "attention.onnx", ".");
  if (!compiled) return reference::Executor(g).run(inputs);
  return run_compiled(g, inputs);
}

void expect_close(const Tensor& got, const std::vector<float>& want, const Shape& shape,
                  const QString& what) {
  QVERIFY2(got.shape() == shape,
           qPrintable(what + ": shape " + QString::fromStdString(shape_to_string(got.shape()))));
  for (size_t i = 0; i < want.size(); ++i) {
    const float g = got.data<float>()[i];
    QVERIFY2(
        std::abs(g - want[i]) <= 2e-5f,
        qPrintable(
            QString("%1: element %2 is %3, expected %4").arg(what).arg(i).arg(g).arg(want[i])));
  }
}

// Element (b, h, s, d) of a [B, S, H*D] or [B, H, S, D] tensor.
float at(const Tensor& t, bool three_d, int64_t heads, int64_t b, int64_t h, int64_t s, int64_t d) {
  const Shape& sh = t.shape();
  if (three_d) {
    const int64_t size = sh[2] / heads;
    return t.data<float>()[(b * sh[1] + s) * sh[2] + h * size + d];
  }
  return t.data<float>()[((b * sh[1] + h) * sh[2] + s) * sh[3] + d];
}

struct AttentionCase {
  bool three_d = false;
  int64_t batch = 1, q_heads = 1, kv_heads = 1, q_len = 1, kv_len = 1, past = 0;
  int64_t head = 4, v_size = 4;
  float scale = 0;  // 0: 1/sqrt(head)
  float softcap = 0;
  bool causal = false;
  // Mask [q_len, mask_len] (broadcast over batch and heads), float or bool.
  int64_t mask_len = 0;
  bool bool_mask = false;
};

// Y [B, H, Sq, Dv] (or [B, Sq, H*Dv]) by the definition.
std::vector<float> attention_by_definition(const AttentionCase& c, const Inputs& in) {
  const Tensor &q = in.at("q"), &k = in.at("k"), &v = in.at("v");
  const int64_t total = c.past + c.kv_len;
  const float scale = c.scale > 0 ? c.scale : 1.0f / std::sqrt(float(c.head));
  const float root = std::sqrt(scale), inf = std::numeric_limits<float>::infinity();
  std::vector<float> y(static_cast<size_t>(c.batch * c.q_heads * c.q_len * c.v_size));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.q_heads; ++h) {
      const int64_t g = h / (c.q_heads / c.kv_heads);  // the key/value head of query head h
      auto key = [&](int64_t j, int64_t d) {
        return j < c.past ? at(in.at("past_key"), false, 0, b, g, j, d)
                          : at(k, c.three_d, c.kv_heads, b, g, j - c.past, d);
      };
      auto value = [&](int64_t j, int64_t d) {
        return j < c.past ? at(in.at("past_value"), false, 0, b, g, j, d)
                          : at(v, c.three_d, c.kv_heads, b, g, j - c.past, d);
      };
      for (int64_t i = 0; i < c.q_len; ++i) {
        std::vector<float> s(static_cast<size_t>(total));
        for (int64_t j = 0; j < total; ++j) {
          float dot = 0;
          for (int64_t d = 0; d < c.head; ++d)
            dot += (at(q, c.three_d, c.q_heads, b, h, i, d) * root) * (key(j, d) * root);
          if (c.softcap > 0) dot = std::tanh(dot / c.softcap) * c.softcap;
          if (c.mask_len) {
            if (j >= c.mask_len) {
              dot = -inf;
            } else {
              const float m = in.at("mask").data<float>()[i * c.mask_len + j];
              dot = c.bool_mask ? (m != 0 ? dot : -inf) : dot + m;
            }
          }
          if (c.causal && j > i + c.past) dot = -inf;
          s[size_t(j)] = dot;
        }
        float top = -inf, sum = 0;
        for (float x : s) top = std::max(top, x);
        for (float& x : s) sum += (x = std::exp(x - top));
        for (int64_t d = 0; d < c.v_size; ++d) {
          float acc = 0;
          for (int64_t j = 0; j < total; ++j) acc += s[size_t(j)] / sum * value(j, d);
          const int64_t index = c.three_d ? ((b * c.q_len + i) * c.q_heads + h) * c.v_size + d
                                          : ((b * c.q_heads + h) * c.q_len + i) * c.v_size + d;
          y[size_t(index)] = acc;
        }
      }
    }
  return y;
}

void check_attention(const AttentionCase& c, const QString& label) {
  ModelWriter w(23);
  Inputs in;
  auto add = [&](const std::string& name, const Shape& shape, uint32_t seed) {
    w.input(name, shape);
    in[name] = random_tensor(shape, seed);
  };
  const int64_t b = c.batch;
  if (c.three_d) {
    add("q", {b, c.q_len, c.q_heads * c.head}, 1);
    add("k", {b, c.kv_len, c.kv_heads * c.head}, 2);
    add("v", {b, c.kv_len, c.kv_heads * c.v_size}, 3);
  } else {
    add("q", {b, c.q_heads, c.q_len, c.head}, 1);
    add("k", {b, c.kv_heads, c.kv_len, c.head}, 2);
    add("v", {b, c.kv_heads, c.kv_len, c.v_size}, 3);
  }
  std::vector<std::string> inputs = {"q", "k", "v", "", "", ""};
  if (c.mask_len) {
    inputs[3] = "mask";
    Tensor m = random_tensor({c.q_len, c.mask_len}, 4);
    if (c.bool_mask) {
      Tensor keep(DType::Bool, m.shape());
      for (int64_t i = 0; i < m.numel(); ++i) {
        // Keep most keys, and always the first, so that no row is all masked.
        keep.data<bool>()[i] = i % c.mask_len == 0 || m.data<float>()[i] > -0.5f;
        m.data<float>()[i] = keep.data<bool>()[i] ? 1.0f : 0.0f;
      }
      w.input("mask", m.shape(), onnx::TensorProto::BOOL);
      in["mask"] = keep;
    } else {
      w.input("mask", m.shape());
      in["mask"] = m;
    }
  }
  if (c.past) {
    add("past_key", {b, c.kv_heads, c.past, c.head}, 5);
    add("past_value", {b, c.kv_heads, c.past, c.v_size}, 6);
    inputs[4] = "past_key";
    inputs[5] = "past_value";
  }
  while (inputs.back().empty()) inputs.pop_back();
  const size_t rank = c.three_d ? 3 : 4;
  w.output("y", rank);
  std::vector<std::string> outputs = {"y"};
  if (c.past) {
    w.output("present_key", 4);
    w.output("present_value", 4);
    outputs = {"y", "present_key", "present_value"};
  }
  onnx::NodeProto* n = w.node("Attention", inputs, outputs);
  if (c.three_d) {
    set_int(n, "q_num_heads", c.q_heads);
    set_int(n, "kv_num_heads", c.kv_heads);
  }
  if (c.scale > 0) set_float(n, "scale", c.scale);
  if (c.softcap > 0) set_float(n, "softcap", c.softcap);
  if (c.causal) set_int(n, "is_causal", 1);

  Inputs for_definition = in;
  if (c.bool_mask) {
    Tensor as_float(DType::Float32, in["mask"].shape());
    for (int64_t i = 0; i < as_float.numel(); ++i)
      as_float.data<float>()[i] = in["mask"].data<bool>()[i] ? 1.0f : 0.0f;
    for_definition["mask"] = as_float;
  }
  const std::vector<float> want = attention_by_definition(c, for_definition);
  const Shape y_shape =
      c.three_d ? Shape{b, c.q_len, c.q_heads * c.v_size} : Shape{b, c.q_heads, c.q_len, c.v_size};
  for (bool compiled : {false, true}) {
    const QString what = label + (compiled ? " compiled" : " reference");
    const std::vector<Tensor> got = run_both(w.bytes(), in, compiled);
    expect_close(got[0], want, y_shape, what);
    if (c.past) {
      // present_key is past_key then K, along the sequence.
      const Tensor& present = got[1];
      QCOMPARE(present.shape(), (Shape{b, c.kv_heads, c.past + c.kv_len, c.head}));
      QCOMPARE(present.data<float>()[0], in["past_key"].data<float>()[0]);
      QCOMPARE(present.data<float>()[c.past * c.head], in["k"].data<float>()[0]);
      QCOMPARE(got[2].shape(), (Shape{b, c.kv_heads, c.past + c.kv_len, c.v_size}));
    }
  }
}

// RotaryEmbedding by its definition: pairs (x[p], x[p + dim/2]), or
// (x[2p], x[2p + 1]) interleaved, rotated by the angle of row `position`.
std::vector<float> rotary_by_definition(const Tensor& x, bool three_d, int64_t heads, int64_t dim,
                                        bool interleaved, const Tensor& cos, const Tensor& sin,
                                        const Tensor* positions) {
  const Shape& sh = x.shape();
  const int64_t batch = sh[0], seq = three_d ? sh[1] : sh[2];
  const int64_t head = three_d ? sh[2] / heads : sh[3], half = dim / 2;
  std::vector<float> y(x.data<float>(), x.data<float>() + x.numel());
  auto index = [&](int64_t b, int64_t h, int64_t s, int64_t d) {
    return three_d ? (b * seq + s) * sh[2] + h * head + d : ((b * heads + h) * seq + s) * head + d;
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t s = 0; s < seq; ++s)
        for (int64_t p = 0; p < half; ++p) {
          const int64_t row = positions ? positions->data<int64_t>()[b * seq + s] : b * seq + s;
          const float c = cos.data<float>()[row * half + p], n = sin.data<float>()[row * half + p];
          const int64_t i1 = interleaved ? 2 * p : p, i2 = interleaved ? 2 * p + 1 : p + half;
          const float x1 = x.data<float>()[index(b, h, s, i1)];
          const float x2 = x.data<float>()[index(b, h, s, i2)];
          y[size_t(index(b, h, s, i1))] = c * x1 - n * x2;
          y[size_t(index(b, h, s, i2))] = n * x1 + c * x2;
        }
  return y;
}

}  // namespace

class TestAttentionOps : public QObject {
  Q_OBJECT

 private slots:
  void attention3dWithFloatMask() {
    AttentionCase c;
    c.three_d = true;
    c.batch = 2, c.q_heads = 2, c.kv_heads = 2, c.q_len = 3, c.kv_len = 5, c.head = 4;
    c.v_size = 3, c.scale = 0.3f, c.mask_len = 5;
    check_attention(c, "3-D, float mask");
  }

  void attentionGroupedHeadsCacheCausalSoftcap() {
    AttentionCase c;
    c.q_heads = 4, c.kv_heads = 2, c.q_len = 3, c.kv_len = 3, c.past = 2, c.head = 4;
    c.v_size = 2, c.softcap = 1.5f, c.causal = true;
    check_attention(c, "GQA, cache, causal, softcap");
  }

  void attentionBoolMaskShorterThanKeys() {
    AttentionCase c;
    c.three_d = true;
    c.q_heads = 3, c.kv_heads = 1, c.q_len = 4, c.kv_len = 6, c.head = 2, c.v_size = 2;
    c.mask_len = 4, c.bool_mask = true;
    check_attention(c, "bool mask padded");
  }

  void rotaryEmbedding() {
    struct Case {
      bool three_d, interleaved, positions;
      int64_t dim;  // 0: the whole head
    };
    for (Case rc : {Case{false, false, true, 6}, Case{true, true, false, 0},
                    Case{false, true, true, 0}, Case{true, false, false, 4}}) {
      const int64_t batch = 2, heads = 2, seq = 3, head = 8, positions = 7;
      const int64_t dim = rc.dim ? rc.dim : head, half = dim / 2;
      const Shape x_shape =
          rc.three_d ? Shape{batch, seq, heads * head} : Shape{batch, heads, seq, head};
      const Shape table = rc.positions ? Shape{positions, half} : Shape{batch, seq, half};
      Inputs in = {{"x", random_tensor(x_shape, 7)},
                   {"cos", random_tensor(table, 8)},
                   {"sin", random_tensor(table, 9)}};
      ModelWriter w(23);
      w.input("x", x_shape);
      w.input("cos", table);
      w.input("sin", table);
      std::vector<std::string> inputs = {"x", "cos", "sin"};
      if (rc.positions) {
        Tensor ids(DType::Int64, {batch, seq});
        for (int64_t i = 0; i < ids.numel(); ++i) ids.data<int64_t>()[i] = (i * 5 + 2) % positions;
        w.input("ids", ids.shape(), onnx::TensorProto::INT64);
        in["ids"] = ids;
        inputs.push_back("ids");
      }
      w.output("y", x_shape.size());
      onnx::NodeProto* n = w.node("RotaryEmbedding", inputs, {"y"});
      if (rc.three_d) set_int(n, "num_heads", heads);
      if (rc.interleaved) set_int(n, "interleaved", 1);
      if (rc.dim) set_int(n, "rotary_embedding_dim", rc.dim);
      const std::vector<float> want =
          rotary_by_definition(in["x"], rc.three_d, heads, dim, rc.interleaved, in["cos"],
                               in["sin"], rc.positions ? &in["ids"] : nullptr);
      const QString label = QString("rotary %1%2%3 dim %4")
                                .arg(rc.three_d ? "3-D" : "4-D")
                                .arg(rc.interleaved ? " interleaved" : "")
                                .arg(rc.positions ? " positions" : "")
                                .arg(dim);
      for (bool compiled : {false, true})
        expect_close(run_both(w.bytes(), in, compiled)[0], want, x_shape,
                     label + (compiled ? " compiled" : " reference"));
    }
  }

  // A 3-D Attention without head counts cannot be split into heads.
  void attentionWithoutHeadCountsIsRefused() {
    ModelWriter w(23);
    for (const char* name : {"q", "k", "v"}) w.input(name, {1, 3, 8});
    w.output("y", 3);
    w.node("Attention", {"q", "k", "v"}, {"y"});
    try {
      onnx_frontend::import_model_bytes(w.bytes(), "attention.onnx", ".");
      QFAIL("imported an Attention without q_num_heads");
    } catch (const std::exception& e) {
      QVERIFY2(std::string(e.what()).find("heads") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestAttentionOps)
#include "tst_attention_ops.moc"
