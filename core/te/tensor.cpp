#include "te/tensor.h"

#include <cmath>
#include <limits>

#include "support/error.h"
#include "te/expr_functor.h"

namespace lathe::te {

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape()) n *= d;
  return n;
}

IterVar::IterVar(Var var, Range dom, IterVarKind kind, std::string thread_tag)
    : node_(std::make_shared<const IterVarNode>(
          IterVarNode{std::move(var), std::move(dom), kind, std::move(thread_tag)})) {}

IterVar reduce_axis(int64_t extent, const std::string& name) {
  return reduce_axis(Range::from_extent(extent), name);
}

IterVar reduce_axis(Range dom, const std::string& name) {
  return IterVar(Var(name), std::move(dom), IterVarKind::CommReduce);
}

const char* reducer_name(Reducer r) {
  switch (r) {
    case Reducer::Sum:
      return "sum";
    case Reducer::Max:
      return "max";
    case Reducer::Min:
      return "min";
    case Reducer::Prod:
      return "prod";
  }
  return "?";
}

Expr reducer_identity(Reducer r, DataType t) {
  switch (r) {
    case Reducer::Sum:
      return make_zero(t);
    case Reducer::Prod:
      return make_one(t);
    // Integer limits as exact int64 values: 2^63 - 1 has no double.
    case Reducer::Max:
      if (t.is_float()) return make_const(t, -std::numeric_limits<double>::infinity());
      if (!t.is_int()) return make_zero(t);
      return make_int(
          t.bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1)), t);
    case Reducer::Min:
      if (t.is_float()) return make_const(t, std::numeric_limits<double>::infinity());
      if (t.bits == 64)  // uint64's all-ones is -1 as an int64 immediate
        return make_int(t.is_int() ? std::numeric_limits<int64_t>::max() : -1, t);
      return make_int((int64_t{1} << (t.bits - (t.is_int() ? 1 : 0))) - 1, t);
  }
  return Expr();
}

Expr reducer_combine(Reducer r, Expr acc, Expr value) {
  switch (r) {
    case Reducer::Sum:
      return acc + value;
    case Reducer::Prod:
      return acc * value;
    case Reducer::Max:
      return max(acc, value);
    case Reducer::Min:
      return min(acc, value);
  }
  return Expr();
}

namespace {

Expr make_reduce(Reducer r, Expr source, std::vector<IterVar> axis, Expr condition) {
  LATHE_CHECK(!axis.empty(), reducer_name(r), " needs at least one reduce axis");
  for (const IterVar& iv : axis)
    LATHE_CHECK(iv->kind == IterVarKind::CommReduce, reducer_name(r), ": '", iv.name(),
                "' is not a reduce axis");
  return Expr(std::make_shared<const ReduceNode>(r, std::move(source), std::move(axis),
                                                 std::move(condition)));
}

}  // namespace

Expr sum(Expr s, std::vector<IterVar> a, Expr c) {
  return make_reduce(Reducer::Sum, s, a, c);
}
Expr max(Expr s, std::vector<IterVar> a, Expr c) {
  return make_reduce(Reducer::Max, s, a, c);
}
Expr min(Expr s, std::vector<IterVar> a, Expr c) {
  return make_reduce(Reducer::Min, s, a, c);
}
Expr prod(Expr s, std::vector<IterVar> a, Expr c) {
  return make_reduce(Reducer::Prod, s, a, c);
}

const ComputeOpNode* Operation::as_compute() const {
  return node_ && node_->kind == OperationNode::Kind::Compute
             ? static_cast<const ComputeOpNode*>(node_.get())
             : nullptr;
}

Tensor Operation::output() const {
  return Tensor(*this);
}

std::vector<Tensor> Operation::input_tensors() const {
  std::vector<Tensor> inputs;
  const ComputeOpNode* c = as_compute();
  if (!c) return inputs;
  visit_expr(c->body, [&](const Expr& e) {
    if (const auto* load = e.as<ProducerLoadNode>()) {
      for (const Tensor& t : inputs)
        if (t.op().same_as(load->producer)) return;
      inputs.push_back(Tensor(load->producer));
    }
  });
  return inputs;
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  LATHE_CHECK(static_cast<int>(indices.size()) == ndim(), "tensor '", name(), "' has ", ndim(),
              " dimensions, indexed with ", indices.size());
  for (Expr& i : indices) {
    LATHE_CHECK(i.type().is_integer(), "index of '", name(), "' is ", i.type().to_string());
    if (i.type() != DataType::Int(32) && i.type() != DataType::Int(64))
      i = cast(DataType::Int(32), i);
  }
  return Expr(std::make_shared<const ProducerLoadNode>(dtype(), op_, std::move(indices)));
}

Tensor placeholder(std::vector<int64_t> shape, DataType dtype, const std::string& name) {
  auto node = std::make_shared<PlaceholderOpNode>(name);
  node->shape = std::move(shape);
  node->dtype = dtype;
  return Tensor(Operation(node));
}

Tensor compute(std::vector<int64_t> shape, const ComputeFn& fn, const std::string& name,
               std::vector<std::string> axis_names, const std::string& tag) {
  auto node = std::make_shared<ComputeOpNode>(name);
  node->shape = shape;
  node->tag = tag;
  std::vector<Var> vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string axis_name = i < axis_names.size() ? axis_names[i] : "i" + std::to_string(i);
    Var v(axis_name);
    vars.push_back(v);
    node->axis.emplace_back(v, Range::from_extent(shape[i]), IterVarKind::DataPar);
  }
  node->body = fn(vars);
  LATHE_CHECK(node->body.defined(), "compute '", name, "' has no body");
  node->dtype = node->body.type();
  if (const auto* r = node->body.as<ReduceNode>()) node->reduce_axis = r->axis;
  return Tensor(Operation(node));
}

}  // namespace lathe::te
