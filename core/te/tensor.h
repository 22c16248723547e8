// Tensor expressions: iteration variables, placeholders and compute
// operations, as TVM's te.placeholder / te.compute / te.reduce_axis.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "te/expr.h"

namespace lathe::te {

struct Range {
  Expr min, extent;
  Range() = default;
  Range(Expr m, Expr e) : min(std::move(m)), extent(std::move(e)) {}
  static Range from_extent(int64_t extent) { return {make_int(0), make_int(extent)}; }
};

enum class IterVarKind : uint8_t { DataPar, CommReduce, ThreadIndex };

struct IterVarNode {
  Var var;
  Range dom;  // undefined for vars created by schedule relations until bound inference
  IterVarKind kind = IterVarKind::DataPar;
  std::string thread_tag;  // "blockIdx.x" ... for ThreadIndex
};

// An iteration variable: identity is the node.
class IterVar {
 public:
  IterVar() = default;
  IterVar(Var var, Range dom, IterVarKind kind, std::string thread_tag = "");
  const IterVarNode* operator->() const { return node_.get(); }
  const IterVarNode* get() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const IterVar& o) const { return node_ == o.node_; }
  const Var& var() const { return node_->var; }
  const std::string& name() const { return node_->var.name(); }

 private:
  std::shared_ptr<const IterVarNode> node_;
};

struct IterVarHash {
  size_t operator()(const IterVar& v) const { return std::hash<const void*>()(v.get()); }
};
struct IterVarEqual {
  bool operator()(const IterVar& a, const IterVar& b) const { return a.same_as(b); }
};

IterVar reduce_axis(int64_t extent, const std::string& name);
IterVar reduce_axis(Range dom, const std::string& name);

enum class Reducer : uint8_t { Sum, Max, Min, Prod };
const char* reducer_name(Reducer r);  // "sum" ...
Expr reducer_identity(Reducer r, DataType t);
Expr reducer_combine(Reducer r, Expr acc, Expr value);

struct ReduceNode : ExprNode {
  ReduceNode(Reducer c, Expr s, std::vector<IterVar> ax, Expr cond)
      : ExprNode(ExprKind::Reduce, s.type()),
        combiner(c),
        source(std::move(s)),
        axis(std::move(ax)),
        condition(std::move(cond)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Reduce; }
  Reducer combiner;
  Expr source;
  std::vector<IterVar> axis;
  Expr condition;  // undefined when every point takes part
};

// Reductions over reduce axes: te.sum(A[i, k] * B[k, j], axis=[k]).
Expr sum(Expr source, std::vector<IterVar> axis, Expr condition = Expr());
Expr max(Expr source, std::vector<IterVar> axis, Expr condition = Expr());
Expr min(Expr source, std::vector<IterVar> axis, Expr condition = Expr());
Expr prod(Expr source, std::vector<IterVar> axis, Expr condition = Expr());

class Tensor;

struct OperationNode {
  enum class Kind : uint8_t { Placeholder, Compute };
  OperationNode(Kind k, std::string n) : kind(k), name(std::move(n)) {}
  virtual ~OperationNode() = default;
  const Kind kind;
  std::string name;
  std::vector<int64_t> shape;  // static, as the graph IR's
  DataType dtype;
};

struct PlaceholderOpNode : OperationNode {
  explicit PlaceholderOpNode(std::string n) : OperationNode(Kind::Placeholder, std::move(n)) {}
};

struct ComputeOpNode : OperationNode {
  explicit ComputeOpNode(std::string n) : OperationNode(Kind::Compute, std::move(n)) {}
  std::vector<IterVar> axis;         // one data-parallel axis per output dimension
  std::vector<IterVar> reduce_axis;  // of the body's Reduce, if any
  Expr body;                         // the value at axis; may be a Reduce
  std::string tag;                   // TOPI's op tag ("conv2d_nchw", "elemwise" ...)
};

class Operation {
 public:
  Operation() = default;
  explicit Operation(std::shared_ptr<const OperationNode> node) : node_(std::move(node)) {}
  const OperationNode* operator->() const { return node_.get(); }
  const OperationNode* get() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Operation& o) const { return node_ == o.node_; }
  const ComputeOpNode* as_compute() const;  // nullptr for placeholders
  Tensor output() const;
  // Tensors this operation reads, in first-read order.
  std::vector<Tensor> input_tensors() const;

 private:
  std::shared_ptr<const OperationNode> node_;
};

struct OperationHash {
  size_t operator()(const Operation& o) const { return std::hash<const void*>()(o.get()); }
};
struct OperationEqual {
  bool operator()(const Operation& a, const Operation& b) const { return a.same_as(b); }
};

// A read of a tensor at indices, before storage flattening.
struct ProducerLoadNode : ExprNode {
  ProducerLoadNode(DataType t, Operation p, std::vector<Expr> i)
      : ExprNode(ExprKind::ProducerLoad, t), producer(std::move(p)), indices(std::move(i)) {}
  static bool matches(ExprKind k) { return k == ExprKind::ProducerLoad; }
  Operation producer;
  std::vector<Expr> indices;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Operation op) : op_(std::move(op)) {}
  const Operation& op() const { return op_; }
  const std::string& name() const { return op_->name; }
  const std::vector<int64_t>& shape() const { return op_->shape; }
  DataType dtype() const { return op_->dtype; }
  int ndim() const { return static_cast<int>(op_->shape.size()); }
  int64_t numel() const;  // the product of the shape
  bool defined() const { return op_.defined(); }
  bool same_as(const Tensor& o) const { return op_.same_as(o.op_); }
  // A[i, j]: checks the number of indices.
  Expr operator()(std::vector<Expr> indices) const;
  template <typename... I>
  Expr operator()(I... indices) const {
    return (*this)(std::vector<Expr>{Expr(indices)...});
  }

 private:
  Operation op_;
};

Tensor placeholder(std::vector<int64_t> shape, DataType dtype, const std::string& name);

using ComputeFn = std::function<Expr(const std::vector<Var>&)>;
// One output value per point of `shape`; axis variables are named after
// `axis_names` (default i0, i1, ...), as TVM names them after the lambda's arguments.
Tensor compute(std::vector<int64_t> shape, const ComputeFn& fn, const std::string& name,
               std::vector<std::string> axis_names = {}, const std::string& tag = "");

}  // namespace lathe::te
