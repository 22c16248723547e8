// The loop IR's one printed form, after TVMScript: nested loops with their
// kind, buffer shapes in the signature, one statement a line.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"

namespace lathe::tir {

std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const PrimFunc& f);

// The printed function with the line (from 0) of each `for`, loops in
// pre-order: where an analysis of the loops (tir/analysis/loop_costs) puts
// its notes on the text the user reads.
struct PrintedFunc {
  std::string text;
  std::vector<int> loop_lines;
};
PrintedFunc print_with_loop_lines(const PrimFunc& f);

}  // namespace lathe::tir
