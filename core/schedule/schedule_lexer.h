// Tokens of the schedule text (a small Python subset): names, integers,
// strings, operators and one token per physical line end, which the parser
// ignores inside brackets as Python's implicit line joining does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule_text.h"

namespace lathe::schedule::detail {

enum class TokenKind : uint8_t { Name, Int, Float, String, Op, Newline, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // the name, operator, or the string's decoded value
  int64_t int_value = 0;
  int line = 1, column = 1;
  bool first_on_line = false;  // no token before it on its physical line
};

struct LexResult {
  std::vector<Token> tokens;  // always ends with End
  std::vector<ScheduleDiagnostic> errors;
};

LexResult lex_schedule(const std::string& text);

}  // namespace lathe::schedule::detail
