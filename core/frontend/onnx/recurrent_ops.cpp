// ONNX's recurrent layers (LSTM, GRU, RNN) unrolled over their static
// sequence length into the ops Lathe compiles, as TVM's Relay frontend
// unrolled them: the input projection of every step as one MatMul, then per
// step the recurrent MatMul and the gates' elementwise ops, which fusion
// merges into a few kernels a step. The equations, gate orders and
// attributes are ONNX's (onnx.ai/onnx/operators/onnx__LSTM.html):
//   LSTM, gates i o f c:  i = f(Xi + Hi + Pi.C)  f_ = f(Xf + Hf + Pf.C)
//                         c~ = g(Xc + Hc)  C' = f_.C + i.c~
//                         o = f(Xo + Ho + Po.C')  H' = o.h(C')
//   GRU, gates z r h:     z = f(Xz + Hz)  r = f(Xr + Hr)
//                         h~ = g(Xh + (r.H) Rh^T + Rbh)    linear_before_reset = 0
//                         h~ = g(Xh + r.(H Rh^T + Rbh))    linear_before_reset = 1
//                         H' = (1 - z).h~ + z.H
//   RNN:                  H' = f(Xi + Hi)
// where X* = Xt W*^T + Wb* and H* = H R*^T + Rb*. sequence_lens masks each
// step: a batch row past its length keeps its state and outputs zeros, which
// for the reverse direction also starts each row at its own last element.
#include <algorithm>
#include <cctype>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

enum class Cell { Lstm, Gru, Rnn };

// One entry of the `activations` attribute with the alpha and beta it takes.
struct Activation {
  std::string name;  // as ONNX spells it
  float alpha = 0, beta = 0;
};

bool takes_alpha(const std::string& f) {
  return f == "LeakyRelu" || f == "ThresholdedRelu" || f == "Elu" || f == "HardSigmoid" ||
         f == "Affine" || f == "ScaledTanh";
}
bool takes_beta(const std::string& f) {
  return f == "HardSigmoid" || f == "Affine" || f == "ScaledTanh";
}

// ONNX's spelling of a function named in any case ("sigmoid", "Tanh").
std::string canonical_activation(const std::string& name) {
  static const char* known[] = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const char* k : known)
    if (lower(k) == lower(name)) return k;
  fail_unsupported(str("activation '", name, "' is not one ONNX defines for recurrent layers"));
}

// The `activations` of every direction, `per_direction` each: the given
// ones, or ONNX's defaults; alphas and betas are consumed in order by the
// functions that take them, each falling back to its operator's default.
std::vector<Activation> activations(const Node& node, Cell cell, int directions) {
  const size_t per_direction = cell == Cell::Lstm ? 3 : cell == Cell::Gru ? 2 : 1;
  std::vector<std::string> names = node.attrs.get_strings("activations");
  if (names.empty()) {
    const std::vector<std::string> defaults =
        cell == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
        : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                            : std::vector<std::string>{"Tanh"};
    for (int d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  // RNN's schema default lists two (forward and reverse) whatever the direction.
  if (directions == 1 && names.size() == 2 * per_direction) names.resize(per_direction);
  LATHE_CHECK(names.size() == per_direction * static_cast<size_t>(directions), "'activations' has ",
              names.size(), " entries, expected ", per_direction * static_cast<size_t>(directions));
  const std::vector<float> alphas = node.attrs.get_floats("activation_alpha");
  const std::vector<float> betas = node.attrs.get_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> result;
  for (const std::string& name : names) {
    Activation a{canonical_activation(name)};
    const float default_alpha = a.name == "LeakyRelu"     ? 0.01f
                                : a.name == "HardSigmoid" ? 0.2f
                                                          : 1.0f;
    const float default_beta = a.name == "HardSigmoid" ? 0.5f : a.name == "Affine" ? 0.0f : 1.0f;
    if (takes_alpha(a.name))
      a.alpha = next_alpha < alphas.size() ? alphas[next_alpha++] : default_alpha;
    if (takes_beta(a.name)) a.beta = next_beta < betas.size() ? betas[next_beta++] : default_beta;
    result.push_back(a);
  }
  return result;
}

ValueId apply(NodeSequence& u, const Activation& f, ValueId x) {
  Attributes a;
  if (f.name == "Affine")  // alpha x + beta
    return u.op("Add", {u.op("Mul", {x, u.scalar(f.alpha)}), u.scalar(f.beta)});
  if (f.name == "ScaledTanh")  // alpha tanh(beta x)
    return u.op("Mul", {u.op("Tanh", {u.op("Mul", {x, u.scalar(f.beta)})}), u.scalar(f.alpha)});
  if (takes_alpha(f.name)) a.set("alpha", f.alpha);
  if (takes_beta(f.name)) a.set("beta", f.beta);
  return u.op(f.name, {x}, std::move(a));
}

class RecurrentExpansion {
 public:
  RecurrentExpansion(Node node, const UpgradeHooks& hooks)
      : node_(std::move(node)), hooks_(hooks), u_(node_.name, hooks) {
    cell_ = node_.op == "LSTM" ? Cell::Lstm : node_.op == "GRU" ? Cell::Gru : Cell::Rnn;
    gates_ = cell_ == Cell::Lstm ? 4 : cell_ == Cell::Gru ? 3 : 1;
  }

  std::vector<Node> run() {
    const std::string direction = node_.attrs.get_string("direction", "forward");
    LATHE_CHECK(direction == "forward" || direction == "reverse" || direction == "bidirectional",
                "direction '", direction, "' is not forward, reverse or bidirectional");
    directions_ = direction == "bidirectional" ? 2 : 1;
    hidden_ = node_.attrs.get_int("hidden_size", 0);
    LATHE_CHECK(hidden_ > 0, node_.op, " needs a positive hidden_size");
    const bool batch_major = node_.attrs.get_int("layout", 0) == 1;
    if (cell_ == Cell::Lstm && node_.attrs.get_int("input_forget", 0) != 0)
      fail_unsupported("LSTM with input_forget = 1 is not supported");
    clip_ = node_.attrs.has("clip") ? node_.attrs.get_float("clip", 0) : 0;
    linear_before_reset_ = node_.attrs.get_int("linear_before_reset", 0) != 0;
    activations_ = activations(node_, cell_, directions_);

    LATHE_CHECK(node_.inputs.size() >= 3 && input(0) != kNoValue && input(1) != kNoValue &&
                    input(2) != kNoValue,
                node_.op, " needs X, W and R");
    const Shape x = shape_of(input(0), "X", 3);
    for (ValueId id : {input(1), input(2)}) {
      const TensorType* t = hooks_.type_of(id);
      LATHE_CHECK(t && t->dtype == DType::Float32, node_.op, " supports float32 weights only");
    }
    const TensorType* xt = hooks_.type_of(input(0));
    LATHE_CHECK(xt->dtype == DType::Float32, node_.op, " supports float32 inputs only");
    ValueId xs = input(0);
    if (batch_major) xs = u_.transpose(xs, {1, 0, 2});
    steps_ = batch_major ? x[1] : x[0];
    batch_ = batch_major ? x[0] : x[1];
    LATHE_CHECK(steps_ > 0, node_.op, " over an empty sequence");

    std::vector<ValueId> ys, final_h, final_c;
    for (int d = 0; d < directions_; ++d) {
      const bool reverse = direction == "reverse" || d == 1;
      Direction out = unroll(xs, d, reverse);
      ys.push_back(out.y);
      final_h.push_back(u_.reshape(out.h, {1, batch_, hidden_}));
      if (out.c != kNoValue) final_c.push_back(u_.reshape(out.c, {1, batch_, hidden_}));
    }
    // Y [S, D, B, h] (batch-major [B, S, D, h]); Y_h and Y_c [D, B, h] ([B, D, h]).
    auto emit_output = [&](size_t k, std::vector<ValueId> parts, int64_t axis,
                           const std::vector<int64_t>& batch_major_perm) {
      if (k >= node_.outputs.size() || node_.outputs[k] == kNoValue) return;
      if (!batch_major) {
        u_.concat(std::move(parts), axis, node_.outputs[k]);
        return;
      }
      Attributes a;
      a.set("perm", batch_major_perm);
      u_.into(node_.outputs[k], "Transpose", {u_.concat(std::move(parts), axis)}, std::move(a));
    };
    emit_output(0, ys, 1, {2, 0, 1, 3});
    emit_output(1, final_h, 0, {1, 0, 2});
    if (cell_ == Cell::Lstm) emit_output(2, final_c, 0, {1, 0, 2});
    return std::move(u_.nodes);
  }

 private:
  struct Direction {
    ValueId y = kNoValue;                // [S, 1, B, h]
    ValueId h = kNoValue, c = kNoValue;  // the final state, [B, h]
  };

  ValueId input(size_t i) const { return i < node_.inputs.size() ? node_.inputs[i] : kNoValue; }

  Shape shape_of(ValueId id, const char* what, int rank) const {
    const TensorType* t = hooks_.type_of(id);
    LATHE_CHECK(t && t->rank() == rank, node_.op, " input ", what, " must have rank ", rank);
    return t->shape;
  }

  // Row d of a [D, ...] input as [rest...].
  ValueId direction_row(ValueId v, int d, const std::vector<int64_t>& rest) {
    return u_.reshape(u_.slice(v, 0, d, d + 1), rest);
  }

  // The state a direction starts from: initial_h or initial_c's row, else zeros.
  ValueId initial_state(size_t input_index, int d) {
    if (input(input_index) == kNoValue) return u_.zeros({batch_, hidden_});
    return direction_row(input(input_index), d, {batch_, hidden_});
  }

  ValueId activate(int d, size_t which, ValueId x) {
    const size_t per_direction = activations_.size() / static_cast<size_t>(directions_);
    if (clip_ > 0) x = u_.op("Clip", {x, u_.scalar(-clip_), u_.scalar(clip_)});
    return apply(u_, activations_[static_cast<size_t>(d) * per_direction + which], x);
  }

  Direction unroll(ValueId xs, int d, bool reverse) {
    const int64_t h = hidden_, gh = gates_ * hidden_;
    const int64_t in = shape_of(input(1), "W", 3)[2];
    const ValueId wt = u_.transpose(direction_row(input(1), d, {gh, in}), {1, 0});  // [I, G*h]
    const ValueId rt = u_.transpose(direction_row(input(2), d, {gh, h}), {1, 0});   // [h, G*h]
    ValueId wb = kNoValue, rb = kNoValue;
    if (input(3) != kNoValue) {
      const ValueId b = direction_row(input(3), d, {2 * gh});
      wb = u_.slice(b, 0, 0, gh);
      rb = u_.slice(b, 0, gh, 2 * gh);
    }
    // Every step's input projection at once: [S, B, G*h].
    ValueId xw = u_.op("MatMul", {xs, wt});
    if (wb != kNoValue) xw = u_.op("Add", {xw, wb});
    ValueId peephole = input(7);
    ValueId pi = kNoValue, po = kNoValue, pf = kNoValue;
    if (cell_ == Cell::Lstm && peephole != kNoValue) {
      const ValueId p = direction_row(peephole, d, {3 * h});
      pi = u_.slice(p, 0, 0, h);
      po = u_.slice(p, 0, h, 2 * h);
      pf = u_.slice(p, 0, 2 * h, 3 * h);
    }
    // GRU's candidate reads H's product with Rh apart from the z and r gates'.
    ValueId rt_zr = rt, rt_h = kNoValue, rb_zr = rb, rb_h = kNoValue;
    if (cell_ == Cell::Gru) {
      rt_zr = u_.slice(rt, 1, 0, 2 * h);
      rt_h = u_.slice(rt, 1, 2 * h, 3 * h);
      if (rb != kNoValue) {
        rb_zr = u_.slice(rb, 0, 0, 2 * h);
        rb_h = u_.slice(rb, 0, 2 * h, 3 * h);
      }
    }
    // sequence_lens is int32; the step index it is compared with, int64.
    ValueId lengths = input(4);
    if (lengths != kNoValue) {
      Attributes to_int64;
      to_int64.set("to", int64_t{7});  // TensorProto.INT64
      lengths = u_.op("Cast", {lengths}, std::move(to_int64));
    }

    ValueId state = initial_state(5, d);
    ValueId cell = cell_ == Cell::Lstm ? initial_state(6, d) : kNoValue;
    std::vector<ValueId> outputs(static_cast<size_t>(steps_));
    for (int64_t k = 0; k < steps_; ++k) {
      const int64_t t = reverse ? steps_ - 1 - k : k;
      const ValueId x_t = u_.reshape(u_.slice(xw, 0, t, t + 1), {batch_, gh});
      auto gate = [&](ValueId v, int64_t g) { return u_.slice(v, 1, g * h, (g + 1) * h); };
      ValueId hr = u_.op("MatMul", {state, cell_ == Cell::Gru ? rt_zr : rt});
      if (rb_zr != kNoValue) hr = u_.op("Add", {hr, cell_ == Cell::Gru ? rb_zr : rb});
      ValueId next_state, next_cell = kNoValue;
      if (cell_ == Cell::Lstm) {
        const ValueId pre = u_.op("Add", {x_t, hr});
        auto peep = [&](ValueId v, ValueId p, ValueId c) {
          return p == kNoValue ? v : u_.op("Add", {v, u_.op("Mul", {p, c})});
        };
        const ValueId i = activate(d, 0, peep(gate(pre, 0), pi, cell));
        const ValueId f = activate(d, 0, peep(gate(pre, 2), pf, cell));
        const ValueId c_hat = activate(d, 1, gate(pre, 3));
        next_cell = u_.op("Add", {u_.op("Mul", {f, cell}), u_.op("Mul", {i, c_hat})});
        const ValueId o = activate(d, 0, peep(gate(pre, 1), po, next_cell));
        next_state = u_.op("Mul", {o, activate(d, 2, next_cell)});
      } else if (cell_ == Cell::Gru) {
        const ValueId z = activate(d, 0, u_.op("Add", {gate(x_t, 0), gate(hr, 0)}));
        const ValueId r = activate(d, 0, u_.op("Add", {gate(x_t, 1), gate(hr, 1)}));
        ValueId candidate;
        if (linear_before_reset_) {
          ValueId hh = u_.op("MatMul", {state, rt_h});
          if (rb_h != kNoValue) hh = u_.op("Add", {hh, rb_h});
          candidate = u_.op("Mul", {r, hh});
        } else {
          candidate = u_.op("MatMul", {u_.op("Mul", {r, state}), rt_h});
          if (rb_h != kNoValue) candidate = u_.op("Add", {candidate, rb_h});
        }
        const ValueId h_hat = activate(d, 1, u_.op("Add", {gate(x_t, 2), candidate}));
        // (1 - z) h~ + z H
        next_state = u_.op("Add", {u_.op("Mul", {u_.op("Sub", {u_.scalar(1.0f), z}), h_hat}),
                                   u_.op("Mul", {z, state})});
      } else {
        next_state = activate(d, 0, u_.op("Add", {x_t, hr}));
      }
      ValueId output = next_state;
      if (lengths != kNoValue) {
        // Rows whose sequence ended before t keep their state and output zeros.
        const ValueId live = u_.reshape(u_.op("Less", {u_.ints({t}), lengths}), {batch_, 1});
        next_state = u_.op("Where", {live, next_state, state});
        if (next_cell != kNoValue) next_cell = u_.op("Where", {live, next_cell, cell});
        output = u_.op("Where", {live, next_state, u_.zeros({1})});
      }
      outputs[static_cast<size_t>(t)] = u_.reshape(output, {1, 1, batch_, h});
      state = next_state;
      cell = next_cell;
    }
    return {u_.concat(outputs, 0), state, cell};
  }

  Node node_;
  const UpgradeHooks& hooks_;
  NodeSequence u_;
  Cell cell_;
  int64_t gates_ = 1, hidden_ = 0, steps_ = 0, batch_ = 0;
  int directions_ = 1;
  float clip_ = 0;
  bool linear_before_reset_ = false;
  std::vector<Activation> activations_;
};

}  // namespace

bool is_recurrent_op(const std::string& op) {
  return op == "LSTM" || op == "GRU" || op == "RNN";
}

std::vector<Node> expand_recurrent(Node node, const UpgradeHooks& hooks) {
  return RecurrentExpansion(std::move(node), hooks).run();
}

}  // namespace lathe::onnx_frontend
