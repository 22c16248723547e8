#include "kernel_harness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

#include "codegen/codegen.h"
#include "reference/executor.h"
#include "support/error.h"
#include "tir/lower.h"

namespace lathe::testing {

std::vector<Tensor> random_inputs(const std::vector<te::Tensor>& inputs, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<Tensor> values;
  for (const te::Tensor& t : inputs) {
    Tensor v(DType::Float32, t.shape());
    for (int64_t i = 0; i < v.numel(); ++i) v.data<float>()[i] = dist(rng);
    values.push_back(v);
  }
  return values;
}

Tensor random_tensor(DType dtype, const Shape& shape, std::mt19937& rng, double lo, double hi) {
  Tensor v(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = v.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < v.numel(); ++i) p[i] = rng() % 2 != 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<double> dist(lo, hi);
      for (int64_t i = 0; i < v.numel(); ++i) p[i] = static_cast<T>(dist(rng));
    } else {
      const double min =
          std::max(std::ceil(lo), static_cast<double>(std::numeric_limits<T>::lowest()));
      const double max =
          std::min(std::floor(hi), static_cast<double>(std::numeric_limits<T>::max()));
      std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(min),
                                                  static_cast<int64_t>(max));
      for (int64_t i = 0; i < v.numel(); ++i) p[i] = static_cast<T>(dist(rng));
    }
  });
  return v;
}

std::vector<Tensor> run_compiled(schedule::Schedule& sch, const std::vector<te::Tensor>& args,
                                 const std::vector<Tensor>& inputs) {
  tir::LoweredFunc lowered = tir::lower(sch, args, "kernel", {.record_ir = false});
  codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
  std::vector<Tensor> buffers = inputs;
  for (size_t i = inputs.size(); i < args.size(); ++i)
    buffers.emplace_back(DType::Float32, args[i].shape());
  std::vector<void*> pointers;
  for (Tensor& b : buffers) pointers.push_back(b.raw());
  kernel.run(pointers);
  return std::vector<Tensor>(buffers.begin() + static_cast<long>(inputs.size()), buffers.end());
}

Tensor run_reference(const std::string& op, const Attributes& attrs,
                     const std::vector<Tensor>& inputs, const TensorType& output) {
  Node node{"reference", op, {}, {0}, attrs};
  std::vector<const Tensor*> args;
  for (const Tensor& t : inputs) args.push_back(&t);
  const OpDef* def = reference::kernel_registry().find(op);
  LATHE_CHECK(def, "no op ", op);
  return reference::run_node(*def, node, args, {output})[0];
}

std::string random_loop_schedule(schedule::Stage stage, std::mt19937& rng) {
  std::ostringstream text;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const int64_t factors[] = {1, 2, 3, 4, 5, 7, 8, 16, 32};
  int steps = 1 + static_cast<int>(pick(4));
  for (int s = 0; s < steps; ++s) {
    const auto& leaves = stage.node().leaf_iter_vars;
    switch (pick(3)) {
      case 0: {
        te::IterVar v = leaves[pick(leaves.size())];
        int64_t f = factors[pick(std::size(factors))];
        stage.split(v, f);
        text << "split(" << v.name() << ", " << f << "); ";
        break;
      }
      case 1: {
        if (leaves.size() < 2) break;
        size_t i = pick(leaves.size() - 1);
        if (leaves[i]->kind != leaves[i + 1]->kind) break;
        te::IterVar a = leaves[i], b = leaves[i + 1];
        stage.fuse(a, b);
        text << "fuse(" << a.name() << ", " << b.name() << "); ";
        break;
      }
      case 2: {
        std::vector<te::IterVar> order = leaves;
        std::shuffle(order.begin(), order.end(), rng);
        stage.reorder(order);
        text << "reorder(";
        for (const auto& v : order) text << v.name() << " ";
        text << "); ";
        break;
      }
    }
  }
  // Vector and unroll widths stay small: only the inner part of a small split.
  auto small_inner = [&](const te::IterVar& v, int64_t limit) {
    for (const auto& rel : stage.node().relations)
      if (const auto* sp = std::get_if<schedule::SplitRelation>(&rel))
        if (sp->inner.same_as(v) && sp->factor >= 2 && sp->factor <= limit) return true;
    return false;
  };
  const auto& leaves = stage.node().leaf_iter_vars;
  if (pick(2) && leaves.front()->kind == te::IterVarKind::DataPar) {
    stage.parallel(leaves.front());
    text << "parallel(" << leaves.front().name() << "); ";
  }
  if (pick(2) && leaves.back()->kind == te::IterVarKind::DataPar &&
      small_inner(leaves.back(), 32) && !stage.node().attrs.count(leaves.back())) {
    stage.vectorize(leaves.back());
    text << "vectorize(" << leaves.back().name() << "); ";
  }
  if (pick(3) == 0 && leaves.size() >= 2) {
    te::IterVar v = leaves[leaves.size() - 2];
    if (!stage.node().attrs.count(v) && small_inner(v, 8)) {
      stage.unroll(v);
      text << "unroll(" << v.name() << "); ";
    }
  }
  if (pick(3) == 0) {
    stage.pragma(leaves.front(), "auto_unroll_max_step", te::make_int(16));
    text << "pragma(" << leaves.front().name() << ", auto_unroll_max_step, 16); ";
  }
  return text.str();
}

}  // namespace lathe::testing
