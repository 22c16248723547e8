// The dnnl plugin's runtime half (liblathe_dnnl_runtime.so): the kernels a
// package's graph executor runs for the groups the dnnl codegen claimed, over
// runtime/external_abi.h. It links oneDNN and nothing of Lathe's C++, so a
// package that uses it loads wherever liblathe_runtime does.
//
// Each kernel is one oneDNN primitive built once, from the parameters the
// codegen wrote (dnnl_params.h), with the activations' layout left to oneDNN
// (format_tag::any: blocked nChw{8,16}c where it is faster) and reorders to
// and from the graph's plain layout around it. Constant weights are
// reordered into the primitive's layout on the first run and kept; the
// primitives themselves come through oneDNN's primitive cache, so the many
// identical convolutions of a network share one.
#include <cstdio>
#include <cstring>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl_params.h"
#include "runtime/external_abi.h"

namespace lathe::dnnl_plugin {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DataType = memory::data_type;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::dims dims_of(const std::vector<int64_t>& v) {
  return memory::dims(v.begin(), v.end());
}

Tag plain_tag(size_t rank) {
  switch (rank) {
    case 1:
      return Tag::a;
    case 2:
      return Tag::ab;
    case 3:
      return Tag::abc;
    case 4:
      return Tag::abcd;
    case 5:
      return Tag::abcde;
  }
  throw std::runtime_error("dnnl: tensors of rank " + std::to_string(rank) + " are unsupported");
}

memory::desc plain(const std::vector<int64_t>& shape) {
  return memory::desc(dims_of(shape), DataType::f32, plain_tag(shape.size()));
}

// A 4-D activation as the graph holds it: NCHW, or NHWC between dnnl calls.
memory::desc activation(const std::vector<int64_t>& shape, bool nhwc) {
  return nhwc ? memory::desc(dims_of(shape), DataType::f32, Tag::acdb) : plain(shape);
}

memory::desc any(const std::vector<int64_t>& shape) {
  return memory::desc(dims_of(shape), DataType::f32, Tag::any);
}

dnnl::primitive_attr post_ops_attr(const Params& p) {
  dnnl::post_ops ops;
  if (p.sum) ops.append_sum(1.0f);
  if (p.eltwise == "relu") ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (p.eltwise == "clip") ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, p.alpha, p.beta);
  if (p.eltwise == "gelu_erf")
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

// One tensor at the graph's boundary: the graph's plain memory and, when the
// primitive prefers another layout, its own buffer and the reorder between.
struct Port {
  memory::desc user, inner;
  std::optional<memory> buffer;  // inner layout, when it differs
  std::optional<dnnl::reorder> reorder;

  void init(const memory::desc& user_desc, const memory::desc& inner_desc, bool into_inner) {
    user = user_desc;
    inner = inner_desc;
    if (user == inner) return;
    buffer = memory(inner, cpu_engine());
    memory u(user, cpu_engine(), DNNL_MEMORY_NONE);
    reorder = into_inner ? dnnl::reorder(u, *buffer) : dnnl::reorder(*buffer, u);
  }
  // The memory the primitive reads, after reordering `data` into it.
  memory in(dnnl::stream& s, void* data) {
    memory u(user, cpu_engine(), data);
    if (!buffer) return u;
    reorder->execute(s, u, *buffer);
    return *buffer;
  }
  // The memory the primitive writes; `out` copies it to `data`.
  memory target(void* data) const { return buffer ? *buffer : memory(user, cpu_engine(), data); }
  void out(dnnl::stream& s, void* data) {
    if (!buffer) return;
    memory u(user, cpu_engine(), data);
    reorder->execute(s, *buffer, u);
  }
};

class Kernel {
 public:
  explicit Kernel(const Params& p) : params_(p), stream_(cpu_engine()) {
    switch (p.kind) {
      case Params::Kind::Conv:
        init_conv();
        break;
      case Params::Kind::MatMul:
        init_matmul();
        break;
      case Params::Kind::Pool:
        init_pool();
        break;
    }
    init_sum();
  }

  void run(void** args) {
    const Params& p = params_;
    std::unordered_map<int, memory> bound;
    size_t next = 0;
    bound.emplace(DNNL_ARG_SRC, src_.in(stream_, args[next++]));
    if (p.kind != Params::Kind::Pool) bound.emplace(DNNL_ARG_WEIGHTS, weights(args[next++]));
    if (p.bias) bound.emplace(DNNL_ARG_BIAS, memory(bias_desc_, cpu_engine(), args[next++]));
    void* sum_operand = p.sum ? args[next++] : nullptr;
    void* output = args[next];
    memory dst = dst_.target(output);
    if (sum_operand) {
      // The sum post-op adds what dst holds: the Add's other operand.
      memory operand(sum_user_, cpu_engine(), sum_operand);
      if (sum_reorder_)
        sum_reorder_->execute(stream_, operand, dst);
      else
        std::memcpy(dst.get_data_handle(), sum_operand, sum_user_.get_size());
    }
    bound.emplace(DNNL_ARG_DST, dst);
    if (workspace_) bound.emplace(DNNL_ARG_WORKSPACE, *workspace_);
    primitive_->execute(stream_, bound);
    dst_.out(stream_, output);
    stream_.wait();
  }

 private:
  // Weights are parameters: their storage and contents stay for the
  // executor's life, so they are reordered once, on the first run.
  memory weights(void* data) {
    if (weights_data_ != data) {
      memory user(weights_user_, cpu_engine(), data);
      if (weights_user_ == weights_inner_) {
        weights_ = user;
      } else {
        weights_ = memory(weights_inner_, cpu_engine());
        dnnl::reorder(user, *weights_).execute(stream_, user, *weights_);
      }
      weights_data_ = data;
    }
    return *weights_;
  }

  void init_conv() {
    const Params& p = params_;
    // Grouped weights are (g, O/g, I/g, kh, kw) in oneDNN, the same bytes as ONNX's.
    std::vector<int64_t> w = p.weights;
    if (p.group > 1) {
      w[0] /= p.group;
      w.insert(w.begin(), p.group);
    }
    weights_user_ = memory::desc(dims_of(w), DataType::f32, p.group > 1 ? Tag::goihw : Tag::oihw);
    bias_desc_ = memory::desc({p.weights[0]}, DataType::f32, Tag::a);
    const auto desc = dnnl::convolution_forward::desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(p.src), any(w),
        p.bias ? bias_desc_ : memory::desc(), any(p.dst), dims_of(p.strides), dims_of(p.dilations),
        dims_of(p.pad_l), dims_of(p.pad_r));
    const dnnl::convolution_forward::primitive_desc pd(desc, post_ops_attr(p), cpu_engine());
    src_.init(activation(p.src, p.src_nhwc), pd.src_desc(), true);
    dst_.init(activation(p.dst, p.dst_nhwc), pd.dst_desc(), false);
    weights_inner_ = pd.weights_desc();
    primitive_ = dnnl::convolution_forward(pd);
  }

  void init_matmul() {
    const Params& p = params_;
    // weights (K, N), or (N, K) read transposed (Gemm's transB).
    const int64_t k = p.src[1], n = p.dst[1];
    weights_user_ = p.weights_transposed ? memory::desc({k, n}, DataType::f32, Tag::ba)
                                         : memory::desc({k, n}, DataType::f32, Tag::ab);
    bias_desc_ = memory::desc({1, n}, DataType::f32, Tag::ab);
    const auto desc = dnnl::matmul::desc(plain(p.src), any({k, n}),
                                         p.bias ? bias_desc_ : memory::desc(), plain(p.dst));
    const dnnl::matmul::primitive_desc pd(desc, post_ops_attr(p), cpu_engine());
    src_.init(plain(p.src), pd.src_desc(), true);
    dst_.init(plain(p.dst), pd.dst_desc(), false);
    weights_inner_ = pd.weights_desc();
    primitive_ = dnnl::matmul(pd);
  }

  void init_pool() {
    const Params& p = params_;
    const dnnl::algorithm alg = p.pool == "max" ? dnnl::algorithm::pooling_max
                                : p.pool == "avg_include"
                                    ? dnnl::algorithm::pooling_avg_include_padding
                                    : dnnl::algorithm::pooling_avg_exclude_padding;
    // Pooling takes its source's layout as given (no format "any") and
    // writes the same one.
    const auto desc = dnnl::pooling_v2_forward::desc(
        dnnl::prop_kind::forward_inference, alg, activation(p.src, p.src_nhwc),
        activation(p.dst, p.src_nhwc), dims_of(p.strides), dims_of(p.kernel), dims_of(p.dilations),
        dims_of(p.pad_l), dims_of(p.pad_r));
    const dnnl::pooling_v2_forward::primitive_desc pd(desc, cpu_engine());
    src_.init(activation(p.src, p.src_nhwc), pd.src_desc(), true);
    dst_.init(activation(p.dst, p.dst_nhwc), pd.dst_desc(), false);
    if (pd.workspace_desc().get_size()) workspace_ = memory(pd.workspace_desc(), cpu_engine());
    primitive_ = dnnl::pooling_v2_forward(pd);
  }

  // The sum operand's reorder into the primitive's dst layout, when the
  // graph holds it in another.
  void init_sum() {
    if (!params_.sum) return;
    sum_user_ = activation(params_.dst, params_.sum_nhwc);
    if (sum_user_ == dst_.inner) return;
    sum_reorder_ = dnnl::reorder(memory(sum_user_, cpu_engine(), DNNL_MEMORY_NONE),
                                 memory(dst_.inner, cpu_engine(), DNNL_MEMORY_NONE));
  }

  Params params_;
  dnnl::stream stream_;
  memory::desc sum_user_;
  std::optional<dnnl::reorder> sum_reorder_;
  std::optional<dnnl::primitive> primitive_;
  Port src_, dst_;
  memory::desc weights_user_, weights_inner_, bias_desc_;
  std::optional<memory> weights_, workspace_;
  void* weights_data_ = nullptr;
};

void* create(const char* text, char* error, size_t error_size) {
  try {
    return new Kernel(parse_params(text));
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "dnnl: %s", e.what());
  }
  return nullptr;
}

void run(void* kernel, void** args) {
  static_cast<Kernel*>(kernel)->run(args);
}

void destroy(void* kernel) {
  delete static_cast<Kernel*>(kernel);
}

const LatheExternalFunctions kFunctions = {LATHE_EXTERNAL_ABI_VERSION, create, run, destroy};

}  // namespace
}  // namespace lathe::dnnl_plugin

extern "C" __attribute__((visibility("default"))) const LatheExternalFunctions*
lathe_dnnl_functions() {
  return &lathe::dnnl_plugin::kFunctions;
}
