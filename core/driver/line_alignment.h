// Two printed texts set side by side, line against line: a weighted longest
// common subsequence over their lines, where what may share a row (and how
// much a pairing is worth) comes from the lines' structure, not only their
// text. So a loop of one loop IR sits beside the matching loop of the other
// even when its extent or name changed, and a split that adds an inner loop
// shows as one added row. What `lathe schedule --diff` prints and the
// studio's schedule diff view shows.
#pragma once

#include <string>
#include <vector>

namespace lathe::driver {

// What a line is, for pairing: lines of different kinds never share a row;
// of one kind, an equal name pairs before an equal stem ("k_outer", "k_inner"
// and "k" share the stem "k"), and that before any other line of the kind.
struct LineKey {
  std::string kind;  // "for", "store", "allocate", "s[conv].split" ...
  std::string name;  // the loop variable, the buffer, the first argument ...
};

// The key of one line of printed loop IR (tir/printer): a loop by its
// variable, a store, allocation or realize by its buffer, an attribute by its
// key; other lines (the function's head) only pair with their equal.
LineKey loop_ir_line_key(const std::string& line);
// The key of one line of schedule text: a primitive by its stage and method
// and its first argument (s[conv].split over conv.op.axis[1]).
LineKey schedule_line_key(const std::string& line);

enum class RowChange {
  Same,     // the lines are equal but for their indentation
  Changed,  // paired lines that differ
  Removed,  // a line of A only
  Added,    // a line of B only
};

struct AlignedRow {
  RowChange change = RowChange::Same;
  int a = -1;  // line index in A; -1 for an added row
  int b = -1;  // line index in B; -1 for a removed row
};

// The rows of A and B aligned, every line of each once and in order. Of
// equally good alignments, the one pairing lines earliest: a split's outer
// loop pairs with the loop it split, its inner loop is the added row.
// Quadratic in the lines that differ (a shared head and tail are cut first).
std::vector<AlignedRow> align_lines(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b,
                                    LineKey (*key)(const std::string& line));

// The text's lines without their newlines; no last empty line for a text
// ending in one.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace lathe::driver
