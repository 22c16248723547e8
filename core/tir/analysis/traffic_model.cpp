#include "tir/analysis/traffic_model.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "te/expr_functor.h"
#include "tir/analysis/trip_count.h"

namespace lathe::tir::traffic {
namespace {

using te::VarNode;

AccessIndex access_index(const Expr& index, int lanes, const LetValues& lets) {
  const AffineIndex affine = affine_index(index, lets);
  AccessIndex r;
  for (const auto& [v, c] : affine.coeffs)
    if (c != 0) r.coeffs[v] += c;
  std::erase_if(r.coeffs, [](const auto& kv) { return kv.second == 0; });
  r.opaque = affine.opaque;
  r.offset = affine.offset;
  r.lane_stride = affine.lane_stride;  // 0 when not constant: its variables are opaque
  r.lanes = lanes;
  return r;
}

}  // namespace

bool AccessIndex::is_opaque(const VarNode* v) const {
  return std::find(opaque.begin(), opaque.end(), v) != opaque.end();
}

int64_t AccessIndex::coeff(const VarNode* v) const {
  const auto it = coeffs.find(v);
  return it == coeffs.end() ? 0 : it->second;
}

double Footprint::working_set() const {
  double total = 0;
  for (const auto& [_, b] : buffers) total += b.elements * b.elem_bytes;
  return total;
}

double Footprint::bytes_of(const VarNode* buffer) const {
  const auto it = buffers.find(buffer);
  return it == buffers.end() ? 0 : it->second.elements * it->second.elem_bytes;
}

LevelTraffic Footprint::traffic(const std::vector<const VarNode*>& skip) const {
  LevelTraffic t;
  for (const auto& [buffer, b] : buffers) {
    if (std::find(skip.begin(), skip.end(), buffer) != skip.end()) continue;
    t.read_bytes += b.read_elements * b.elem_bytes;
    t.write_bytes += b.write_elements * b.elem_bytes;
  }
  return t;
}

TrafficModel::TrafficModel(const PrimFunc& func) {
  for (const Buffer& b : func.params)
    buffers_[b.data.node()] = {b.name, static_cast<double>(b.numel()), 0, kParameter};
  root_.depth = 0;
  walk(func.body, -1);
}

std::vector<LoopFootprint> TrafficModel::loop_footprints() const {
  std::vector<LoopFootprint> out;
  for (const Loop& l : loops_) {
    LoopFootprint lf;
    lf.loop_var = l.name;
    lf.extent = l.extent;
    lf.depth = l.depth;
    Footprint fp = footprint(l.accesses, l.depth + 1);
    std::vector<std::pair<int, BufferFootprint>> ordered;
    for (const auto& [buffer, b] : fp.buffers) {
      const BufferInfo& info = buffers_.at(buffer);
      ordered.push_back(
          {info.order, {info.name, b.elements * b.elem_bytes, b.used_elements * b.elem_bytes}});
    }
    std::sort(ordered.begin(), ordered.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [_, bf] : ordered) lf.buffers.push_back(std::move(bf));
    lf.working_set_bytes = fp.working_set();
    out.push_back(std::move(lf));
  }
  return out;
}

LevelTraffic TrafficModel::traffic(double capacity, bool warm) const {
  // The whole kernel as one iteration of a loop of extent 1 around it.
  if (footprint(root_.accesses, 0).working_set() <= capacity)
    return warm ? LevelTraffic{} : footprint(root_.accesses, 0).traffic(allocated_within(-1));
  return body_traffic(root_, 0, capacity);
}

LevelTraffic TrafficModel::loop_share(int id, double capacity) const {
  const Loop& loop = loops_[id];
  if (footprint(root_.accesses, 0).working_set() <= capacity)
    return footprint(loop.accesses, 0).traffic(allocated_within(-1));
  // Down the ancestors, outermost first, as traffic() descends: the first
  // whose one iteration fits lets this loop's accesses through once per
  // iteration of the loops outside it.
  std::vector<int> ancestors;
  for (int a = loop.parent; a >= 0; a = loops_[a].parent) ancestors.push_back(a);
  std::reverse(ancestors.begin(), ancestors.end());
  double outer_iterations = 1;
  for (int a : ancestors) {
    const Loop& ancestor = loops_[a];
    if (footprint(ancestor.accesses, ancestor.depth + 1).working_set() <= capacity) {
      LevelTraffic t = footprint(loop.accesses, ancestor.depth).traffic(allocated_within(a));
      return {t.read_bytes * outer_iterations, t.write_bytes * outer_iterations};
    }
    outer_iterations *= static_cast<double>(ancestor.extent);
  }
  LevelTraffic t = loop_traffic(id, capacity);
  return {t.read_bytes * outer_iterations, t.write_bytes * outer_iterations};
}

void TrafficModel::walk(const Stmt& s, int parent) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<ForNode>();
      int id = static_cast<int>(loops_.size());
      Loop& l = loops_.emplace_back();
      l.var = f->loop_var.node();
      l.stmt = s;
      l.name = f->loop_var.name();
      l.extent = trip_count(f->extent);
      l.depth = static_cast<int>(stack_.size());
      l.parent = parent;
      mutable_loop(parent).children.push_back(id);
      stack_.push_back(id);
      walk(f->body, id);
      stack_.pop_back();
      return;
    }
    case StmtKind::Store: {
      const auto* st = s.as<StoreNode>();
      add_exprs(st->value, parent);
      add_exprs(st->index, parent);
      int lanes = std::max(st->value.type().lanes, st->index.type().lanes);
      add_access(st->buffer.node(), st->value.type().bytes(), lanes, st->index, true, parent);
      return;
    }
    case StmtKind::Allocate: {
      const auto* a = s.as<AllocateNode>();
      double elements = 1;
      for (const Expr& e : a->extents) elements *= static_cast<double>(trip_count(e));
      buffers_[a->buffer.node()] = {a->buffer.name(), elements, 0, parent};
      return walk(a->body, parent);
    }
    case StmtKind::Seq:
      for (const Stmt& c : s.as<SeqNode>()->seq) walk(c, parent);
      return;
    case StmtKind::IfThenElse: {
      const auto* i = s.as<IfThenElseNode>();
      add_exprs(i->condition, parent);
      walk(i->then_case, parent);
      walk(i->else_case, parent);
      return;
    }
    case StmtKind::LetStmt: {
      const auto* l = s.as<LetStmtNode>();
      add_exprs(l->value, parent);
      lets_[l->var.node()] = l->value;
      walk(l->body, parent);
      lets_.erase(l->var.node());
      return;
    }
    case StmtKind::AttrStmt:
      return walk(s.as<AttrStmtNode>()->body, parent);
    case StmtKind::ProducerRealize:
      return walk(s.as<ProducerRealizeNode>()->body, parent);
    case StmtKind::Evaluate:       // prefetches move no data the kernel uses
    case StmtKind::ProducerStore:  // a kernel never flattened: nothing to model
      return;
  }
}

void TrafficModel::add_exprs(const Expr& e, int parent) {
  te::visit_expr(e, [&](const Expr& x) {
    if (const auto* load = x.as<te::LoadNode>())
      add_access(load->buffer.node(), load->type.bytes(), load->type.lanes, load->index, false,
                 parent);
  });
}

void TrafficModel::add_access(const VarNode* buffer, int elem_bytes, int lanes, const Expr& index,
                              bool store, int parent) {
  int id = static_cast<int>(accesses_.size());
  Access& a = accesses_.emplace_back();
  a.buffer = buffer;
  a.elem_bytes = std::max(1, elem_bytes);
  a.store = store;
  a.index = access_index(index, lanes, lets_);
  a.path = stack_;
  auto [it, inserted] = buffers_.try_emplace(buffer, BufferInfo{buffer->name, HUGE_VAL, 0});
  if (it->second.order == 0) it->second.order = ++next_order_;
  mutable_loop(parent).direct.push_back(id);
  root_.accesses.push_back(id);
  for (int l : stack_) loops_[l].accesses.push_back(id);
}

Footprint TrafficModel::footprint(const std::vector<int>& ids, int relaxed_from) const {
  // Accesses of one buffer with the same coefficients differ by a constant
  // offset: one class, whose hull grows by the spread of the offsets.
  struct Class {
    double product = 1, hull = 1;
    int64_t unit = 0;  // the smallest stride (elements) of its lanes and relaxed loops
    int64_t min_offset = 0, max_offset = 0;
    bool read = false, write = false;
    int elem_bytes = 4;
    std::vector<int64_t> seen_offsets;
  };
  using Key = std::tuple<const VarNode*, std::map<const VarNode*, int64_t>,
                         std::vector<const VarNode*>, int64_t, int>;
  std::map<Key, Class> classes;
  for (int id : ids) {
    const Access& a = accesses_[id];
    Key key{a.buffer, a.index.coeffs, a.index.opaque, a.index.lane_stride, a.index.lanes};
    auto [it, fresh] = classes.try_emplace(key);
    Class& c = it->second;
    if (fresh) {
      c.elem_bytes = a.elem_bytes;
      c.min_offset = c.max_offset = a.index.offset;
      if (a.index.lanes > 1 && a.index.lane_stride != 0) {
        c.product = a.index.lanes;
        c.hull = 1 + static_cast<double>(std::abs(a.index.lane_stride)) * (a.index.lanes - 1);
        c.unit = std::abs(a.index.lane_stride);
      }
      for (size_t d = static_cast<size_t>(std::max(relaxed_from, 0)); d < a.path.size(); ++d) {
        const Loop& l = loops_[a.path[d]];
        const int64_t coeff = a.index.coeff(l.var);
        if (a.index.is_opaque(l.var)) {
          c.product *= static_cast<double>(l.extent);
          c.hull = HUGE_VAL;  // no hull through / or %
        } else if (coeff != 0) {
          c.product *= static_cast<double>(l.extent);
          c.hull += static_cast<double>(std::abs(coeff)) * (l.extent - 1);
          if (l.extent > 1) c.unit = c.unit ? std::min(c.unit, std::abs(coeff)) : std::abs(coeff);
        }
      }
    }
    c.read |= !a.store;
    c.write |= a.store;
    c.min_offset = std::min(c.min_offset, a.index.offset);
    c.max_offset = std::max(c.max_offset, a.index.offset);
    if (std::find(c.seen_offsets.begin(), c.seen_offsets.end(), a.index.offset) ==
        c.seen_offsets.end())
      c.seen_offsets.push_back(a.index.offset);
  }

  Footprint fp;
  for (const auto& [key, c] : classes) {
    const VarNode* buffer = std::get<0>(key);
    double cap = buffers_.at(buffer).elements;
    const double span = c.hull + static_cast<double>(c.max_offset - c.min_offset);
    const double used =
        std::min({c.product * static_cast<double>(c.seen_offsets.size()), span, cap});
    // A cache holds lines: elements `unit` apart share a line only where the
    // unit is below a line's elements, so a strided walk touches unit (at
    // most a line's) elements per element it uses, within its span.
    const double line = std::max(1, kCacheLineBytes / c.elem_bytes);
    const double elements =
        c.unit > 1
            ? std::min({used * std::min(static_cast<double>(c.unit), line), span + line - 1, cap})
            : used;
    Footprint::PerBuffer& b = fp.buffers[buffer];
    b.elem_bytes = c.elem_bytes;
    b.used_elements = std::min(b.used_elements + used, cap);
    b.elements = std::min(b.elements + elements, cap);
    if (c.read) b.read_elements = std::min(b.read_elements + elements, cap);
    if (c.write) b.write_elements = std::min(b.write_elements + elements, cap);
  }
  return fp;
}

// One iteration of `loop` does not fit: each loop inside is charged per
// iteration by the same rule, and so are the accesses directly in the body.
LevelTraffic TrafficModel::body_traffic(const Loop& loop, int body_depth, double capacity) const {
  LevelTraffic t = footprint(loop.direct, body_depth).traffic();
  for (int child : loop.children) {
    LevelTraffic c = loop_traffic(child, capacity);
    t.read_bytes += c.read_bytes;
    t.write_bytes += c.write_bytes;
  }
  return t;
}

// The bytes one execution of `loop` (all its iterations) moves through a
// cache of `capacity`.
LevelTraffic TrafficModel::loop_traffic(int id, double capacity) const {
  const Loop& loop = loops_[id];
  // When one iteration fits, what consecutive iterations share hits, and
  // what the loop touches comes through once.
  if (footprint(loop.accesses, loop.depth + 1).working_set() <= capacity)
    return footprint(loop.accesses, loop.depth).traffic(allocated_within(id));
  LevelTraffic t = body_traffic(loop, loop.depth + 1, capacity);
  double n = static_cast<double>(loop.extent);
  return {t.read_bytes * n, t.write_bytes * n};
}

// The buffers allocated inside `loop` (-1: the whole kernel). Within a
// scope that fits the cache, such a buffer is written before it is read and
// freed after: it never travels to or from the level beyond.
std::vector<const VarNode*> TrafficModel::allocated_within(int loop) const {
  std::vector<const VarNode*> local;
  for (const auto& [buffer, info] : buffers_) {
    if (info.scope == kParameter) continue;
    int l = info.scope;
    while (l != loop && l >= 0) l = loops_[l].parent;
    if (l == loop) local.push_back(buffer);
  }
  return local;
}

}  // namespace lathe::tir::traffic
