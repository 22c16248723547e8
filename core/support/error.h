// Errors that say where they came from. Every layer of core reports problems
// with lathe::Error; a collection of problems (an importer finding several at
// once) travels as a DiagnosticError whose message lists them all.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lathe {

// Concatenates anything streamable: str("node ", name, ": rank ", r).
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A feature Lathe does not implement (an op, a dtype, an attribute value), as
// opposed to input that is wrong. Conformance runs count these separately.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

struct Diagnostic {
  enum class Kind { Invalid, Unsupported };
  Kind kind = Kind::Invalid;
  std::string where;    // "node 'conv1' (Conv)", "model.onnx", "input 'x'"
  std::string message;  // what is wrong there
  std::string to_string() const { return where.empty() ? message : where + ": " + message; }
};

class DiagnosticError : public Error {
 public:
  DiagnosticError(std::string header, std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // True when every problem is a missing feature rather than bad input.
  bool only_unsupported() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

[[noreturn]] void fail(const std::string& message);
[[noreturn]] void fail_unsupported(const std::string& message);

}  // namespace lathe

#define LATHE_CHECK(cond, ...)                             \
  do {                                                     \
    if (!(cond)) ::lathe::fail(::lathe::str(__VA_ARGS__)); \
  } while (false)
