// Recursive-descent parser of the schedule text. Errors are reported at the
// offending token; an unclosed bracket, which swallows the next lines under
// implicit line joining, is reported at the bracket instead.
#include "schedule/schedule_parser.h"

#include <set>

#include "support/error.h"

namespace lathe::schedule::detail {
namespace {

struct SyntaxError {
  size_t index;  // of the offending token
  std::string message;
};

// Deep enough for any schedule; shallow enough that a pathological input
// cannot exhaust the stack.
constexpr int kMaxNesting = 100;

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Name:
      return "name '" + t.text + "'";
    case TokenKind::Int:
    case TokenKind::Float:
      return "number " + t.text;
    case TokenKind::String:
      return "a string";
    case TokenKind::Op:
      return "'" + t.text + "'";
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::End:
      return "end of text";
  }
  return "?";
}

class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : toks_(tokens) {}

  std::vector<Statement> run(std::vector<ScheduleDiagnostic>& errors) {
    std::vector<Statement> statements;
    while (true) {
      open_.clear();
      depth_ = 0;  // a syntax error may have left both behind
      const Token& t = toks_[pos_];
      if (t.kind == TokenKind::End) break;
      if (t.kind == TokenKind::Newline || is_op(t, ";")) {
        ++pos_;
        continue;
      }
      try {
        Statement st = parse_statement();
        const Token& end = peek();
        if (end.kind != TokenKind::Newline && end.kind != TokenKind::End && !is_op(end, ";")) {
          if (is_op(end, ")") || is_op(end, "]")) fail("unmatched '" + end.text + "'");
          fail("expected the end of the statement, got " + describe(end));
        }
        statements.push_back(std::move(st));
      } catch (const SyntaxError& e) {
        const Token& bad = toks_[e.index];
        if (!open_.empty() &&
            (bad.kind == TokenKind::End || (bad.first_on_line && bad.line > open_.back().line))) {
          // The statement ran on into the next line: blame the bracket and
          // parse that line afresh.
          const Token& o = open_.back();
          errors.push_back({o.line, o.column, "'" + o.text + "' was never closed"});
          pos_ = e.index;
        } else {
          errors.push_back({bad.line, bad.column, e.message});
          pos_ = e.index;
          while (toks_[pos_].kind != TokenKind::Newline && toks_[pos_].kind != TokenKind::End)
            ++pos_;
        }
      }
    }
    return statements;
  }

 private:
  static bool is_op(const Token& t, const char* op) {
    return t.kind == TokenKind::Op && t.text == op;
  }

  // Inside brackets line ends are not tokens, as in Python.
  size_t index_of(size_t ahead) const {
    size_t i = pos_;
    while (true) {
      if (!open_.empty())
        while (toks_[i].kind == TokenKind::Newline) ++i;
      if (ahead == 0 || toks_[i].kind == TokenKind::End) return i;
      ++i;
      --ahead;
    }
  }
  const Token& peek(size_t ahead = 0) const { return toks_[index_of(ahead)]; }
  bool at_op(const char* op, size_t ahead = 0) const { return is_op(peek(ahead), op); }

  const Token& take() {
    size_t i = index_of(0);
    pos_ = toks_[i].kind == TokenKind::End ? i : i + 1;
    return toks_[i];
  }

  [[noreturn]] void fail(const std::string& message) { throw SyntaxError{index_of(0), message}; }

  void open(const char* bracket) {
    if (!at_op(bracket)) fail(str("expected '", bracket, "', got ", describe(peek())));
    open_.push_back(take());
  }
  void close(const char* bracket, const char* expected) {
    if (!at_op(bracket)) fail(str("expected ", expected, ", got ", describe(peek())));
    take();
    open_.pop_back();
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting) p_.fail("expression nested too deeply");
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  static NodePtr make(NodeKind kind, const Token& at) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->pos = {at.line, at.column};
    return n;
  }

  static bool starts_expression(const Token& t) {
    return t.kind == TokenKind::Name || t.kind == TokenKind::Int || t.kind == TokenKind::Float ||
           t.kind == TokenKind::String || is_op(t, "(") || is_op(t, "[") || is_op(t, "-") ||
           is_op(t, "+");
  }

  Statement parse_statement() {
    const Token& first = peek();
    Statement st;
    st.pos = {first.line, first.column};
    if (first.kind == TokenKind::Name && (first.text == "import" || first.text == "from")) {
      parse_import(st);
      return st;
    }
    static const char* unsupported[] = {"def",   "for",    "while",  "if",  "with",
                                        "class", "return", "lambda", "try", "del"};
    for (const char* k : unsupported)
      if (first.kind == TokenKind::Name && first.text == k)
        fail(str("'", k, "' is not part of the schedule language"));
    bool tuple = false;
    std::vector<NodePtr> lhs = parse_expr_list(tuple);
    if (!at_op("=")) {
      st.value = tuple ? make_tuple(std::move(lhs)) : std::move(lhs[0]);
      return st;
    }
    st.kind = Statement::Kind::Assign;
    std::vector<NodePtr> targets;
    if (!tuple && (lhs[0]->kind == NodeKind::Tuple || lhs[0]->kind == NodeKind::List)) {
      targets = std::move(lhs[0]->kids);
      st.unpack = true;
    } else {
      targets = std::move(lhs);
      st.unpack = tuple;
    }
    for (const NodePtr& t : targets) {
      if (t->kind != NodeKind::Name)
        throw SyntaxError{index_at(t->pos), "cannot assign to this expression; assign to names"};
      if (is_python_keyword(t->text))
        throw SyntaxError{index_at(t->pos), "cannot assign to " + t->text};
      st.targets.push_back(t->text);
      st.target_pos.push_back(t->pos);
    }
    if (st.targets.empty()) fail("nothing to assign to");
    take();  // '='
    bool rhs_tuple = false;
    std::vector<NodePtr> rhs = parse_expr_list(rhs_tuple);
    st.value = rhs_tuple ? make_tuple(std::move(rhs)) : std::move(rhs[0]);
    if (at_op("=")) fail("chained assignment is not supported");
    return st;
  }

  // The index of the token at `pos`, to report an error at a node.
  size_t index_at(Pos pos) const {
    for (size_t i = 0; i < toks_.size(); ++i)
      if (toks_[i].line == pos.line && toks_[i].column == pos.column) return i;
    return index_of(0);
  }

  std::string dotted_name() {
    if (peek().kind != TokenKind::Name) fail("expected a module name, got " + describe(peek()));
    std::string name = take().text;
    while (at_op(".")) {
      take();
      if (peek().kind != TokenKind::Name)
        fail("expected a name after '.', got " + describe(peek()));
      name += "." + take().text;
    }
    return name;
  }

  void parse_import(Statement& st) {
    st.kind = Statement::Kind::Import;
    bool from = take().text == "from";
    st.module = dotted_name();
    if (from) {
      if (peek().kind != TokenKind::Name || peek().text != "import")
        fail("expected 'import', got " + describe(peek()));
      take();
      if (peek().kind != TokenKind::Name) fail("expected a name, got " + describe(peek()));
      st.name = take().text;
    }
    if (peek().kind == TokenKind::Name && peek().text == "as") {
      take();
      if (peek().kind != TokenKind::Name || is_python_keyword(peek().text))
        fail("expected a name, got " + describe(peek()));
      st.alias = take().text;
    }
  }

  static NodePtr make_tuple(std::vector<NodePtr> items) {
    auto n = std::make_unique<Node>();
    n->kind = NodeKind::Tuple;
    n->pos = items.empty() ? Pos{} : items[0]->pos;
    n->kids = std::move(items);
    return n;
  }

  // expr (',' expr)* [','] ; `tuple` tells whether a comma was seen.
  std::vector<NodePtr> parse_expr_list(bool& tuple) {
    std::vector<NodePtr> items;
    items.push_back(parse_expr());
    while (at_op(",")) {
      take();
      tuple = true;
      if (!starts_expression(peek())) break;
      items.push_back(parse_expr());
    }
    return items;
  }

  NodePtr binary(NodePtr left, const Token& op, NodePtr right) {
    auto n = std::make_unique<Node>();
    n->kind = NodeKind::BinOp;
    n->pos = left->pos;
    n->text = op.text;
    n->name_pos = {op.line, op.column};
    n->kids.push_back(std::move(left));
    n->kids.push_back(std::move(right));
    return n;
  }

  NodePtr parse_expr() {
    DepthGuard guard(*this);
    NodePtr left = parse_term();
    while (at_op("+") || at_op("-")) {
      Token op = take();
      left = binary(std::move(left), op, parse_term());
    }
    return left;
  }

  NodePtr parse_term() {
    NodePtr left = parse_unary();
    while (at_op("*") || at_op("//") || at_op("/") || at_op("%")) {
      Token op = take();
      left = binary(std::move(left), op, parse_unary());
    }
    return left;
  }

  NodePtr parse_unary() {
    DepthGuard guard(*this);
    if (at_op("-")) {
      NodePtr n = make(NodeKind::Neg, take());
      n->kids.push_back(parse_unary());
      return n;
    }
    if (at_op("+")) {
      take();
      return parse_unary();
    }
    return parse_postfix();
  }

  NodePtr parse_postfix() {
    NodePtr n = parse_atom();
    while (true) {
      if (at_op(".")) {
        take();
        const Token& name = peek();
        if (name.kind != TokenKind::Name || is_python_keyword(name.text))
          fail("expected an attribute name after '.', got " + describe(name));
        take();
        auto attr = std::make_unique<Node>();
        attr->kind = NodeKind::Attr;
        attr->pos = n->pos;
        attr->text = name.text;
        attr->name_pos = {name.line, name.column};
        attr->kids.push_back(std::move(n));
        n = std::move(attr);
      } else if (at_op("(")) {
        n = parse_call(std::move(n));
      } else if (at_op("[")) {
        open("[");
        auto index = std::make_unique<Node>();
        index->kind = NodeKind::Index;
        index->pos = n->pos;
        index->kids.push_back(std::move(n));
        if (at_op("]")) fail("expected an index, got ']'");
        bool tuple = false;
        std::vector<NodePtr> items = parse_expr_list(tuple);
        if (at_op(":")) fail("slices are not supported");
        index->kids.push_back(tuple ? make_tuple(std::move(items)) : std::move(items[0]));
        close("]", "']'");
        n = std::move(index);
      } else {
        return n;
      }
    }
  }

  NodePtr parse_call(NodePtr function) {
    auto call = std::make_unique<Node>();
    call->kind = NodeKind::Call;
    call->pos = function->pos;
    call->name_pos = function->kind == NodeKind::Attr ? function->name_pos : function->pos;
    call->kids.push_back(std::move(function));
    open("(");
    bool keywords = false;
    while (!at_op(")")) {
      if (peek().kind == TokenKind::Name && at_op("=", 1)) {
        if (is_python_keyword(peek().text))
          fail("'" + peek().text + "' cannot be a keyword argument");
        const Token& kw = take();
        call->keywords.push_back(kw.text);
        call->keyword_pos.push_back({kw.line, kw.column});
        take();  // '='
        keywords = true;
      } else {
        if (at_op("*")) fail("argument unpacking with '*' is not supported");
        if (keywords) fail("positional argument follows keyword argument");
        call->keywords.emplace_back();
        call->keyword_pos.push_back({peek().line, peek().column});
      }
      call->kids.push_back(parse_expr());
      if (!at_op(",")) break;
      take();
    }
    close(")", "',' or ')'");
    return call;
  }

  NodePtr parse_atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Name: {
        if (is_python_keyword(t.text) && t.text != "None" && t.text != "True" && t.text != "False")
          fail("'" + t.text + "' is a Python keyword the schedule language does not use");
        NodePtr n = make(NodeKind::Name, take());
        n->text = t.text;
        return n;
      }
      case TokenKind::Int: {
        NodePtr n = make(NodeKind::Int, take());
        n->int_value = t.int_value;
        n->text = t.text;
        return n;
      }
      case TokenKind::Float: {
        NodePtr n = make(NodeKind::Float, take());
        n->text = t.text;
        return n;
      }
      case TokenKind::String: {
        NodePtr n = make(NodeKind::Str, take());
        n->text = t.text;
        while (peek().kind == TokenKind::String) n->text += take().text;  // "a" "b"
        return n;
      }
      default:
        break;
    }
    if (is_op(t, "(")) {
      Token bracket = t;
      open("(");
      if (at_op(")")) {
        close(")", "')'");
        NodePtr n = make(NodeKind::Tuple, bracket);
        return n;
      }
      bool tuple = false;
      std::vector<NodePtr> items = parse_expr_list(tuple);
      close(")", "',' or ')'");
      if (!tuple) return std::move(items[0]);
      NodePtr n = make(NodeKind::Tuple, bracket);
      n->kids = std::move(items);
      return n;
    }
    if (is_op(t, "[")) {
      NodePtr n = make(NodeKind::List, t);
      open("[");
      while (!at_op("]")) {
        n->kids.push_back(parse_expr());
        if (!at_op(",")) break;
        take();
      }
      close("]", "',' or ']'");
      return n;
    }
    fail("expected an expression, got " + describe(t));
  }

  const std::vector<Token>& toks_;
  size_t pos_ = 0;
  std::vector<Token> open_;  // unclosed brackets, innermost last
  int depth_ = 0;
};

}  // namespace

bool is_python_keyword(const std::string& word) {
  static const std::set<std::string> keywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return keywords.contains(word);
}

std::vector<Statement> parse_statements(const std::vector<Token>& tokens,
                                        std::vector<ScheduleDiagnostic>& errors) {
  return Parser(tokens).run(errors);
}

}  // namespace lathe::schedule::detail
