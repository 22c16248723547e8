#include "tir/stmt.h"

#include "support/error.h"

namespace lathe::tir {

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial:
      return "serial";
    case ForKind::Parallel:
      return "parallel";
    case ForKind::Vectorized:
      return "vectorized";
    case ForKind::Unrolled:
      return "unroll";
    case ForKind::ThreadBinding:
      return "thread_binding";
  }
  return "?";
}

template <typename T>
static std::shared_ptr<T> node() {
  return std::make_shared<T>();
}

Stmt make_for(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
              std::string thread_tag) {
  LATHE_CHECK(body.defined(), "for loop over '", loop_var.name(), "' has no body");
  auto n = node<ForNode>();
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->thread_tag = std::move(thread_tag);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt make_store(Var buffer, Expr value, Expr index) {
  LATHE_CHECK(value.type().lanes == index.type().lanes, "store of ", value.type().to_string(),
              " with a ", index.type().lanes, "-lane index");
  auto n = node<StoreNode>();
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->index = std::move(index);
  return Stmt(n);
}

Stmt make_producer_store(te::Operation producer, Expr value, std::vector<Expr> indices) {
  auto n = node<ProducerStoreNode>();
  n->producer = std::move(producer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  return Stmt(n);
}

Stmt make_producer_realize(te::Operation producer, std::vector<Range> bounds, Stmt body,
                           std::string storage_scope) {
  auto n = node<ProducerRealizeNode>();
  n->producer = std::move(producer);
  n->bounds = std::move(bounds);
  n->body = std::move(body);
  n->storage_scope = std::move(storage_scope);
  return Stmt(n);
}

Stmt make_allocate(Var buffer, DataType dtype, std::vector<Expr> extents, Stmt body,
                   std::string storage_scope) {
  auto n = node<AllocateNode>();
  n->buffer = std::move(buffer);
  n->dtype = dtype;
  n->extents = std::move(extents);
  n->body = std::move(body);
  n->storage_scope = std::move(storage_scope);
  return Stmt(n);
}

Stmt make_seq(std::vector<Stmt> parts) {
  std::vector<Stmt> flat;
  for (Stmt& s : parts) {
    if (!s.defined()) continue;
    if (const SeqNode* inner = s.as<SeqNode>())
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    else
      flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  auto n = node<SeqNode>();
  n->seq = std::move(flat);
  return Stmt(n);
}

Stmt make_if(Expr condition, Stmt then_case, Stmt else_case) {
  LATHE_CHECK(condition.type().is_bool(), "if condition must be bool, got ",
              condition.type().to_string());
  auto n = node<IfThenElseNode>();
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  return Stmt(n);
}

Stmt make_let(Var var, Expr value, Stmt body) {
  auto n = node<LetStmtNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt make_attr(std::string key, Expr value, Stmt body) {
  auto n = node<AttrStmtNode>();
  n->key = std::move(key);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt make_evaluate(Expr value) {
  auto n = node<EvaluateNode>();
  n->value = std::move(value);
  return Stmt(n);
}

int64_t Buffer::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string target_kind_name(const std::string& target) {
  const size_t begin = target.find_first_not_of(' ');
  if (begin == std::string::npos) return "llvm";
  const size_t end = target.find(' ', begin);
  return target.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

bool is_gpu_target_kind(const std::string& kind) {
  return kind == "cuda";
}

}  // namespace lathe::tir
