#include "tir/transform/storage_flatten.h"

#include <unordered_map>

#include "support/error.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

std::string identifier(std::string name) {
  for (char& c : name)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

struct FlatBuffer {
  Var data;
  DataType dtype;
  std::vector<Expr> mins;
  std::vector<int64_t> strides;
};

class Flattener : public IRMutator {
 public:
  Flattener(schedule::Schedule& sch) : sch_(sch) {}

  void bind_argument(const te::Tensor& t, Var data) {
    FlatBuffer b{std::move(data), t.dtype(), {}, {}};
    int64_t stride = 1;
    b.strides.resize(t.shape().size());
    for (int d = t.ndim() - 1; d >= 0; --d) {
      b.strides[d] = stride;
      stride *= t.shape()[d];
    }
    b.mins.assign(t.shape().size(), te::make_int(0));
    buffers_[t.op().get()] = b;
  }

 protected:
  Stmt visit_producer_realize(const ProducerRealizeNode* n, const Stmt&) override {
    if (buffers_.count(n->producer.get())) return mutate(n->body);  // an argument
    FlatBuffer b;
    b.data = Var(identifier(n->producer->name), DataType::Handle());
    b.dtype = n->producer->dtype;
    std::vector<int64_t> extents;
    for (const Range& r : n->bounds) {
      const int64_t* e = te::as_const_int(r.extent);
      LATHE_CHECK(e, "realize of '", n->producer->name, "' has a non-constant extent");
      extents.push_back(*e);
      b.mins.push_back(r.min);
    }
    std::vector<schedule::StorageAlign> aligns;
    if (schedule::Stage st = sch_.find_stage(n->producer->name); st.ref())
      aligns = st.node().storage_aligns;
    b.strides.resize(extents.size());
    int64_t stride = 1;
    for (int d = static_cast<int>(extents.size()) - 1; d >= 0; --d) {
      for (const auto& a : aligns)
        if (a.axis == d && stride % a.factor != a.offset)
          stride += ((a.offset - stride % a.factor) + a.factor) % a.factor;
      b.strides[d] = stride;
      stride *= extents[d];
    }
    int64_t total = extents.empty() ? 1 : b.strides[0] * extents[0];
    buffers_[n->producer.get()] = b;
    Stmt body = mutate(n->body);
    buffers_.erase(n->producer.get());
    return make_allocate(b.data, b.dtype, {te::make_int(total)}, body, n->storage_scope);
  }

  Stmt visit_producer_store(const ProducerStoreNode* n, const Stmt&) override {
    const FlatBuffer& b = buffer_of(n->producer);
    std::vector<Expr> indices;
    for (const Expr& i : n->indices) indices.push_back(mutate_expr(i));
    return make_store(b.data, mutate_expr(n->value), offset(b, indices));
  }

  Expr visit_producer_load(const te::ProducerLoadNode* n, const Expr&) override {
    const FlatBuffer& b = buffer_of(n->producer);
    std::vector<Expr> indices;
    for (const Expr& i : n->indices) indices.push_back(mutate(i));
    return te::load(b.dtype, b.data, offset(b, indices));
  }

 private:
  const FlatBuffer& buffer_of(const te::Operation& op) {
    auto it = buffers_.find(op.get());
    LATHE_CHECK(it != buffers_.end(), "tensor '", op->name,
                "' is read but neither a kernel argument nor computed in it");
    return it->second;
  }

  static Expr offset(const FlatBuffer& b, const std::vector<Expr>& indices) {
    Expr flat;
    for (size_t d = 0; d < indices.size(); ++d) {
      Expr i = te::is_const_int(b.mins[d], 0) ? indices[d] : indices[d] - b.mins[d];
      Expr term = b.strides[d] == 1 ? i : i * te::make_int(b.strides[d], i.type());
      flat = flat.defined() ? flat + term : term;
    }
    return flat.defined() ? flat : te::make_int(0);
  }

  schedule::Schedule& sch_;
  std::unordered_map<const void*, FlatBuffer> buffers_;
};

}  // namespace

PrimFunc storage_flatten(const Stmt& body, const std::vector<te::Tensor>& args,
                         schedule::Schedule& sch, const std::string& name) {
  PrimFunc f;
  f.name = name;
  Flattener flattener(sch);
  for (const te::Tensor& t : args) {
    // An output whose stage was cached has a new op: bind the schedule's one.
    te::Tensor bound = t;
    if (schedule::Stage st = sch.find_stage(t.name()); st.ref()) bound = te::Tensor(st.op());
    Buffer b{Var(identifier(t.name()), DataType::Handle()), t.name(), t.dtype(), t.shape()};
    flattener.bind_argument(bound, b.data);
    if (!bound.op().same_as(t.op())) flattener.bind_argument(t, b.data);
    f.params.push_back(b);
  }
  f.body = flattener.mutate(body);
  return f;
}

}  // namespace lathe::tir
