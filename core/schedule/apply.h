// The primitives' apply functions, which the table (primitive_table.cpp)
// points at, and the checks they share. Each rewrites relations, attributes
// or the dataflow and throws ScheduleError naming the stage and axis; none
// records a trace step (apply_primitive does, from the table).
#pragma once

#include <string>
#include <vector>

#include "schedule/primitives.h"

namespace lathe::schedule::apply {

// ---- loops (apply_loops.cpp) ----
AppliedStep split(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep split_nparts(Schedule&, Stage, const std::vector<Argument>&,
                         const std::vector<std::string>&);
AppliedStep tile(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep fuse(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep reorder(Schedule&, Stage, const std::vector<Argument>&,
                    const std::vector<std::string>&);
AppliedStep parallel(Schedule&, Stage, const std::vector<Argument>&,
                     const std::vector<std::string>&);
AppliedStep vectorize(Schedule&, Stage, const std::vector<Argument>&,
                      const std::vector<std::string>&);
AppliedStep unroll(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep bind(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep pragma(Schedule&, Stage, const std::vector<Argument>&, const std::vector<std::string>&);
AppliedStep prefetch(Schedule&, Stage, const std::vector<Argument>&,
                     const std::vector<std::string>&);

// ---- tensor intrinsics (apply_tensorize.cpp) ----
AppliedStep tensorize(Schedule&, Stage, const std::vector<Argument>&,
                      const std::vector<std::string>&);

// ---- placement and storage (apply_placement.cpp) ----
AppliedStep compute_at(Schedule&, Stage, const std::vector<Argument>&,
                       const std::vector<std::string>&);
AppliedStep compute_inline(Schedule&, Stage, const std::vector<Argument>&,
                           const std::vector<std::string>&);
AppliedStep compute_root(Schedule&, Stage, const std::vector<Argument>&,
                         const std::vector<std::string>&);
AppliedStep storage_align(Schedule&, Stage, const std::vector<Argument>&,
                          const std::vector<std::string>&);
AppliedStep set_scope(Schedule&, Stage, const std::vector<Argument>&,
                      const std::vector<std::string>&);

// ---- dataflow rewrites (apply_dataflow.cpp) ----
AppliedStep cache_read(Schedule&, Stage, const std::vector<Argument>&,
                       const std::vector<std::string>&);
AppliedStep cache_write(Schedule&, Stage, const std::vector<Argument>&,
                        const std::vector<std::string>&);
AppliedStep rfactor(Schedule&, Stage, const std::vector<Argument>&,
                    const std::vector<std::string>&);

// ---- shared checks ----
[[noreturn]] void schedule_error(const std::string& message);
// Throws unless `var` is a current loop of the stage; `primitive` names the caller.
void check_leaf(const Stage& stage, const IterVar& var, const char* primitive);
int leaf_index(const StageNode& stage, const IterVar& var);
// Whether `consumer`'s body reads `producer`.
bool reads(const Operation& consumer, const Operation& producer);
// A copy of a compute op's node, to rebuild it with another body.
std::shared_ptr<te::ComputeOpNode> copy_compute(const te::ComputeOpNode& c);

}  // namespace lathe::schedule::apply
