// The schedule text's syntax tree and parser: statements of a small Python
// subset (assignments with tuple unpacking, calls with keyword arguments,
// attributes, subscripts, integer arithmetic, imports of tvm).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule_lexer.h"

namespace lathe::schedule::detail {

struct Pos {
  int line = 1, column = 1;
};

enum class NodeKind : uint8_t { Name, Int, Float, Str, Attr, Index, Call, List, Tuple, BinOp, Neg };

struct Node {
  NodeKind kind = NodeKind::Name;
  Pos pos;           // of the expression's first token
  std::string text;  // Name, Str, Float text, Attr's attribute, BinOp's operator
  int64_t int_value = 0;
  Pos name_pos;  // Attr: the attribute; Call: the called name; BinOp: the operator
  // Attr: {object}; Index: {object, index}; Call: {function, arguments...};
  // List, Tuple: items; BinOp: {left, right}; Neg: {operand}.
  std::vector<std::unique_ptr<Node>> kids;
  std::vector<std::string> keywords;  // Call: per argument, "" when positional
  std::vector<Pos> keyword_pos;
};
using NodePtr = std::unique_ptr<Node>;

struct Statement {
  enum class Kind : uint8_t { Expr, Assign, Import } kind = Kind::Expr;
  Pos pos;  // of the statement's first token
  // Assign: the names bound; `unpack` for a, b = ... / (a,) = ... forms.
  std::vector<std::string> targets;
  std::vector<Pos> target_pos;
  bool unpack = false;
  NodePtr value;
  // Import: "import <module> [as <alias>]" or "from <module> import <name> [as <alias>]".
  std::string module, name, alias;
};

// Python's reserved words, which are never names (None, True, False are
// values, not names to bind).
bool is_python_keyword(const std::string& word);

// Parses every statement it can; each syntax error (the first of its line)
// goes to `errors` and parsing resumes at the next line.
std::vector<Statement> parse_statements(const std::vector<Token>& tokens,
                                        std::vector<ScheduleDiagnostic>& errors);

}  // namespace lathe::schedule::detail
