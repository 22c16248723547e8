// Reading back the options several `lathe` commands share (Args's
// target_option, input_shapes_option, no_layout_flag).
#pragma once

#include "args.h"
#include "driver/optimized_graph.h"
#include "driver/target.h"
#include "ir/graph.h"

namespace lathe::cli {

// Loads the plugins --plugin names, before anything reads the model.
void load_plugins(const Args& args);
// MODEL, with the shapes --input-shapes fixes and, for the dimensions the
// model leaves symbolic, those of the arrays of `inputs_npz` (a command's
// --inputs). What the load assumes (a batch of 1) goes to stderr as a note.
Graph load_model(const Args& args, const std::string& inputs_npz = {});
// --target; the host when not given.
driver::Target target_of(const Args& args);
// The graph passes for `target` (its vector unit), without snapshots, with
// the layout pass unless --no-layout.
driver::PassOptions pass_options_of(const Args& args, const driver::Target& target);

}  // namespace lathe::cli
