// The loop IR (TVM's TIR): statements over the expressions of core/te. Before
// storage flattening, tensors are read and written by index lists
// (ProducerLoad/ProducerStore inside ProducerRealize); after it, by flat
// element offsets into buffers (Load/Store inside Allocate).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace lathe::tir {

using te::DataType;
using te::Expr;
using te::Range;
using te::Var;

enum class StmtKind : uint8_t {
  For,
  Store,
  ProducerStore,
  ProducerRealize,
  Allocate,
  Seq,
  IfThenElse,
  LetStmt,
  AttrStmt,
  Evaluate,
};

struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
};

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  bool defined() const { return node_ != nullptr; }
  const StmtNode* get() const { return node_.get(); }
  StmtKind kind() const { return node_->kind; }
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char* for_kind_name(ForKind k);  // "serial", "parallel", ...

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  ForNode() : StmtNode(kKind) {}
  Var loop_var;
  Expr min, extent;
  ForKind kind = ForKind::Serial;
  std::string thread_tag;  // for ThreadBinding: "blockIdx.x", "threadIdx.x" ...
  Stmt body;
};

// buffer[index] = value, where buffer is a handle variable and index counts
// elements; a vector value takes a Ramp index.
struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  StoreNode() : StmtNode(kKind) {}
  Var buffer;
  Expr value, index;
};

struct ProducerStoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::ProducerStore;
  ProducerStoreNode() : StmtNode(kKind) {}
  te::Operation producer;
  Expr value;
  std::vector<Expr> indices;
};

// The region of a tensor that the body computes and reads.
struct ProducerRealizeNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::ProducerRealize;
  ProducerRealizeNode() : StmtNode(kKind) {}
  te::Operation producer;
  std::vector<Range> bounds;
  std::string storage_scope = "global";
  Stmt body;
};

struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  AllocateNode() : StmtNode(kKind) {}
  Var buffer;  // a handle
  DataType dtype;
  std::vector<Expr> extents;
  std::string storage_scope = "global";
  Stmt body;
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  SeqNode() : StmtNode(kKind) {}
  std::vector<Stmt> seq;
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  IfThenElseNode() : StmtNode(kKind) {}
  Expr condition;
  Stmt then_case, else_case;  // else_case may be undefined
};

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  LetStmtNode() : StmtNode(kKind) {}
  Var var;
  Expr value;
  Stmt body;
};

// Annotation around a body: "pragma_auto_unroll_max_step", "storage_alignment" ...
struct AttrStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AttrStmt;
  AttrStmtNode() : StmtNode(kKind) {}
  std::string key;
  Expr value;
  Stmt body;
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  EvaluateNode() : StmtNode(kKind) {}
  Expr value;
};

// ---- Constructors ------------------------------------------------------------

Stmt make_for(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
              std::string thread_tag = "");
Stmt make_store(Var buffer, Expr value, Expr index);
Stmt make_producer_store(te::Operation producer, Expr value, std::vector<Expr> indices);
Stmt make_producer_realize(te::Operation producer, std::vector<Range> bounds, Stmt body,
                           std::string storage_scope = "global");
Stmt make_allocate(Var buffer, DataType dtype, std::vector<Expr> extents, Stmt body,
                   std::string storage_scope = "global");
// Flattens nested sequences and drops undefined parts; one part is returned as is.
Stmt make_seq(std::vector<Stmt> parts);
Stmt make_if(Expr condition, Stmt then_case, Stmt else_case = Stmt());
Stmt make_let(Var var, Expr value, Stmt body);
Stmt make_attr(std::string key, Expr value, Stmt body);
Stmt make_evaluate(Expr value);

// A function argument: a tensor's flat storage.
struct Buffer {
  Var data;  // handle variable the body's Load/Store use
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t numel() const;
};

// A lowered kernel: its buffer parameters and body, as TVM's PrimFunc.
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;  // inputs, then outputs
  Stmt body;
  // The target it was lowered for, in the canonical text codegen::Target
  // prints ("cuda -arch=sm_90"); empty: the CPU target its module is built
  // for. Text, because tir sits below the code generator that parses it.
  std::string target = {};
};

// The kind of a target's text: its first word ("llvm", "cuda"); "llvm" for
// an empty one (the CPU default).
std::string target_kind_name(const std::string& target);
// Whether that kind runs kernels on a GPU, whose lowering binds threads,
// places barriers and has shared memory.
bool is_gpu_target_kind(const std::string& kind);

}  // namespace lathe::tir
