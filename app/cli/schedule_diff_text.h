// `lathe schedule --diff` as text: the two sources and their measurements,
// the knobs (or primitive lines) that differ, and the loop IRs aligned by
// loop, side by side in a given width or as a unified diff.
#pragma once

#include <string>

#include "driver/schedule_diff.h"

namespace lathe::cli {

struct DiffLayout {
  int width = 160;       // columns of the side-by-side diff; longer lines wrap
  bool unified = false;  // one column: "-" A's line, "+" B's
};

std::string format_schedule_diff(const driver::ScheduleDiff& diff, const DiffLayout& layout);

// The terminal's width when standard output is one, else $COLUMNS, else 160.
int terminal_width();

}  // namespace lathe::cli
