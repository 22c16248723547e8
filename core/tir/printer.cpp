#include "tir/printer.h"

#include <sstream>

#include "te/expr_printer.h"

namespace lathe::tir {
namespace {

class StmtPrinter {
 public:
  explicit StmtPrinter(std::ostringstream& os) : os_(os) {}

  // Where each `for` line starts in the stream, loops in pre-order.
  const std::vector<std::streamoff>& loop_offsets() const { return loop_offsets_; }

  void print(const Stmt& s, int depth) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* n = s.as<ForNode>();
        loop_offsets_.push_back(os_.tellp());
        line(depth) << "for " << n->loop_var.name() << " in " << loop_range(n) << ":\n";
        print(n->body, depth + 1);
        break;
      }
      case StmtKind::Store: {
        const auto* n = s.as<StoreNode>();
        line(depth) << n->buffer.name() << "[" << te::to_string(n->index)
                    << "] = " << te::to_string(n->value) << "\n";
        break;
      }
      case StmtKind::ProducerStore: {
        const auto* n = s.as<ProducerStoreNode>();
        line(depth) << n->producer->name << "[";
        for (size_t i = 0; i < n->indices.size(); ++i)
          os_ << (i ? ", " : "") << te::to_string(n->indices[i]);
        os_ << "] = " << te::to_string(n->value) << "\n";
        break;
      }
      case StmtKind::ProducerRealize: {
        const auto* n = s.as<ProducerRealizeNode>();
        line(depth) << "T.realize(" << n->producer->name << "[";
        for (size_t i = 0; i < n->bounds.size(); ++i) {
          const Range& r = n->bounds[i];
          os_ << (i ? ", " : "") << te::to_string(r.min) << ":"
              << te::to_string(te::binary(te::ExprKind::Add, r.min, r.extent));
        }
        os_ << "], \"" << n->storage_scope << "\")\n";
        print(n->body, depth);
        break;
      }
      case StmtKind::Allocate: {
        const auto* n = s.as<AllocateNode>();
        line(depth) << n->buffer.name() << " = T.allocate([";
        for (size_t i = 0; i < n->extents.size(); ++i)
          os_ << (i ? ", " : "") << te::to_string(n->extents[i]);
        os_ << "], \"" << n->dtype.to_string() << "\", \"" << n->storage_scope << "\")\n";
        print(n->body, depth);
        break;
      }
      case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqNode>()->seq) print(c, depth);
        break;
      case StmtKind::IfThenElse: {
        const auto* n = s.as<IfThenElseNode>();
        line(depth) << "if " << te::to_string(n->condition) << ":\n";
        print(n->then_case, depth + 1);
        if (n->else_case.defined()) {
          line(depth) << "else:\n";
          print(n->else_case, depth + 1);
        }
        break;
      }
      case StmtKind::LetStmt: {
        const auto* n = s.as<LetStmtNode>();
        line(depth) << n->var.name() << ": T." << n->var.type().to_string() << " = "
                    << te::to_string(n->value) << "\n";
        print(n->body, depth);
        break;
      }
      case StmtKind::AttrStmt: {
        const auto* n = s.as<AttrStmtNode>();
        line(depth) << "with T.attr(\"" << n->key << "\", " << te::to_string(n->value) << "):\n";
        print(n->body, depth + 1);
        break;
      }
      case StmtKind::Evaluate:
        line(depth) << "T.evaluate(" << te::to_string(s.as<EvaluateNode>()->value) << ")\n";
        break;
    }
  }

 private:
  std::ostringstream& line(int depth) {
    os_ << std::string(static_cast<size_t>(depth) * 4, ' ');
    return os_;
  }

  static std::string loop_range(const ForNode* n) {
    std::string bounds = te::is_const_int(n->min, 0)
                             ? te::to_string(n->extent)
                             : te::to_string(n->min) + ", " +
                                   te::to_string(te::binary(te::ExprKind::Add, n->min, n->extent));
    switch (n->kind) {
      case ForKind::Serial:
        return "range(" + bounds + ")";
      case ForKind::Parallel:
        return "T.parallel(" + bounds + ")";
      case ForKind::Vectorized:
        return "T.vectorized(" + bounds + ")";
      case ForKind::Unrolled:
        return "T.unroll(" + bounds + ")";
      case ForKind::ThreadBinding:
        return "T.thread_binding(" + bounds + ", thread=\"" + n->thread_tag + "\")";
    }
    return bounds;
  }

  std::ostringstream& os_;
  std::vector<std::streamoff> loop_offsets_;
};

}  // namespace

std::string to_string(const Stmt& s, int indent) {
  std::ostringstream os;
  StmtPrinter(os).print(s, indent);
  return os.str();
}

std::string to_string(const PrimFunc& f) {
  return print_with_loop_lines(f).text;
}

PrintedFunc print_with_loop_lines(const PrimFunc& f) {
  std::ostringstream os;
  os << "@T.prim_func\ndef " << f.name << "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Buffer& b = f.params[i];
    os << (i ? ", " : "") << b.data.name() << ": T.Buffer((";
    for (size_t k = 0; k < b.shape.size(); ++k) os << (k ? ", " : "") << b.shape[k];
    os << (b.shape.size() == 1 ? ",)" : ")") << ", \"" << b.dtype.to_string() << "\")";
  }
  os << "):\n";
  StmtPrinter printer(os);
  printer.print(f.body, 1);

  PrintedFunc printed{os.str(), {}};
  // Offsets to line numbers, in one pass: the offsets are increasing.
  int line = 0;
  std::streamoff at = 0;
  for (std::streamoff offset : printer.loop_offsets()) {
    for (; at < offset; ++at)
      if (printed.text[static_cast<size_t>(at)] == '\n') ++line;
    printed.loop_lines.push_back(line);
  }
  return printed;
}

}  // namespace lathe::tir
