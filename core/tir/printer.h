// The loop IR's one printed form, after TVMScript: nested loops with their
// kind, buffer shapes in the signature, one statement a line.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace lathe::tir {

std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const PrimFunc& f);

}  // namespace lathe::tir
