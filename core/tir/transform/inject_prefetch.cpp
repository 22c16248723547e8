#include "tir/transform/inject_prefetch.h"

#include <algorithm>
#include <string>

#include "support/error.h"
#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/arith/access_grid.h"
#include "tir/arith/eval_region.h"
#include "tir/arith/simplify.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

constexpr char kMarkerPrefix[] = "prefetch_offset=";
constexpr int64_t kCacheLineBytes = 64;

using te::make_int;

// A grid of at most this many spans is fetched span by span, each line's
// address affine in the loop counters; larger ones number their lines across
// spans, which costs a division per line.
constexpr int64_t kMaxSeparateSpans = 4;

// The prefetched lines of one grid, numbered 0 .. count-1 in address order:
// line j of span s starts at element base + start(s) + min(j * per_line,
// span_length - 1), so a span's first and last element are always among them.
struct LineSet {
  arith::AccessGrid grid;
  int64_t lines_per_span = 1;
  int64_t count = 0;
};

LineSet line_set(arith::AccessGrid grid, int64_t elements_per_line) {
  LineSet s;
  s.lines_per_span = (grid.span_length - 1 + elements_per_line - 1) / elements_per_line + 1;
  s.count = s.lines_per_span * grid.spans();
  s.grid = std::move(grid);
  return s;
}

// A grid of few spans as one grid per span.
std::vector<arith::AccessGrid> split_spans(const arith::AccessGrid& grid) {
  if (grid.axes.empty() || grid.spans() > kMaxSeparateSpans) return {grid};
  std::vector<arith::AccessGrid> spans;
  for (int64_t n = 0; n < grid.spans(); ++n) {
    int64_t start = 0, rest = n;
    for (const arith::AccessGrid::Axis& a : grid.axes) {
      start += (rest % a.count) * a.stride;
      rest /= a.count;
    }
    arith::AccessGrid one;
    one.base = arith::simplify(grid.base + make_int(start, grid.base.type()));
    one.span_length = grid.span_length;
    spans.push_back(std::move(one));
  }
  return spans;
}

// Element index of line `j` (0 <= j; past the last line, a single span clamps
// to its last element, and a grid's j must be clamped by the caller).
Expr line_element(const LineSet& s, const Expr& j, int64_t elements_per_line) {
  const te::DataType t = s.grid.base.type();
  auto c = [&](int64_t v) { return make_int(v, t); };
  if (s.grid.axes.empty())
    return s.grid.base + te::min(j * c(elements_per_line), c(s.grid.span_length - 1));
  Expr span = j / c(s.lines_per_span);
  Expr line = j % c(s.lines_per_span);
  Expr index = s.grid.base + te::min(line * c(elements_per_line), c(s.grid.span_length - 1));
  // Span number -> start, axes innermost (smallest stride) first.
  for (const arith::AccessGrid::Axis& a : s.grid.axes) {
    index = index + (span % c(a.count)) * c(a.stride);
    span = span / c(a.count);
  }
  return index;
}

// Calls f on every load of `buffer` in s.
template <typename F>
void for_each_load(const Stmt& s, const Var& buffer, const F& f) {
  visit_stmt_exprs(s, [&](const Expr& e) {
    te::visit_expr(e, [&](const Expr& x) {
      const auto* load = x.as<te::LoadNode>();
      if (load && load->buffer.same_as(buffer)) f(load);
    });
  });
}

bool reads_buffer(const Stmt& s, const Var& buffer) {
  bool found = false;
  for_each_load(s, buffer, [&](const te::LoadNode*) { found = true; });
  return found;
}

class LoopPrefetch {
 public:
  LoopPrefetch(const ForNode* loop, Var buffer, te::DataType dtype, int64_t offset)
      : loop_(loop), buffer_(std::move(buffer)), dtype_(dtype), offset_(offset) {}

  Stmt run() {
    const int64_t* extent = te::as_const_int(loop_->extent);
    LATHE_CHECK(extent, "prefetch of '", buffer_.name(), "' at loop '", loop_->loop_var.name(),
                "': the loop's extent is not constant");
    // The iteration `offset` ahead, clamped: the last ones fetch their own
    // (cached) data again rather than past the tensor.
    te::VarMap<Expr> ahead;
    ahead[loop_->loop_var] = te::min(loop_->loop_var + make_int(offset_, loop_->loop_var.type()),
                                     loop_->min + make_int(*extent - 1, loop_->min.type()));
    collect_bindings(loop_->body);
    const int64_t per_line = std::max<int64_t>(1, kCacheLineBytes / dtype_.bytes());
    std::vector<LineSet> sets;
    for_each_load(loop_->body, buffer_, [&](const te::LoadNode* load) {
      const Expr index = te::substitute(without_lets(load->index), ahead);
      for (arith::AccessGrid& g : split_spans(grid_of(index))) {
        bool seen = false;
        for (const LineSet& set : sets) seen = seen || same_grid(set.grid, g);
        if (!seen) sets.push_back(line_set(std::move(g), per_line));
      }
    });
    if (sets.empty()) return make_for_like(loop_, loop_->body);

    std::vector<const ForNode*> path = spread_path(loop_->body);
    int64_t lines = 0;
    for (const LineSet& s : sets) lines += s.count;
    // The deepest loop whose iterations (with those around it) do not outnumber
    // the lines: each of its iterations fetches ceil(lines / iterations).
    size_t level = 0;
    int64_t iterations = 1;
    for (size_t i = 0; i < path.size(); ++i) {
      const int64_t next = iterations * *te::as_const_int(path[i]->extent);
      if (i > 0 && next > lines) break;
      iterations = next;
      level = i + 1;
    }
    if (level == 0) {
      // No loop inside to spread over: all lines at the top of the body.
      return make_for_like(loop_, make_seq({fetch_all(sets, per_line), loop_->body}));
    }
    // k numbers the iterations of the loops down to that level, in order.
    const te::DataType t = sets[0].grid.base.type();
    Expr k = make_int(0, t);
    for (size_t i = 0; i < level; ++i)
      k = k * make_int(*te::as_const_int(path[i]->extent), t) + te::cast(t, path[i]->loop_var);
    std::vector<Stmt> fetches;
    for (const LineSet& s : sets) {
      const int64_t per_iteration = (s.count + iterations - 1) / iterations;
      for (int64_t u = 0; u < per_iteration; ++u) {
        Expr j = k * make_int(per_iteration, t) + make_int(u, t);
        if (!s.grid.axes.empty()) j = te::min(j, make_int(s.count - 1, t));
        fetches.push_back(fetch(line_element(s, j, per_line)));
      }
    }
    return make_for_like(loop_, insert_into(loop_->body, path[level - 1], make_seq(fetches)));
  }

 private:
  static Stmt make_for_like(const ForNode* f, Stmt body) {
    return make_for(f->loop_var, f->min, f->extent, f->kind, std::move(body), f->thread_tag);
  }

  Stmt fetch(Expr index) const {
    return make_evaluate(te::prefetch(te::load(dtype_, buffer_, arith::simplify(index))));
  }

  Stmt fetch_all(const std::vector<LineSet>& sets, int64_t per_line) const {
    std::vector<Stmt> loops;
    for (const LineSet& s : sets) {
      const te::DataType t = s.grid.base.type();
      Var j("prefetch_line", t);
      loops.push_back(make_for(j, make_int(0, t), make_int(s.count, t), ForKind::Serial,
                               fetch(line_element(s, j, per_line))));
    }
    return make_seq(loops);
  }

  // The ranges of the loops and the values of the lets inside the loop.
  void collect_bindings(const Stmt& body) {
    visit_stmt(body, [&](const Stmt& s) {
      if (const ForNode* f = s.as<ForNode>()) dom_[f->loop_var] = Range(f->min, f->extent);
      if (const auto* l = s.as<LetStmtNode>()) lets_[l->var] = l->value;
    });
  }

  // The index with the variables of lets inside the loop replaced by their
  // values: the fetches go above those lets, where their variables are not
  // defined yet. A let's value may use an outer let's variable, hence rounds.
  Expr without_lets(Expr index) const {
    for (size_t round = 0; round <= lets_.size(); ++round) {
      bool uses_let = false;
      for (const auto& [var, value] : lets_) uses_let = uses_let || te::uses_var(index, var);
      if (!uses_let) break;
      index = te::substitute(index, lets_);
    }
    return index;
  }

  // The access's grid; an index that is not affine in the inner loops falls
  // back to the interval it covers, one span.
  arith::AccessGrid grid_of(const Expr& index) const {
    if (auto grid = arith::access_grid(index, dom_)) return *grid;
    te::Range r = arith::eval_region(index, dom_);
    const int64_t* extent = r.extent.defined() ? te::as_const_int(r.extent) : nullptr;
    LATHE_CHECK(r.min.defined() && extent, "prefetch of '", buffer_.name(), "' at loop '",
                loop_->loop_var.name(), "': the elements read inside cannot be bounded (",
                te::to_string(index), ")");
    arith::AccessGrid grid;
    grid.base = r.min;
    grid.span_length = *extent;
    return grid;
  }

  static bool same_grid(const arith::AccessGrid& a, const arith::AccessGrid& b) {
    if (!te::structural_equal(a.base, b.base) || a.span_length != b.span_length ||
        a.axes.size() != b.axes.size())
      return false;
    for (size_t i = 0; i < a.axes.size(); ++i)
      if (a.axes[i].stride != b.axes[i].stride || a.axes[i].count != b.axes[i].count) return false;
    return true;
  }

  // The loops the reads sit in, outermost first: serial or unrolled loops of
  // constant extent, followed while exactly one statement of a sequence reads
  // the buffer (not into guards, vector or parallel loops).
  std::vector<const ForNode*> spread_path(Stmt s) const {
    std::vector<const ForNode*> path;
    for (;;) {
      if (const auto* f = s.as<ForNode>()) {
        if ((f->kind != ForKind::Serial && f->kind != ForKind::Unrolled) ||
            !te::as_const_int(f->extent) || !te::is_const_int(f->min, 0))
          break;
        path.push_back(f);
        s = f->body;
      } else if (const auto* seq = s.as<SeqNode>()) {
        Stmt reader;
        int readers = 0;
        for (const Stmt& part : seq->seq)
          if (reads_buffer(part, buffer_)) {
            reader = part;
            ++readers;
          }
        if (readers != 1) break;
        s = reader;
      } else if (const auto* a = s.as<AttrStmtNode>()) {
        s = a->body;
      } else if (const auto* l = s.as<LetStmtNode>()) {
        s = l->body;
      } else if (const auto* al = s.as<AllocateNode>()) {
        s = al->body;
      } else {
        break;
      }
    }
    return path;
  }

  // `body` with `fetches` first in the body of loop `target`.
  static Stmt insert_into(const Stmt& body, const ForNode* target, Stmt fetches) {
    class Inserter : public StmtMutator {
     public:
      Inserter(const ForNode* t, Stmt f) : target_(t), fetches_(std::move(f)) {}

     protected:
      Stmt visit_for(const ForNode* n, const Stmt& s) override {
        if (n != target_) return StmtMutator::visit_for(n, s);
        return make_for_like(n, make_seq({fetches_, n->body}));
      }

     private:
      const ForNode* target_;
      Stmt fetches_;
    };
    return Inserter(target, std::move(fetches)).mutate(body);
  }

  const ForNode* loop_;
  Var buffer_;
  te::DataType dtype_;
  int64_t offset_;
  te::VarMap<Range> dom_;
  te::VarMap<Expr> lets_;  // variables bound by lets inside the loop
};

// Rebuilds the attributes between a marker and its loop around `f(loop)`.
template <typename F>
Stmt at_loop(const Stmt& s, const F& f) {
  if (const auto* loop = s.as<ForNode>()) return f(loop);
  const auto* attr = s.as<AttrStmtNode>();
  LATHE_CHECK(attr, "a prefetch marker must enclose its loop");
  return make_attr(attr->key, attr->value, at_loop(attr->body, f));
}

class Injector : public StmtMutator {
 protected:
  Stmt visit_attr(const AttrStmtNode* n, const Stmt& s) override {
    const std::string prefix = kMarkerPrefix;
    if (n->key.rfind(prefix, 0) != 0) return StmtMutator::visit_attr(n, s);
    const int64_t offset = std::stoll(n->key.substr(prefix.size()));
    const auto* load = n->value.as<te::LoadNode>();
    LATHE_CHECK(load, "prefetch marker '", n->key, "' without a flattened tensor");
    Stmt body = mutate(n->body);  // inner markers first
    return at_loop(body, [&](const ForNode* loop) {
      return LoopPrefetch(loop, load->buffer, load->type, offset).run();
    });
  }
};

}  // namespace

Stmt mark_prefetch(const te::Tensor& tensor, int64_t offset, Stmt loop) {
  std::vector<Expr> first(tensor.shape().size(), make_int(0));
  return make_attr(kMarkerPrefix + std::to_string(offset), tensor(first), std::move(loop));
}

Stmt inject_prefetch(const Stmt& s) {
  return Injector().mutate(s);
}

}  // namespace lathe::tir
