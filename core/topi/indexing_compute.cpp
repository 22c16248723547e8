// Compute definitions of the indexing ops: element and N-D gathers, scatters
// (with compile-time constant indices, the map from output position to
// update becomes a table; with runtime indices, each output position reduces
// over the index positions that target it), OneHot, Trilu, EyeLike, and the opaque ops that
// are reductions along one axis (CumSum, Hardmax, MeanVarianceNormalization).
// TopK, K selection stages, is in extra_compute.cpp.
#include <string>

#include "topi/compute_util.h"

namespace lathe::topi {
namespace {

using detail::as_exprs;
using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI64 = DataType::Int(64);

te::Tensor injective(const ComputeContext& ctx,
                     const std::function<Expr(const std::vector<Expr>&)>& read,
                     const std::string& tag = "injective") {
  return te::compute(
      detail::out_shape(ctx), [&](const std::vector<Var>& i) { return read(as_exprs(i)); },
      ctx.name(), {}, tag);
}

// An index read from an index tensor, negative counting from the back and
// clamped into [0, n) so that a bad index cannot read outside the tensor.
Expr wrap_index(const Expr& k, int64_t n) {
  Expr v = te::cast(kI64, k);
  Expr wrapped = te::select(v < te::make_int(0, kI64), v + te::make_int(n, kI64), v);
  return te::min(te::max(wrapped, te::make_int(0, kI64)),
                 te::make_int(std::max<int64_t>(n - 1, 0), kI64));
}

std::vector<te::Tensor> gather_elements(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  te::Tensor indices = ctx.input(1);
  const size_t axis = static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), x.ndim()));
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    std::vector<Expr> index = i;
    index[axis] = wrap_index(indices(i), x.shape()[axis]);
    return x(index);
  })};
}

std::vector<te::Tensor> gather_nd(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  te::Tensor indices = ctx.input(1);
  const size_t b = static_cast<size_t>(ctx.attrs().get_int("batch_dims", 0));
  const size_t q = static_cast<size_t>(indices.ndim());
  const int64_t m = indices.shape().back();
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    // Output: the tuples' positions (q - 1 dimensions, batch first), then the
    // slice each tuple selects.
    std::vector<Expr> tuple(i.begin(), i.begin() + static_cast<long>(q - 1));
    std::vector<Expr> index(i.begin(), i.begin() + static_cast<long>(b));
    for (int64_t j = 0; j < m; ++j) {
      std::vector<Expr> at = tuple;
      at.push_back(te::make_int(j));
      index.push_back(wrap_index(indices(at), x.shape()[b + static_cast<size_t>(j)]));
    }
    index.insert(index.end(), i.begin() + static_cast<long>(q - 1), i.end());
    return x(index);
  })};
}

// ---- Scatters with constant indices ---------------------------------------
// Each update element u lands at data offset offsets[u]. Layer L maps a data
// offset to the L-th update that reaches it (-1: none); without reduction
// only the last update counts, as it overwrites the others.

int64_t wrap_constant(int64_t k, int64_t n, const ComputeContext& ctx) {
  if (k < -n || k >= n)
    throw Error(describe_node(ctx.node()) + ": index " + std::to_string(k) +
                " is out of range for an axis of size " + std::to_string(n));
  return k < 0 ? k + n : k;
}

std::vector<te::Tensor> scatter(const ComputeContext& ctx, const std::vector<int64_t>& offsets) {
  te::Tensor data = ctx.input(0);
  te::Tensor updates = ctx.input(2);
  const std::string reduction = ctx.attrs().get_string("reduction", "none");
  const int64_t size = shape_numel(data.shape());
  std::vector<std::vector<int64_t>> layers;
  std::vector<size_t> depth(static_cast<size_t>(size), 0);
  for (size_t u = 0; u < offsets.size(); ++u) {
    size_t p = static_cast<size_t>(offsets[u]);
    size_t layer = reduction == "none" ? 0 : depth[p]++;
    if (layer == layers.size()) layers.emplace_back(static_cast<size_t>(size), -1);
    layers[layer][p] = static_cast<int64_t>(u);
  }
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    Expr value = data(i);
    Expr flat = detail::flat_index(data.shape(), i);
    for (const std::vector<int64_t>& layer : layers) {
      Expr u = detail::table_lookup(layer, flat);
      Expr update = updates(detail::unflatten(updates.shape(), u));
      Expr combined = update;
      if (reduction == "add") combined = value + update;
      if (reduction == "mul") combined = value * update;
      if (reduction == "max") combined = te::max(value, update);
      if (reduction == "min") combined = te::min(value, update);
      value = te::select(u >= te::make_int(0, kI64), combined, value);
    }
    return value;
  })};
}

std::vector<int64_t> constant_indices(const ComputeContext& ctx) {
  return ctx.require_constant(1, "indices (for a scatter)").to_int64_vector();
}

// ---- Scatters with indices known only at run time ----------------------------
// Gathers instead of writes: output position p reduces over the index
// positions k (reduce axes of `extents`) whose index targets p, in the
// reference's update order (k row-major). Without reduction the last match
// wins: its position is a max-reduction, then a select reads its update; the
// other reductions combine every matching update with data[p].

struct RuntimeScatter {
  std::vector<int64_t> extents;  // of the index positions k
  // Whether index position k targets output position p.
  std::function<Expr(const std::vector<Expr>& p, const std::vector<Expr>& k)> match;
  // The element of updates that index position k writes to p.
  std::function<std::vector<Expr>(const std::vector<Expr>& p, const std::vector<Expr>& k)> update;
};

std::vector<te::Tensor> scatter_runtime(const ComputeContext& ctx, const RuntimeScatter& spec) {
  te::Tensor data = ctx.input(0);
  te::Tensor updates = ctx.input(2);
  const std::string reduction = ctx.attrs().get_string("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    throw Error(describe_node(ctx.node()) + ": unknown reduction '" + reduction + "'");
  if (shape_numel(spec.extents) == 0)
    return {injective(ctx, [&](const std::vector<Expr>& i) { return data(i); })};
  std::vector<IterVar> ks;
  std::vector<Expr> k;
  for (size_t d = 0; d < spec.extents.size(); ++d) {
    std::string name = "k";
    name += std::to_string(d);
    ks.push_back(te::reduce_axis(spec.extents[d], name));
    k.push_back(ks.back().var());
  }
  const DataType t = data.dtype();
  auto stage = [&](const std::string& suffix,
                   const std::function<Expr(const std::vector<Expr>&)>& body) {
    return te::compute(
        data.shape(), [&](const std::vector<Var>& i) { return body(as_exprs(i)); },
        ctx.name(suffix), {}, "comm_reduce");
  };
  if (reduction == "none") {
    te::Tensor last = stage("last", [&](const std::vector<Expr>& p) {
      Expr position = detail::flat_index(spec.extents, k);
      return te::max(te::select(spec.match(p, k), position, te::make_int(-1, kI64)), ks);
    });
    return {injective(ctx, [&](const std::vector<Expr>& p) {
      Expr j = last(p);
      std::vector<Expr> at = detail::unflatten(spec.extents, te::max(j, te::make_int(0, kI64)));
      return te::select(j >= te::make_int(0, kI64), updates(spec.update(p, at)), data(p));
    })};
  }
  if (reduction == "max" || reduction == "min") {
    // Non-matching positions contribute data[p], which the result includes
    // anyway: max(data[p], max over matches) without a count of matches.
    const bool is_max = reduction == "max";
    te::Tensor best = stage(reduction, [&](const std::vector<Expr>& p) {
      Expr v = te::select(spec.match(p, k), updates(spec.update(p, k)), data(p));
      return is_max ? te::max(v, ks) : te::min(v, ks);
    });
    return {injective(ctx, [&](const std::vector<Expr>& p) {
      return is_max ? te::max(data(p), best(p)) : te::min(data(p), best(p));
    })};
  }
  // Integers accumulate in 64 bits, whose wrapping narrows to the reference's
  // update-by-update wrapping; floats in their own type.
  const DataType acc = t.is_float() ? t : (t.is_uint() ? DataType::UInt(64) : kI64);
  const bool add = reduction == "add";
  te::Tensor combined = stage(reduction, [&](const std::vector<Expr>& p) {
    Expr u = te::cast(acc, updates(spec.update(p, k)));
    Expr v = te::select(spec.match(p, k), u, add ? te::make_zero(acc) : te::make_one(acc));
    return add ? te::sum(v, ks) : te::prod(v, ks);
  });
  return {injective(ctx, [&](const std::vector<Expr>& p) {
    Expr d = te::cast(acc, data(p));
    return te::cast(t, add ? d + combined(p) : d * combined(p));
  })};
}

// ScatterElements: k runs along the axis; p's other coordinates pick the
// index row, and must lie inside indices (which may be smaller than data).
std::vector<te::Tensor> scatter_elements_runtime(const ComputeContext& ctx) {
  te::Tensor data = ctx.input(0);
  te::Tensor indices = ctx.input(1);
  const size_t axis =
      static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), data.ndim()));
  const std::vector<int64_t>& is = indices.shape();
  const int64_t n = data.shape()[axis];
  if (shape_numel(is) == 0)
    return {injective(ctx, [&](const std::vector<Expr>& i) { return data(i); })};
  auto row = [&](const std::vector<Expr>& p, const std::vector<Expr>& k) {
    std::vector<Expr> at = p;
    for (size_t d = 0; d < at.size(); ++d)
      if (d != axis && is[d] < data.shape()[d])
        at[d] = te::min(at[d], te::make_int(is[d] - 1, at[d].type()));
    at[axis] = k[0];
    return at;
  };
  RuntimeScatter spec;
  spec.extents = {is[axis]};
  spec.match = [&](const std::vector<Expr>& p, const std::vector<Expr>& k) {
    Expr hit = wrap_index(indices(row(p, k)), n) == te::cast(kI64, p[axis]);
    for (size_t d = 0; d < p.size(); ++d)
      if (d != axis && is[d] < data.shape()[d])
        hit = hit && p[d] < te::make_int(is[d], p[d].type());
    return hit;
  };
  spec.update = row;
  return scatter_runtime(ctx, spec);
}

// ScatterND: k runs over the index tuples (indices.shape[:-1]); tuple k
// targets p when its q entries equal p's q leading coordinates, and writes
// the update at (k, p[q:]).
std::vector<te::Tensor> scatter_nd_runtime(const ComputeContext& ctx) {
  te::Tensor data = ctx.input(0);
  te::Tensor indices = ctx.input(1);
  const std::vector<int64_t>& is = indices.shape();
  const size_t q = static_cast<size_t>(is.back());
  RuntimeScatter spec;
  spec.extents.assign(is.begin(), is.end() - 1);
  spec.match = [&](const std::vector<Expr>& p, const std::vector<Expr>& k) {
    Expr hit;
    for (size_t c = 0; c < q; ++c) {
      std::vector<Expr> at = k;
      at.push_back(te::make_int(static_cast<int64_t>(c)));
      Expr eq = wrap_index(indices(at), data.shape()[c]) == te::cast(kI64, p[c]);
      hit = hit.defined() ? hit && eq : eq;
    }
    return hit.defined() ? hit : te::make_int(1, DataType::Bool());
  };
  spec.update = [&](const std::vector<Expr>& p, const std::vector<Expr>& k) {
    std::vector<Expr> at = k;
    at.insert(at.end(), p.begin() + static_cast<long>(q), p.end());
    return at;
  };
  return scatter_runtime(ctx, spec);
}

std::vector<te::Tensor> scatter_elements(const ComputeContext& ctx) {
  if (!ctx.constant(1)) return scatter_elements_runtime(ctx);
  const std::vector<int64_t> idx = constant_indices(ctx);
  const std::vector<int64_t>& data = ctx.input_type(0).shape;
  const std::vector<int64_t>& shape = ctx.input_type(1).shape;
  const size_t axis = static_cast<size_t>(
      normalize_axis(ctx.attrs().get_int("axis", 0), static_cast<int>(data.size())));
  const std::vector<int64_t> strides = shape_strides(data);
  std::vector<int64_t> pos(shape.size(), 0), offsets;
  for (int64_t k : idx) {
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      off += (d == axis ? wrap_constant(k, data[d], ctx) : pos[d]) * strides[d];
    offsets.push_back(off);
    for (size_t d = pos.size(); d-- > 0;) {
      if (++pos[d] < shape[d]) break;
      pos[d] = 0;
    }
  }
  return scatter(ctx, offsets);
}

std::vector<te::Tensor> scatter_nd(const ComputeContext& ctx) {
  if (!ctx.constant(1)) return scatter_nd_runtime(ctx);
  const std::vector<int64_t> idx = constant_indices(ctx);
  const std::vector<int64_t>& data = ctx.input_type(0).shape;
  const std::vector<int64_t>& shape = ctx.input_type(1).shape;
  const size_t m = static_cast<size_t>(shape.back());
  const std::vector<int64_t> strides = shape_strides(data);
  int64_t block = 1;
  for (size_t d = m; d < data.size(); ++d) block *= data[d];
  int64_t tuples = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) tuples *= shape[d];
  std::vector<int64_t> offsets;
  for (size_t t = 0; t < static_cast<size_t>(tuples); ++t) {
    int64_t off = 0;
    for (size_t j = 0; j < m; ++j) off += wrap_constant(idx[t * m + j], data[j], ctx) * strides[j];
    for (int64_t e = 0; e < block; ++e) offsets.push_back(off + e);
  }
  return scatter(ctx, offsets);
}

// ---- OneHot, Trilu, EyeLike -------------------------------------------------

std::vector<te::Tensor> one_hot(const ComputeContext& ctx) {
  te::Tensor indices = ctx.input(0);
  DataType t = detail::out_dtype(ctx);
  const std::vector<int64_t> out = detail::out_shape(ctx);
  const size_t axis = static_cast<size_t>(
      normalize_axis(ctx.attrs().get_int("axis", -1), static_cast<int>(out.size())));
  const int64_t depth = out[axis];
  Expr off, on;
  if (ctx.has_input(2)) {
    off = ctx.input(2)(te::make_int(0));
    on = ctx.input(2)(te::make_int(1));
  } else {
    const lathe::Tensor& values = ctx.require_constant(2, "values");
    off = detail::constant_element(values, 0, t);
    on = detail::constant_element(values, 1, t);
  }
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    std::vector<Expr> at = i;
    at.erase(at.begin() + static_cast<long>(axis));
    Expr k = indices(at);
    // Float indices truncate, as onnxruntime; out-of-range ones match no class.
    Expr valid, cls;
    if (k.type().is_float()) {
      Expr zero = te::make_zero(k.type());
      Expr whole = te::select(k < zero, te::ceil(k), te::floor(k));
      valid = whole >= te::make_const(k.type(), double(-depth)) &&
              whole < te::make_const(k.type(), double(depth));
      cls = te::cast(kI64, te::select(valid, whole, zero));
    } else {
      cls = te::cast(kI64, k);
      if (k.type().is_uint()) {
        valid = k < te::make_int(depth, k.type());
      } else {
        valid = cls >= te::make_int(-depth, kI64) && cls < te::make_int(depth, kI64);
      }
    }
    cls = te::select(cls < te::make_int(0, kI64), cls + te::make_int(depth, kI64), cls);
    return te::select(valid && cls == te::cast(kI64, i[axis]), on, off);
  })};
}

std::vector<te::Tensor> trilu(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const bool upper = ctx.attrs().get_int("upper", 1) != 0;
  Expr k = detail::scalar_operand(ctx, 1, kI64);
  k = k.defined() ? te::cast(kI64, k) : te::make_int(0, kI64);
  const size_t r = static_cast<size_t>(x.ndim());
  DataType t = x.dtype();
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    // Diagonal k holds the elements with j - i == k.
    Expr diagonal = te::cast(kI64, i[r - 1]) - te::cast(kI64, i[r - 2]);
    Expr keep = upper ? diagonal >= k : diagonal <= k;
    return te::select(keep, x(i), te::make_zero(t));
  })};
}

std::vector<te::Tensor> eye_like(const ComputeContext& ctx) {
  const int64_t k = ctx.attrs().get_int("k", 0);
  DataType t = detail::out_dtype(ctx);
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    Expr diagonal = te::cast(kI64, i[1]) - te::cast(kI64, i[0]) == te::make_int(k, kI64);
    return te::select(diagonal, te::make_one(t), te::make_zero(t));
  })};
}

// ---- Reductions along one axis ----------------------------------------------

// The running sum as a reduction over the whole axis with a condition on the
// position: O(n^2) along the axis, which CumSum's usual lengths afford.
std::vector<te::Tensor> cumsum(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const lathe::Tensor& axis_value = ctx.require_constant(1, "axis");
  const size_t axis =
      static_cast<size_t>(normalize_axis(axis_value.to_int64_vector().at(0), x.ndim()));
  const bool exclusive = ctx.attrs().get_int("exclusive", 0) != 0;
  const bool reverse = ctx.attrs().get_int("reverse", 0) != 0;
  IterVar k = te::reduce_axis(x.shape()[axis], "k");
  return {injective(
      ctx,
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> at = i;
        at[axis] = k.var();
        Expr r = k.var(), j = i[axis];
        Expr taken = reverse ? (exclusive ? r > j : r >= j) : (exclusive ? r < j : r <= j);
        return te::sum(te::select(taken, x(at), te::make_zero(x.dtype())), {k});
      },
      "comm_reduce")};
}

// One-hot of the first maximum along the axis: the maximum, then its first
// position, then the comparison.
std::vector<te::Tensor> hardmax(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const size_t axis =
      static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", -1), x.ndim()));
  std::vector<int64_t> kept = x.shape();
  kept[axis] = 1;
  const int64_t n = x.shape()[axis];
  IterVar k = te::reduce_axis(n, "k");
  auto along = [&](const std::vector<Var>& i) {
    std::vector<Expr> at = as_exprs(i);
    at[axis] = k.var();
    return at;
  };
  te::Tensor extreme = te::compute(
      kept, [&](const std::vector<Var>& i) { return te::max(x(along(i)), {k}); }, ctx.name("max"),
      {}, "comm_reduce");
  IterVar k2 = te::reduce_axis(n, "k");
  te::Tensor first = te::compute(
      kept,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at = as_exprs(i);
        at[axis] = k2.var();
        Expr hit = x(at) == extreme(as_exprs(i));
        return te::min(te::select(hit, k2.var(), te::make_int(n)), {k2});
      },
      ctx.name("first"), {}, "comm_reduce");
  return {injective(ctx, [&](const std::vector<Expr>& i) {
    std::vector<Expr> at = i;
    at[axis] = te::make_int(0);
    return te::select(first(at) == i[axis], te::make_one(x.dtype()), te::make_zero(x.dtype()));
  })};
}

// (x - E[x]) / (sqrt(max(0, E[x^2] - E[x]^2)) + 1e-9), with the moments in
// double as the reference computes them.
std::vector<te::Tensor> mean_variance_normalization(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const size_t rank = static_cast<size_t>(x.ndim());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : ctx.attrs().get_ints("axes", {0, 2, 3}))
    reduced[static_cast<size_t>(normalize_axis(a, x.ndim()))] = true;
  std::vector<int64_t> kept = x.shape();
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    if (reduced[d]) {
      count *= kept[d];
      kept[d] = 1;
    }
  const DataType f64 = DataType::Float(64);
  auto moment = [&](int power, const std::string& suffix) {
    std::vector<IterVar> ks;
    for (size_t d = 0; d < rank; ++d)
      if (reduced[d]) {
        std::string name = "k";
        name += std::to_string(d);
        ks.push_back(te::reduce_axis(x.shape()[d], name));
      }
    return te::compute(
        kept,
        [&](const std::vector<Var>& i) {
          std::vector<Expr> at = as_exprs(i);
          size_t r = 0;
          for (size_t d = 0; d < rank; ++d)
            if (reduced[d]) at[d] = ks[r++].var();
          Expr v = te::cast(f64, x(at));
          return te::sum(power == 1 ? v : v * v, ks);
        },
        ctx.name(suffix), {}, "comm_reduce");
  };
  te::Tensor sum = moment(1, "sum"), sum_sq = moment(2, "sumsq");
  const Expr n = te::make_const(f64, static_cast<double>(count));
  return {injective(
      ctx,
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> at = i;
        for (size_t d = 0; d < rank; ++d)
          if (reduced[d]) at[d] = te::make_int(0);
        Expr mean = sum(at) / n;
        Expr var = te::max(te::make_zero(f64), sum_sq(at) / n - mean * mean);
        Expr y = (te::cast(f64, x(i)) - mean) / (te::sqrt(var) + te::make_const(f64, 1e-9));
        return te::cast(x.dtype(), y);
      },
      "elemwise")};
}

}  // namespace

void register_indexing_computes(OpStrategyRegistry& r) {
  r.define_compute("GatherElements", gather_elements);
  r.define_compute("GatherND", gather_nd);
  r.define_compute("ScatterElements", scatter_elements);
  r.define_compute("Scatter", scatter_elements);
  r.define_compute("ScatterND", scatter_nd);
  r.define_compute("OneHot", one_hot);
  r.define_compute("Trilu", trilu);
  r.define_compute("EyeLike", eye_like);
  r.define_compute("CumSum", cumsum);
  r.define_compute("Hardmax", hardmax);
  r.define_compute("MeanVarianceNormalization", mean_variance_normalization);
}

}  // namespace lathe::topi
