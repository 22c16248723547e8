#include "tune/features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "te/expr_functor.h"
#include "tir/analysis/affine_index.h"

namespace lathe::tune {
namespace {

using te::Expr;
using te::ExprKind;
using te::VarNode;
using tir::AffineIndex;
using tir::ForKind;
using tir::LetValues;
using tir::Stmt;
using tir::StmtKind;

// ---- Layout of the vector ----------------------------------------------------

// The features of one store group, in vector order.
enum StoreFeature : int {
  kFlops,              // log: float and special ops over the whole nest
  kFloatOpsPerIter,    // log: float arithmetic per innermost iteration (all lanes, all copies)
  kSpecialOpsPerIter,  // log: exp, log, tanh ... per innermost iteration
  kIntOpsPerIter,      // log: index arithmetic per innermost iteration
  kVectorLanes,        // lanes of the store
  kLoopDepth,          // loops enclosing the store
  kIterations,         // log: product of the enclosing loops' extents
  kParallelExtent,     // log: product of the enclosing parallel loops' extents (0: none)
  kWorkPerThread,      // log: iterations per parallel iteration
  kUnroll,             // copies an unroll left in the body, times unrolled loops that remain
  kInner0Extent,       // log: extent of the innermost loop
  kInner0Kind,         // loop_kind_code of the innermost loop
  kInner1Extent,
  kInner1Kind,
  kInner2Extent,
  kInner2Kind,
  kLoadsPerIter,       // loads per innermost iteration
  kLoadBytes,          // log: distinct bytes the loads touch over the nest
  kStoreBytes,         // log: distinct bytes the stores touch over the nest
  kArithIntensity,     // log: flops per byte touched
  kContiguousLoads,    // fraction of loads whose innermost stride is 0 or 1
  kStoreStride,        // stride_class of the store
  kLoadReuse,          // log: loaded elements per distinct element loaded
  kMaxLoadReuseBytes,  // log: the largest reuse distance of a load, in bytes
  kStoreReuseBytes,    // log: reuse distance of the stored element (an accumulator's)
  kReductionUpdate,    // 1 when the store reads the element it writes (C = C + ...)
  kGuarded,            // 1 when an if encloses the store
  kStoreToLocal,       // 1 when the stored buffer is allocated inside the kernel
  kStoreBufferBytes,   // log: size of the stored buffer
  kNumStoreFeatures,
};

constexpr const char* kStoreFeatureNames[kNumStoreFeatures] = {
    "flops",
    "float_ops_per_iter",
    "special_ops_per_iter",
    "int_ops_per_iter",
    "vector_lanes",
    "loop_depth",
    "iterations",
    "parallel_extent",
    "work_per_thread",
    "unroll",
    "inner0_extent",
    "inner0_kind",
    "inner1_extent",
    "inner1_kind",
    "inner2_extent",
    "inner2_kind",
    "loads_per_iter",
    "load_bytes",
    "store_bytes",
    "arith_intensity",
    "contiguous_loads",
    "store_stride",
    "load_reuse",
    "max_load_reuse_bytes",
    "store_reuse_bytes",
    "reduction_update",
    "guarded",
    "store_to_local",
    "store_buffer_bytes",
};

// The most expensive store groups described one by one.
constexpr int kStoreGroups = 3;

enum KernelFeature : int {
  kKernelFlops,           // log
  kKernelBytes,           // log: bytes all store groups touch
  kKernelArithIntensity,  // log: flops per byte
  kKernelStoreGroups,
  kKernelStores,  // log: store statements, unrolled copies included
  kKernelLoops,
  kKernelParallelLoops,
  kKernelMaxParallel,  // log: the largest parallel extent
  kKernelMaxLanes,
  kKernelAllocBytes,  // log: bytes the kernel allocates
  kKernelAllocs,
  kKernelMaxDepth,
  kKernelGuardedFraction,  // fraction of stores under an if
  kKernelPrefetches,       // log: cache lines prefetched (llvm.prefetch calls run)
  kNumKernelFeatures,
};

constexpr const char* kKernelFeatureNames[kNumKernelFeatures] = {
    "flops",  "bytes",          "arith_intensity",     "store_groups",     "stores",
    "loops",  "parallel_loops", "max_parallel_extent", "max_vector_lanes", "alloc_bytes",
    "allocs", "max_loop_depth", "guarded_fraction",    "prefetches",
};

float log_count(double x) {
  return static_cast<float>(std::log2(1.0 + std::max(0.0, x)));
}

// Trees split on thresholds, so an ordinal code serves as well as one-hot.
float loop_kind_code(ForKind k) {
  switch (k) {
    case ForKind::Serial:
      return 1;
    case ForKind::Parallel:
      return 2;
    case ForKind::Vectorized:  // a vectorized loop the vectorizer could not widen
      return 3;
    case ForKind::Unrolled:  // an unrolled loop of non-constant extent
      return 4;
    case ForKind::ThreadBinding:
      return 5;
  }
  return 0;
}

// 0: the same element every iteration, 1: contiguous, 2: strided, 3: unknown.
enum StrideClass : int { kInvariant, kContiguous, kStrided, kUnknownStride };

// ---- Affine view of an index -------------------------------------------------

// ---- Walk --------------------------------------------------------------------

struct Loop {
  const VarNode* var;
  int64_t extent;
  ForKind kind;
};

// A loop's trip count; a partitioned tail's min(c, n - i) counts as c.
int64_t extent_of(const Expr& e) {
  if (const int64_t* c = te::as_const_int(e)) return std::max<int64_t>(*c, 0);
  if (e.kind() == ExprKind::Min) {
    const auto* b = e.as<te::BinaryNode>();
    if (const int64_t* c = te::as_const_int(b->a)) return *c;
    if (const int64_t* c = te::as_const_int(b->b)) return *c;
  }
  return 1;
}

struct BufferInfo {
  double bytes = 0;
  bool local = false;
};

// One access of a store group: what it touches over the loop nest.
struct AccessShape {
  double distinct_elements = 1;  // under all enclosing loops
  double reuse_bytes = 0;        // bytes touched between two uses of one element
  StrideClass stride = kInvariant;
};

// The stores to one buffer under one loop nest. Unrolled copies of a body keep
// the inner loops' variables and extents, so they land in one group; a
// partitioned tail runs under other extents and makes its own.
struct StoreGroup {
  std::vector<Loop> loops;  // outermost first
  double iterations = 1;
  int copies = 0;
  double float_ops = 0, special_ops = 0, int_ops = 0;  // per innermost iteration
  int lanes = 1;
  bool guarded = false, reduction = false, local = false;
  double buffer_bytes = 0;
  int loads = 0, contiguous_loads = 0;
  double load_elements = 0;                // elements the loads read over the nest
  double load_bytes = 0, store_bytes = 0;  // distinct bytes touched
  double max_load_reuse_bytes = 0, store_reuse_bytes = 0;
  StrideClass store_stride = kInvariant;
  // Affine accesses already counted: an unrolled copy re-reading A[i, k]
  // touches nothing new.
  std::set<std::vector<int64_t>> seen;

  double flops() const { return (float_ops + special_ops) * iterations; }
  double cost() const { return iterations * (float_ops + special_ops + loads + 1); }
};

// Identifies an affine access, for deduplication; empty when not affine. A
// load and a store of one element are different traffic, so `store` is part of it.
std::vector<int64_t> access_key(const VarNode* buffer, const AffineIndex& index, bool store) {
  if (!index.affine()) return {};
  std::vector<std::pair<const VarNode*, int64_t>> coeffs = index.coeffs;
  std::sort(coeffs.begin(), coeffs.end());
  std::vector<int64_t> key = {store, reinterpret_cast<intptr_t>(buffer), index.offset,
                              index.lane_stride};
  for (const auto& [v, c] : coeffs)
    if (c != 0) key.insert(key.end(), {reinterpret_cast<intptr_t>(v), c});
  return key;
}

AccessShape shape_of(const AffineIndex& index, int lanes, int elem_bytes,
                     const std::vector<Loop>& loops, double buffer_elements) {
  AccessShape s;
  double cap = buffer_elements > 0 ? buffer_elements : HUGE_VAL;
  double lane_elements = lanes > 1 && index.lane_stride != 0 ? lanes : 1;
  // Distinct elements under the loops inside position l, innermost first; the
  // innermost loop the index does not depend on reuses what they touched.
  double inner = lane_elements;
  bool reuse_found = false;
  for (size_t l = loops.size(); l-- > 0;) {
    if (index.depends_on(loops[l].var)) {
      inner *= static_cast<double>(loops[l].extent);
    } else if (!reuse_found && loops[l].extent > 1) {
      reuse_found = true;
      s.reuse_bytes = std::min(inner, cap) * elem_bytes;
    }
  }
  s.distinct_elements = std::min(inner, cap);

  int64_t stride = 0;
  bool known = true;
  if (lanes > 1) {
    stride = index.lane_stride;
    known = index.lane_stride_known;
  } else if (!loops.empty()) {
    stride = index.coeff(loops.back().var);
    known = !index.is_opaque(loops.back().var);
  }
  s.stride = !known                          ? kUnknownStride
             : stride == 0                   ? kInvariant
             : (stride == 1 || stride == -1) ? kContiguous
                                             : kStrided;
  return s;
}

class FeatureWalker {
 public:
  explicit FeatureWalker(const tir::PrimFunc& func) {
    for (const tir::Buffer& b : func.params)
      buffers_[b.data.node()] = {static_cast<double>(b.numel()) * b.dtype.bytes(), false};
    walk(func.body);
  }

  std::vector<StoreGroup>& groups() { return groups_; }
  int stores() const { return stores_; }
  int guarded_stores() const { return guarded_stores_; }
  int loops() const { return loops_; }
  int parallel_loops() const { return parallel_loops_; }
  double max_parallel() const { return max_parallel_; }
  double alloc_bytes() const { return alloc_bytes_; }
  int allocs() const { return allocs_; }
  double prefetches() const { return prefetches_; }

 private:
  void walk(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* f = s.as<tir::ForNode>();
        Loop loop{f->loop_var.node(), extent_of(f->extent), f->kind};
        ++loops_;
        if (loop.kind == ForKind::Parallel || loop.kind == ForKind::ThreadBinding) {
          ++parallel_loops_;
          max_parallel_ = std::max(max_parallel_, static_cast<double>(loop.extent));
        }
        stack_.push_back(loop);
        walk(f->body);
        stack_.pop_back();
        return;
      }
      case StmtKind::Store:
        return visit_store(s.as<tir::StoreNode>());
      case StmtKind::Allocate: {
        const auto* a = s.as<tir::AllocateNode>();
        double elements = 1;
        for (const Expr& e : a->extents) elements *= static_cast<double>(extent_of(e));
        buffers_[a->buffer.node()] = {elements * a->dtype.bytes(), true};
        alloc_bytes_ += elements * a->dtype.bytes();
        ++allocs_;
        return walk(a->body);
      }
      case StmtKind::Seq:
        for (const Stmt& c : s.as<tir::SeqNode>()->seq) walk(c);
        return;
      case StmtKind::IfThenElse: {
        const auto* i = s.as<tir::IfThenElseNode>();
        ++guard_depth_;
        walk(i->then_case);
        walk(i->else_case);
        --guard_depth_;
        return;
      }
      case StmtKind::LetStmt: {
        const auto* l = s.as<tir::LetStmtNode>();
        lets_[l->var.node()] = l->value;
        walk(l->body);
        lets_.erase(l->var.node());
        return;
      }
      case StmtKind::AttrStmt:
        return walk(s.as<tir::AttrStmtNode>()->body);
      case StmtKind::ProducerRealize:
        return walk(s.as<tir::ProducerRealizeNode>()->body);
      case StmtKind::Evaluate: {
        const auto* call = s.as<tir::EvaluateNode>()->value.as<te::CallNode>();
        if (call && call->op == te::Intrinsic::Prefetch) {
          double runs = 1;
          for (const Loop& l : stack_) runs *= static_cast<double>(l.extent);
          prefetches_ += runs;
        }
        return;
      }
      default:  // ProducerStore of a kernel that was never flattened
        return;
    }
  }

  StoreGroup& group_of(const VarNode* buffer) {
    std::vector<intptr_t> key = {reinterpret_cast<intptr_t>(buffer)};
    for (const Loop& l : stack_)
      key.insert(key.end(), {reinterpret_cast<intptr_t>(l.var), l.extent});
    auto [it, inserted] = group_index_.try_emplace(std::move(key), groups_.size());
    if (!inserted) return groups_[it->second];
    StoreGroup& g = groups_.emplace_back();
    g.loops = stack_;
    for (const Loop& l : stack_) g.iterations *= static_cast<double>(l.extent);
    const BufferInfo& info = buffer_info(buffer);
    g.local = info.local;
    g.buffer_bytes = info.bytes;
    return g;
  }

  const BufferInfo& buffer_info(const VarNode* buffer) {
    static const BufferInfo unknown;
    auto it = buffers_.find(buffer);
    return it == buffers_.end() ? unknown : it->second;
  }

  void visit_store(const tir::StoreNode* n) {
    ++stores_;
    guarded_stores_ += guard_depth_ > 0;
    const VarNode* buffer = n->buffer.node();
    StoreGroup& g = group_of(buffer);
    ++g.copies;
    g.guarded |= guard_depth_ > 0;
    int lanes = std::max(n->value.type().lanes, n->index.type().lanes);
    g.lanes = std::max(g.lanes, lanes);

    AffineIndex index = tir::affine_index(n->index, lets_);
    std::vector<int64_t> store_key = access_key(buffer, index, true);
    count_ops(n->index, g);
    te::visit_expr(n->value, [&](const Expr& e) {
      count_op(e, g);
      if (const auto* load = e.as<te::LoadNode>()) {
        AffineIndex li = tir::affine_index(load->index, lets_);
        std::vector<int64_t> key = access_key(load->buffer.node(), li, false);
        if (!key.empty() && !store_key.empty() &&
            std::equal(key.begin() + 1, key.end(), store_key.begin() + 1, store_key.end()))
          g.reduction = true;
        add_load(g, load, li, key);
      }
    });

    int elem_bytes = n->value.type().bytes();
    if (store_key.empty() || g.seen.insert(store_key).second) {
      AccessShape s = shape_of(index, lanes, elem_bytes, g.loops, elements_of(buffer, elem_bytes));
      g.store_bytes += s.distinct_elements * elem_bytes;
      g.store_reuse_bytes = std::max(g.store_reuse_bytes, s.reuse_bytes);
      g.store_stride = std::max(g.store_stride, s.stride);
    }
  }

  void add_load(StoreGroup& g, const te::LoadNode* load, const AffineIndex& index,
                const std::vector<int64_t>& key) {
    int lanes = load->type.lanes;
    int elem_bytes = load->type.bytes();
    ++g.loads;
    g.load_elements += g.iterations * lanes;
    AccessShape s =
        shape_of(index, lanes, elem_bytes, g.loops, elements_of(load->buffer.node(), elem_bytes));
    g.contiguous_loads += s.stride == kInvariant || s.stride == kContiguous;
    if (key.empty() || g.seen.insert(key).second) {
      g.load_bytes += s.distinct_elements * elem_bytes;
      g.max_load_reuse_bytes = std::max(g.max_load_reuse_bytes, s.reuse_bytes);
    }
  }

  double elements_of(const VarNode* buffer, int elem_bytes) {
    return buffer_info(buffer).bytes / std::max(1, elem_bytes);
  }

  static void count_ops(const Expr& e, StoreGroup& g) {
    te::visit_expr(e, [&](const Expr& x) { count_op(x, g); });
  }

  static void count_op(const Expr& e, StoreGroup& g) {
    double lanes = e.type().lanes;
    ExprKind k = e.kind();
    // A Select is a blend (padding's), no arithmetic: only its condition counts.
    if (te::is_binary(k)) {
      (e.type().is_float() ? g.float_ops : g.int_ops) += lanes;
    } else if (const auto* call = e.as<te::CallNode>()) {
      switch (call->op) {
        case te::Intrinsic::Fma:
          g.float_ops += 2 * lanes;
          break;
        case te::Intrinsic::Abs:
        case te::Intrinsic::Floor:
        case te::Intrinsic::Ceil:
        case te::Intrinsic::Round:
          (e.type().is_float() ? g.float_ops : g.int_ops) += lanes;
          break;
        case te::Intrinsic::ShiftLeft:
        case te::Intrinsic::ShiftRight:
        case te::Intrinsic::BitwiseAnd:
        case te::Intrinsic::BitwiseOr:
        case te::Intrinsic::BitwiseXor:
        case te::Intrinsic::BitwiseNot:
          g.int_ops += lanes;
          break;
        default:  // transcendental: many instructions each
          g.special_ops += lanes;
          break;
      }
    }
  }

  std::vector<Loop> stack_;
  LetValues lets_;
  int guard_depth_ = 0;
  std::unordered_map<const VarNode*, BufferInfo> buffers_;
  std::map<std::vector<intptr_t>, size_t> group_index_;  // buffer, then (var, extent) per loop
  std::vector<StoreGroup> groups_;
  int stores_ = 0, guarded_stores_ = 0, loops_ = 0, parallel_loops_ = 0, allocs_ = 0;
  double max_parallel_ = 0, alloc_bytes_ = 0, prefetches_ = 0;
};

void describe_group(const StoreGroup& g, float* out) {
  double parallel = 1, unrolled = 1;
  bool has_parallel = false;
  for (const Loop& l : g.loops) {
    if (l.kind == ForKind::Parallel || l.kind == ForKind::ThreadBinding) {
      parallel *= static_cast<double>(l.extent);
      has_parallel = true;
    }
    if (l.kind == ForKind::Unrolled) unrolled *= static_cast<double>(l.extent);
  }
  double bytes = g.load_bytes + g.store_bytes;
  out[kFlops] = log_count(g.flops());
  out[kFloatOpsPerIter] = log_count(g.float_ops);
  out[kSpecialOpsPerIter] = log_count(g.special_ops);
  out[kIntOpsPerIter] = log_count(g.int_ops);
  out[kVectorLanes] = static_cast<float>(g.lanes);
  out[kLoopDepth] = static_cast<float>(g.loops.size());
  out[kIterations] = log_count(g.iterations);
  out[kParallelExtent] = has_parallel ? log_count(parallel) : 0.0f;
  out[kWorkPerThread] = log_count(g.iterations / std::max(1.0, parallel));
  out[kUnroll] = static_cast<float>(g.copies * unrolled);
  for (int i = 0; i < 3; ++i) {
    if (static_cast<size_t>(i) >= g.loops.size()) break;
    const Loop& l = g.loops[g.loops.size() - 1 - i];
    out[kInner0Extent + 2 * i] = log_count(static_cast<double>(l.extent));
    out[kInner0Kind + 2 * i] = loop_kind_code(l.kind);
  }
  out[kLoadsPerIter] = static_cast<float>(g.loads);
  out[kLoadBytes] = log_count(g.load_bytes);
  out[kStoreBytes] = log_count(g.store_bytes);
  out[kArithIntensity] = log_count(bytes > 0 ? g.flops() / bytes : 0);
  out[kContiguousLoads] = g.loads ? static_cast<float>(g.contiguous_loads) / g.loads : 1.0f;
  out[kStoreStride] = static_cast<float>(g.store_stride);
  out[kLoadReuse] = log_count(g.load_bytes > 0 ? g.load_elements / std::max(1.0, g.load_bytes) : 0);
  out[kMaxLoadReuseBytes] = log_count(g.max_load_reuse_bytes);
  out[kStoreReuseBytes] = log_count(g.store_reuse_bytes);
  out[kReductionUpdate] = g.reduction;
  out[kGuarded] = g.guarded;
  out[kStoreToLocal] = g.local;
  out[kStoreBufferBytes] = log_count(g.buffer_bytes);
}

}  // namespace

int num_features() {
  return kStoreGroups * kNumStoreFeatures + kNumKernelFeatures;
}

std::vector<std::string> feature_names() {
  std::vector<std::string> names;
  names.reserve(num_features());
  for (int g = 0; g < kStoreGroups; ++g)
    for (const char* n : kStoreFeatureNames) names.push_back("store" + std::to_string(g) + "." + n);
  for (const char* n : kKernelFeatureNames) names.push_back(std::string("kernel.") + n);
  return names;
}

std::vector<float> extract_features(const tir::PrimFunc& func) {
  std::vector<float> out(num_features(), 0.0f);
  FeatureWalker walker(func);
  std::vector<StoreGroup>& groups = walker.groups();

  double flops = 0, bytes = 0;
  int max_lanes = 0, max_depth = 0;
  for (const StoreGroup& g : groups) {
    flops += g.flops();
    bytes += g.load_bytes + g.store_bytes;
    max_lanes = std::max(max_lanes, g.lanes);
    max_depth = std::max(max_depth, static_cast<int>(g.loops.size()));
  }

  std::vector<const StoreGroup*> order;
  for (const StoreGroup& g : groups) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(),
                   [](const StoreGroup* a, const StoreGroup* b) { return a->cost() > b->cost(); });
  for (int i = 0; i < kStoreGroups && static_cast<size_t>(i) < order.size(); ++i)
    describe_group(*order[i], out.data() + i * kNumStoreFeatures);

  float* k = out.data() + kStoreGroups * kNumStoreFeatures;
  k[kKernelFlops] = log_count(flops);
  k[kKernelBytes] = log_count(bytes);
  k[kKernelArithIntensity] = log_count(bytes > 0 ? flops / bytes : 0);
  k[kKernelStoreGroups] = static_cast<float>(groups.size());
  k[kKernelStores] = log_count(walker.stores());
  k[kKernelLoops] = static_cast<float>(walker.loops());
  k[kKernelParallelLoops] = static_cast<float>(walker.parallel_loops());
  k[kKernelMaxParallel] = log_count(walker.max_parallel());
  k[kKernelMaxLanes] = static_cast<float>(max_lanes);
  k[kKernelAllocBytes] = log_count(walker.alloc_bytes());
  k[kKernelAllocs] = static_cast<float>(walker.allocs());
  k[kKernelMaxDepth] = static_cast<float>(max_depth);
  k[kKernelGuardedFraction] =
      walker.stores() ? static_cast<float>(walker.guarded_stores()) / walker.stores() : 0.0f;
  k[kKernelPrefetches] = log_count(walker.prefetches());

  // Counts past float range (or a NaN from a degenerate nest) must not reach XGBoost.
  for (float& v : out)
    if (!std::isfinite(v)) v = 0.0f;
  return out;
}

}  // namespace lathe::tune
