#include "support/error.h"

namespace lathe {
namespace {

std::string join(const std::string& header, const std::vector<Diagnostic>& diagnostics) {
  std::string text = header;
  for (const Diagnostic& d : diagnostics) text += "\n  " + d.to_string();
  return text;
}

}  // namespace

DiagnosticError::DiagnosticError(std::string header, std::vector<Diagnostic> diagnostics)
    : Error(join(header, diagnostics)), diagnostics_(std::move(diagnostics)) {}

bool DiagnosticError::only_unsupported() const {
  for (const Diagnostic& d : diagnostics_)
    if (d.kind != Diagnostic::Kind::Unsupported) return false;
  return !diagnostics_.empty();
}

void fail(const std::string& message) {
  throw Error(message);
}
void fail_unsupported(const std::string& message) {
  throw UnsupportedError(message);
}

}  // namespace lathe
