// ONNX's Einsum rewritten at import into the ops Lathe compiles, as ONNX
// Runtime's and opt_einsum's pairwise contraction does: each operand's
// repeated labels taken as a diagonal (Gather over the merged axes), labels
// no other operand or the output has summed out (ReduceSum), then the
// operands folded left to right, each pair one batched MatMul
//   A: Transpose [batch, left, contracted] -> Reshape [batch, L, K]
//   B: Transpose [batch, contracted, right] -> Reshape [batch, K, R]
//   MatMul -> Reshape [batch, left, right]
// where batch labels are in both and still needed (by the output or a later
// operand), contracted ones in both and no longer needed, left and right in
// one only; last, a Transpose into the output's order. Ellipsis dimensions
// are labels of their own, right-aligned across operands as NumPy broadcasts
// them; MatMul broadcasts batch dimensions of size 1.
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

using Labels = std::vector<std::string>;

struct Operand {
  ValueId value = kNoValue;
  Labels labels;  // one per axis
  Shape shape;
};

bool contains(const Labels& labels, const std::string& l) {
  return std::find(labels.begin(), labels.end(), l) != labels.end();
}

int64_t index_of(const Labels& labels, const std::string& l) {
  return std::find(labels.begin(), labels.end(), l) - labels.begin();
}

// The labels of one term ("b...ij") over `rank` axes: letters, and the
// ellipsis's axes as "...k", k counted so that the last one of every
// operand is "...<ellipsis_rank - 1>".
Labels parse_term(const std::string& term, int64_t rank, int64_t ellipsis_rank, bool output) {
  Labels labels;
  const size_t dots = term.find("...");
  int64_t letters = 0;
  for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  const int64_t covered = dots == std::string::npos ? 0 : output ? ellipsis_rank : rank - letters;
  LATHE_CHECK(covered >= 0 && (output || letters + covered == rank), "Einsum term '", term,
              "' names ", letters, " axes of an operand of rank ", rank);
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      for (int64_t k = ellipsis_rank - covered; k < ellipsis_rank; ++k)
        labels.push_back("..." + std::to_string(k));
      i += 2;
      continue;
    }
    const char c = term[i];
    LATHE_CHECK(std::isalpha(static_cast<unsigned char>(c)), "Einsum term '", term, "' has '", c,
                "', which is no letter");
    labels.push_back(std::string(1, c));
  }
  return labels;
}

class EinsumExpansion {
 public:
  EinsumExpansion(Node node, const UpgradeHooks& hooks)
      : node_(std::move(node)), hooks_(hooks), seq_(node_.name, hooks) {}

  std::vector<Node> run() {
    std::string equation;
    for (char c : node_.attrs.get_string("equation", ""))
      if (!std::isspace(static_cast<unsigned char>(c))) equation += c;
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> terms;
    for (size_t begin = 0;;) {
      const size_t comma = lhs.find(',', begin);
      terms.push_back(lhs.substr(begin, comma - begin));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
    LATHE_CHECK(terms.size() == node_.inputs.size(), "Einsum equation '", equation, "' has ",
                terms.size(), " operand terms for ", node_.inputs.size(), " inputs");

    // The ellipsis spans the most axes any operand gives it.
    int64_t ellipsis_rank = 0;
    std::vector<Operand> operands;
    for (size_t i = 0; i < terms.size(); ++i) {
      const TensorType* t = hooks_.type_of(node_.inputs[i]);
      LATHE_CHECK(t != nullptr, "Einsum input ", i, " has no known type");
      if (terms[i].find("...") != std::string::npos) {
        int64_t letters = 0;
        for (char c : terms[i]) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
        ellipsis_rank = std::max(ellipsis_rank, t->rank() - letters);
      }
      operands.push_back({node_.inputs[i], {}, t->shape});
    }
    for (size_t i = 0; i < terms.size(); ++i)
      operands[i].labels = parse_term(terms[i], static_cast<int64_t>(operands[i].shape.size()),
                                      ellipsis_rank, false);
    output_ = arrow == std::string::npos
                  ? implicit_output(operands, ellipsis_rank)
                  : parse_term(equation.substr(arrow + 2), 0, ellipsis_rank, true);
    for (const std::string& l : output_) {
      LATHE_CHECK(std::count(output_.begin(), output_.end(), l) == 1, "Einsum output names '", l,
                  "' twice");
      LATHE_CHECK(std::any_of(operands.begin(), operands.end(),
                              [&](const Operand& o) { return contains(o.labels, l); }),
                  "Einsum output label '", l, "' is in no operand");
    }

    for (Operand& o : operands) take_diagonals(o);
    Operand acc = operands[0];
    for (size_t i = 1; i <= operands.size(); ++i) {
      // Labels the output or an operand after the i-th still needs: those
      // of the pair's shared labels are batch axes of its MatMul, the others
      // its contraction (K). Counting the i-th operand's own labels there
      // made every shared label a batch axis, an outer product per element
      // of K (MaxViT's attention: [..., 32, 49, 1] x [..., 32, 1, 49]) and a
      // ReduceSum over K after it.
      Labels later = output_;
      for (size_t j = i + 1; j < operands.size(); ++j)
        for (const std::string& l : operands[j].labels) later.push_back(l);
      if (i == operands.size()) {
        sum_out(acc, later);
        break;
      }
      Operand& b = operands[i];
      Labels keep_a = later, keep_b = later;
      keep_a.insert(keep_a.end(), b.labels.begin(), b.labels.end());
      keep_b.insert(keep_b.end(), acc.labels.begin(), acc.labels.end());
      sum_out(acc, keep_a);
      sum_out(b, keep_b);
      acc = contract(acc, b, later);
    }
    finish(acc);
    return std::move(seq_.nodes);
  }

 private:
  // Without "->": the ellipsis, then the letters used exactly once, sorted.
  static Labels implicit_output(const std::vector<Operand>& operands, int64_t ellipsis_rank) {
    Labels out;
    for (int64_t k = 0; k < ellipsis_rank; ++k) out.push_back("..." + std::to_string(k));
    std::map<std::string, int> uses;
    for (const Operand& o : operands)
      for (const std::string& l : o.labels)
        if (l.size() == 1) ++uses[l];
    for (const auto& [l, n] : uses)
      if (n == 1) out.push_back(l);
    return out;
  }

  void transpose_to(Operand& o, const Labels& order) {
    if (order == o.labels) return;
    std::vector<int64_t> perm;
    Shape shape;
    for (const std::string& l : order) {
      perm.push_back(index_of(o.labels, l));
      shape.push_back(o.shape[static_cast<size_t>(perm.back())]);
    }
    o.value = seq_.transpose(o.value, perm);
    o.labels = order;
    o.shape = shape;
  }

  void reshape_to(Operand& o, const Shape& shape) {
    if (shape != o.shape) o.value = seq_.reshape(o.value, shape);
    o.shape = shape;
  }

  // "ii" -> "i": the two axes moved last, merged, and every (n + 1)-th element gathered.
  void take_diagonals(Operand& o) {
    for (size_t a = 0; a < o.labels.size(); ++a) {
      for (size_t b = a + 1; b < o.labels.size(); ++b) {
        if (o.labels[a] != o.labels[b]) continue;
        const int64_t n = o.shape[a];
        LATHE_CHECK(o.shape[b] == n, "Einsum label '", o.labels[a], "' has extents ", n, " and ",
                    o.shape[b], " in one operand");
        Labels order;
        for (size_t k = 0; k < o.labels.size(); ++k)
          if (k != a && k != b) order.push_back(o.labels[k]);
        const std::string label = o.labels[a];
        o.labels[b] = label + "'";  // tell the two apart while moving them
        order.push_back(label);
        order.push_back(label + "'");
        transpose_to(o, order);
        Shape merged(o.shape.begin(), o.shape.end() - 2);
        merged.push_back(n * n);
        reshape_to(o, merged);
        std::vector<int64_t> diagonal;
        for (int64_t i = 0; i < n; ++i) diagonal.push_back(i * (n + 1));
        Attributes axis;
        axis.set("axis", int64_t{-1});
        o.value = seq_.op("Gather", {o.value, seq_.ints(diagonal)}, std::move(axis));
        o.shape.back() = n;
        o.labels.pop_back();
        o.labels.back() = label;
        return take_diagonals(o);  // positions changed: look again
      }
    }
  }

  // Sums the axes whose labels `keep` does not hold.
  void sum_out(Operand& o, const Labels& keep) {
    std::vector<int64_t> axes;
    Labels labels;
    Shape shape;
    for (size_t k = 0; k < o.labels.size(); ++k) {
      if (contains(keep, o.labels[k])) {
        labels.push_back(o.labels[k]);
        shape.push_back(o.shape[k]);
      } else {
        axes.push_back(static_cast<int64_t>(k));
      }
    }
    if (axes.empty()) return;
    Attributes a;
    a.set("keepdims", int64_t{0});
    o.value = seq_.op("ReduceSum", {o.value, seq_.ints(axes)}, std::move(a));
    o.labels = labels;
    o.shape = shape;
  }

  Operand contract(Operand a, Operand b, const Labels& keep) {
    Labels batch, contracted, left, right;
    for (const std::string& l : a.labels) {
      if (!contains(b.labels, l))
        left.push_back(l);
      else if (contains(keep, l))
        batch.push_back(l);
      else
        contracted.push_back(l);
    }
    for (const std::string& l : b.labels)
      if (!contains(a.labels, l)) right.push_back(l);
    auto extent = [](const Operand& o, const std::string& l) {
      return o.shape[static_cast<size_t>(index_of(o.labels, l))];
    };
    auto product = [&](const Operand& o, const Labels& ls) {
      int64_t p = 1;
      for (const std::string& l : ls) p *= extent(o, l);
      return p;
    };
    Shape batch_a, batch_b, batch_out;
    for (const std::string& l : batch) {
      const int64_t ea = extent(a, l), eb = extent(b, l);
      LATHE_CHECK(ea == eb || ea == 1 || eb == 1, "Einsum label '", l, "' has extents ", ea,
                  " and ", eb, ", which do not broadcast");
      batch_a.push_back(ea);
      batch_b.push_back(eb);
      batch_out.push_back(std::max(ea, eb));
    }
    for (const std::string& l : contracted)
      if (extent(a, l) != extent(b, l))
        fail_unsupported(str("Einsum sums label '", l, "' over extents ", extent(a, l), " and ",
                             extent(b, l), " (a broadcast contraction)"));
    const int64_t l_size = product(a, left), k_size = product(a, contracted),
                  r_size = product(b, right);
    Shape left_shape, right_shape;
    for (const std::string& l : left) left_shape.push_back(extent(a, l));
    for (const std::string& l : right) right_shape.push_back(extent(b, l));

    Labels order_a = batch, order_b = batch;
    order_a.insert(order_a.end(), left.begin(), left.end());
    order_a.insert(order_a.end(), contracted.begin(), contracted.end());
    order_b.insert(order_b.end(), contracted.begin(), contracted.end());
    order_b.insert(order_b.end(), right.begin(), right.end());
    transpose_to(a, order_a);
    transpose_to(b, order_b);
    Shape shape_a = batch_a, shape_b = batch_b;
    shape_a.insert(shape_a.end(), {l_size, k_size});
    shape_b.insert(shape_b.end(), {k_size, r_size});
    reshape_to(a, shape_a);
    reshape_to(b, shape_b);

    Operand c;
    c.value = seq_.op("MatMul", {a.value, b.value});
    c.shape = batch_out;
    c.shape.insert(c.shape.end(), {l_size, r_size});
    c.labels = batch;
    c.labels.insert(c.labels.end(), left.begin(), left.end());
    c.labels.insert(c.labels.end(), right.begin(), right.end());
    Shape result = batch_out;
    result.insert(result.end(), left_shape.begin(), left_shape.end());
    result.insert(result.end(), right_shape.begin(), right_shape.end());
    reshape_to(c, result);
    return c;
  }

  // Into the output's order, written into the node's own output value.
  void finish(Operand o) {
    transpose_to(o, output_);
    seq_.into(node_.outputs.at(0), "Identity", {o.value});  // simplify drops it
  }

  Node node_;
  const UpgradeHooks& hooks_;
  NodeSequence seq_;
  Labels output_;
};

}  // namespace

std::vector<Node> expand_einsum(Node node, const UpgradeHooks& hooks) {
  return EinsumExpansion(std::move(node), hooks).run();
}

}  // namespace lathe::onnx_frontend
