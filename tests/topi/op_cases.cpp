#include "op_cases.h"

#include <QtTest>

#include <cstring>
#include <set>
#include "codegen/codegen.h"
#include "ir/normalized_error.h"
#include "kernel_harness.h"
#include "reference/executor.h"
#include "support/error.h"
#include "tir/lower.h"
#include "topi/default_schedule.h"
#include "topi/op_compute.h"

namespace lathe::testing {

Input in(DType dtype, Shape shape, double lo, double hi) {
  Input i;
  i.dtype = dtype;
  i.shape = std::move(shape);
  i.lo = lo;
  i.hi = hi;
  return i;
}
Input f32(Shape shape, double lo, double hi) {
  return in(DType::Float32, std::move(shape), lo, hi);
}
Input nonzero(Input i) {
  i.nonzero = true;
  return i;
}
Input constant(Tensor value) {
  Input i;
  i.dtype = value.dtype();
  i.shape = value.shape();
  i.constant = std::move(value);
  return i;
}
// A fixed value that the kernel only sees at run time.
Input runtime(Tensor value) {
  Input i = constant(std::move(value));
  i.runtime = true;
  return i;
}
Input ints(std::vector<int64_t> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return constant(Tensor::from_vector(values, {n}));
}
Input omitted() {
  Input i;
  i.omitted = true;
  return i;
}

Attributes attrs(std::initializer_list<std::pair<std::string, Attribute>> list) {
  Attributes a;
  for (const auto& [name, value] : list) a.set(name, value);
  return a;
}

namespace {

// A case made ready to run: its node, values, compute and lowered function.
struct Prepared {
  const Case* c = nullptr;
  Graph graph;
  Node node;
  std::vector<Tensor> values;  // per input (undefined when omitted)
  std::vector<TensorType> output_types;
  std::vector<int> buffer_inputs;  // inputs passed to the kernel, in order
  std::vector<te::Tensor> outputs;
  tir::PrimFunc func;
  std::string name;
};

std::string describe(const Case& c) {
  std::string s = c.op;
  if (!c.label.empty()) s += " [" + c.label + "]";
  for (const Input& i : c.inputs)
    s += " " + (i.omitted ? std::string("-") : TensorType{i.dtype, i.shape}.to_string());
  return s;
}

void prepare(Prepared& p, const Case& c, int index, std::mt19937& rng) {
  p.c = &c;
  p.name = "case" + std::to_string(index);
  const OpDef* def = reference::kernel_registry().find(c.op);
  LATHE_CHECK(def, "no op ", c.op);
  p.node.name = p.name;
  p.node.op = c.op;
  p.node.attrs = c.attrs;
  std::vector<te::Tensor> placeholders;
  std::vector<const Tensor*> constants;
  std::vector<TensorType> input_types;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const Input& i = c.inputs[k];
    if (i.omitted) {
      p.values.emplace_back();
      p.node.inputs.push_back(kNoValue);
      continue;
    }
    Tensor v = i.constant.defined() ? i.constant : random_tensor(i.dtype, i.shape, rng, i.lo, i.hi);
    if (i.nonzero)
      visit_dtype(v.dtype(), [&](auto tag) {
        using T = decltype(tag);
        for (int64_t e = 0; e < v.numel(); ++e)
          if (v.data<T>()[e] == T{}) v.data<T>()[e] = T{1};
      });
    p.values.push_back(v);
    const std::string name = "in" + std::to_string(k);
    p.node.inputs.push_back(i.compile_time() ? p.graph.add_constant(name, v)
                                             : p.graph.add_value(name, v.type()));
  }
  for (int k = 0; k < c.outputs; ++k)
    p.node.outputs.push_back(p.graph.add_value("out" + std::to_string(k), {}));
  p.output_types = infer_node_types(*def, p.graph, p.node);
  // As the graph compiler does: shape inputs only as constants, every other
  // present input as a placeholder (constant or not).
  const std::set<int> shape_inputs(def->shape_inputs.begin(), def->shape_inputs.end());
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const Input& i = c.inputs[k];
    constants.push_back(!i.omitted && i.compile_time() ? &p.values[k] : nullptr);
    input_types.push_back(i.omitted ? TensorType{} : p.values[k].type());
    if (i.omitted || shape_inputs.count(static_cast<int>(k))) {
      placeholders.emplace_back();
      continue;
    }
    placeholders.push_back(
        te::placeholder(i.shape, topi::te_dtype(i.dtype), p.name + "_in" + std::to_string(k)));
    p.buffer_inputs.push_back(static_cast<int>(k));
  }
  const topi::OpStrategy* strategy = topi::OpStrategyRegistry::global().find(c.op);
  LATHE_CHECK(strategy, "no compute for ", c.op);
  topi::ComputeContext ctx(p.node, placeholders, constants, input_types, p.output_types, p.name);
  p.outputs = strategy->compute(ctx);
  LATHE_CHECK(p.outputs.size() == p.output_types.size(), c.op, " gave ", p.outputs.size(),
              " outputs for ", p.output_types.size());
  std::vector<te::Operation> ops;
  std::vector<te::Tensor> args;
  for (int k : p.buffer_inputs) args.push_back(placeholders[static_cast<size_t>(k)]);
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    const te::Tensor& t = p.outputs[k];
    LATHE_CHECK(t.shape() == p.output_types[k].shape, c.op, " output ", k, " has shape ",
                shape_to_string(t.shape()), ", inferred ", p.output_types[k].to_string());
    LATHE_CHECK(t.dtype() == topi::te_dtype(p.output_types[k].dtype), c.op, " output ", k, " is ",
                t.dtype().to_string());
    ops.push_back(t.op());
    args.push_back(t);
  }
  schedule::Schedule sch(ops);
  topi::apply_default_schedule(sch);
  p.func = tir::lower(sch, args, p.name, {.record_ir = false}).func;
}

// "" when equal within tolerance, else what differs.
std::string compare(const Tensor& got, const Tensor& want) {
  if (got.type() != want.type())
    return "type " + got.type().to_string() + " vs " + want.type().to_string();
  if (is_float(want.dtype())) {
    const double err = normalized_error(got, want);
    return err <= 1e-5 ? "" : "normalized error " + std::to_string(err);
  }
  if (want.nbytes() && std::memcmp(got.raw(), want.raw(), want.nbytes()) != 0) {
    for (int64_t i = 0; i < want.numel(); ++i)
      if (got.element_as_double(i) != want.element_as_double(i))
        return "element " + std::to_string(i) + ": " + std::to_string(got.element_as_double(i)) +
               " vs " + std::to_string(want.element_as_double(i));
    return "bytes differ";
  }
  return "";
}

}  // namespace

// Runs every case, compiled as one module; returns one line per failure.
QStringList run_cases(const std::vector<Case>& cases, uint32_t seed) {
  QStringList failures;
  std::mt19937 rng(seed);
  std::vector<std::unique_ptr<Prepared>> prepared;
  std::vector<tir::PrimFunc> funcs;
  for (size_t k = 0; k < cases.size(); ++k) {
    auto p = std::make_unique<Prepared>();
    try {
      prepare(*p, cases[k], static_cast<int>(k), rng);
    } catch (const std::exception& e) {
      failures << QString::fromStdString(describe(cases[k]) + ": " + e.what());
      continue;
    }
    funcs.push_back(p->func);
    prepared.push_back(std::move(p));
  }
  codegen::CompiledModule module;
  try {
    module = codegen::jit_compile(funcs, codegen::Target::host());
  } catch (const std::exception& e) {
    // Find the culprit: compile each alone.
    for (const auto& p : prepared) {
      try {
        codegen::jit_compile(p->func, codegen::Target::host());
      } catch (const std::exception& one) {
        failures << QString::fromStdString(describe(*p->c) + ": " + one.what());
      }
    }
    failures << QString::fromStdString(std::string("module: ") + e.what());
    return failures;
  }
  for (const auto& p : prepared) {
    const Case& c = *p->c;
    try {
      std::vector<Tensor> buffers;
      for (int k : p->buffer_inputs) buffers.push_back(p->values[static_cast<size_t>(k)]);
      std::vector<Tensor> got;
      for (const TensorType& t : p->output_types) got.emplace_back(t);
      std::vector<void*> pointers;
      for (Tensor& b : buffers) pointers.push_back(b.raw());
      for (Tensor& g : got) pointers.push_back(g.raw());
      module.kernel(p->name).run(pointers);
      std::vector<const Tensor*> args;
      for (const Tensor& v : p->values) args.push_back(v.defined() ? &v : nullptr);
      std::vector<Tensor> want = reference::run_node(*reference::kernel_registry().find(c.op),
                                                     p->node, args, p->output_types);
      for (size_t k = 0; k < want.size(); ++k) {
        std::string diff = compare(got[k], want[k]);
        if (!diff.empty())
          failures << QString::fromStdString(describe(c) + ": output " + std::to_string(k) + ": " +
                                             diff);
      }
    } catch (const std::exception& e) {
      failures << QString::fromStdString(describe(c) + ": " + e.what());
    }
  }
  return failures;
}

}  // namespace lathe::testing
