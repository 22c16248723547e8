// Splits schedule text into tokens. Errors (a stray character, an unclosed
// string) become diagnostics and lexing goes on, so that one pass reports
// every line's syntax error.
#include "schedule/schedule_lexer.h"

#include <cctype>
#include <limits>

namespace lathe::schedule::detail {
namespace {

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}

  LexResult run() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        push(TokenKind::Newline, "\n", line_, column_);
        advance();
        line_has_token_ = false;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == '\\') {
        lex_continuation();
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        lex_name();
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < text_.size() &&
                  std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
        lex_number();
      } else if (c == '"' || c == '\'') {
        lex_string(c);
      } else {
        lex_operator();
      }
    }
    push(TokenKind::End, "", line_, column_);
    return std::move(result_);
  }

 private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  // Columns count code points, not bytes, as an editor shows them.
  void advance() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;
    }
  }

  void push(TokenKind kind, std::string text, int line, int column, int64_t value = 0) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.int_value = value;
    t.line = line;
    t.column = column;
    t.first_on_line = !line_has_token_ && kind != TokenKind::Newline;
    if (kind != TokenKind::Newline && kind != TokenKind::End) line_has_token_ = true;
    result_.tokens.push_back(std::move(t));
  }

  void error(int line, int column, std::string message) {
    result_.errors.push_back({line, column, std::move(message)});
  }

  // A backslash joins the next physical line to this one.
  void lex_continuation() {
    int line = line_, column = column_;
    advance();
    while (peek() == ' ' || peek() == '\t' || peek() == '\r') advance();
    if (peek() == '\n') {
      advance();
      return;
    }
    error(line, column, "unexpected character after line continuation '\\'");
  }

  void lex_name() {
    int line = line_, column = column_;
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      advance();
    push(TokenKind::Name, text_.substr(start, pos_ - start), line, column);
  }

  void lex_number() {
    int line = line_, column = column_;
    size_t start = pos_;
    bool is_float = false;
    while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '_') advance();
    if (peek() == '.') {
      is_float = true;
      advance();
      while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      size_t save = pos_;
      int save_col = column_;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (std::isdigit(static_cast<unsigned char>(peek()))) {
        is_float = true;
        while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      } else {
        pos_ = save;  // "1e" is a number followed by a name; let the parser complain
        column_ = save_col;
      }
    }
    std::string text = text_.substr(start, pos_ - start);
    if (is_float) {
      push(TokenKind::Float, text, line, column);
      return;
    }
    int64_t value = 0;
    bool overflow = false;
    for (char d : text) {
      if (d == '_') continue;
      int digit = d - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) overflow = true;
      if (!overflow) value = value * 10 + digit;
    }
    if (overflow) error(line, column, "integer literal '" + text + "' is too large");
    push(TokenKind::Int, text, line, column, overflow ? 0 : value);
  }

  void lex_string(char quote) {
    int line = line_, column = column_;
    advance();
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || peek() == '\n') {
        error(line, column, "unterminated string literal");
        break;
      }
      char c = peek();
      advance();
      if (c == quote) break;
      if (c == '\\' && pos_ < text_.size() && peek() != '\n') {
        char e = peek();
        advance();
        switch (e) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case '\\':
            value += '\\';
            break;
          case '\'':
            value += '\'';
            break;
          case '"':
            value += '"';
            break;
          default:
            value += '\\';
            value += e;
        }
        continue;
      }
      value += c;
    }
    push(TokenKind::String, value, line, column);
  }

  void lex_operator() {
    int line = line_, column = column_;
    char c = peek();
    if (c == '/' && peek(1) == '/') {
      advance();
      advance();
      push(TokenKind::Op, "//", line, column);
      return;
    }
    static const std::string single = "()[],.=:;+-*/%";
    if (single.find(c) != std::string::npos) {
      advance();
      push(TokenKind::Op, std::string(1, c), line, column);
      return;
    }
    // Report the whole code point, and skip it, so lexing goes on.
    size_t start = pos_;
    advance();
    while (pos_ < text_.size() && (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80)
      advance();
    error(line, column, "unexpected character '" + text_.substr(start, pos_ - start) + "'");
  }

  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1, column_ = 1;
  bool line_has_token_ = false;
  LexResult result_;
};

}  // namespace

LexResult lex_schedule(const std::string& text) {
  return Lexer(text).run();
}

}  // namespace lathe::schedule::detail
