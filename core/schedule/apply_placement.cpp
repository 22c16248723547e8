// The primitives that decide where a stage is computed and how its buffer is
// laid out: compute_at, compute_inline, compute_root, storage_align,
// set_scope.
#include <algorithm>

#include "schedule/apply.h"
#include "support/error.h"

namespace lathe::schedule::apply {

AppliedStep compute_at(Schedule& s, Stage stage, const std::vector<Argument>& args,
                       const std::vector<std::string>&) {
  const Stage& parent = args[0].stage;
  const IterVar& scope = args[1].axis;
  if (!parent.ref()) schedule_error("compute_at: undefined parent stage");
  if (parent.ref() == stage.ref())
    schedule_error(str("compute_at: stage '", stage.name(), "' cannot be computed at itself"));
  if (stage.node().is_output)
    schedule_error(str("compute_at: '", stage.name(), "' is an output and must stay at the root"));
  // The parent must read the tensor, or enclose (through compute_at) a stage
  // that does, as TVM allows attaching a producer at an outer loop. A stage
  // inlined into its readers reads through them (softmax's max, read by the
  // inlined exp(x - max), is attached where the sum and the output are).
  std::vector<Operation> read_by = {stage.op()};
  std::vector<StageRef> readers;
  for (size_t i = 0; i < read_by.size(); ++i)
    for (const Stage& reader : s.stages()) {
      if (!reader.op().as_compute() || !reads(reader.op(), read_by[i])) continue;
      if (reader.node().attach_type == AttachType::Inline)
        read_by.push_back(reader.op());
      else
        readers.push_back(reader.ref());
    }
  bool consumed = false;
  for (const StageRef& reader : readers)
    for (StageRef cur = reader; cur && !consumed; cur = cur->attach_stage.lock()) {
      if (cur == parent.ref()) consumed = true;
      if (cur->attach_type != AttachType::Scope) break;
    }
  if (!consumed)
    schedule_error(str("compute_at: stage '", parent.name(), "' does not consume '", stage.name(),
                       "'; compute a tensor at a loop of a stage that reads it"));
  check_leaf(parent, scope, "compute_at");
  StageNode& node = *stage.ref();
  node.attach_type = AttachType::Scope;
  node.attach_stage = parent.ref();
  node.attach_ivar = scope;
  return {};
}

AppliedStep compute_inline(Schedule&, Stage stage, const std::vector<Argument>&,
                           const std::vector<std::string>&) {
  const te::ComputeOpNode* c = stage.op().as_compute();
  if (!c) schedule_error(str("compute_inline: '", stage.name(), "' is a placeholder"));
  if (stage.node().is_output)
    schedule_error(str("compute_inline: '", stage.name(), "' is an output"));
  if (c->body.as<te::ReduceNode>())
    schedule_error(
        str("compute_inline: '", stage.name(), "' is a reduction and cannot be inlined"));
  stage.ref()->attach_type = AttachType::Inline;
  return {};
}

AppliedStep compute_root(Schedule&, Stage stage, const std::vector<Argument>&,
                         const std::vector<std::string>&) {
  StageNode& node = *stage.ref();
  node.attach_type = AttachType::Root;
  node.attach_ivar = IterVar();
  node.attach_stage.reset();
  return {};
}

AppliedStep storage_align(Schedule&, Stage stage, const std::vector<Argument>& args,
                          const std::vector<std::string>&) {
  const IterVar& axis = args[0].axis;
  const int64_t factor = args[1].integer, offset = args[2].integer;
  std::vector<IterVar> root = stage.axis();
  int dim = -1;
  for (size_t i = 0; i < root.size(); ++i)
    if (root[i].same_as(axis)) dim = static_cast<int>(i);
  if (dim < 0)
    schedule_error(str("storage_align: '", axis.defined() ? axis.name() : "?",
                       "' is not a data axis of '", stage.name(), "'"));
  if (factor <= 0 || offset < 0 || offset >= factor)
    schedule_error(str("storage_align: needs factor > 0 and 0 <= offset < factor, got ", factor,
                       ", ", offset));
  stage.ref()->storage_aligns.push_back({dim, factor, offset});
  return {};
}

// TVM's set_scope: the storage scope of the stage's buffer, as cache_read and
// cache_write give their caches. Lowering carries it to the buffer's
// allocation in the loop IR. The llvm target places every allocation by its
// size (the stack up to 32 KB, the runtime's allocator above), so on the CPU
// the scope names the buffer's role and changes no instruction.
AppliedStep set_scope(Schedule&, Stage stage, const std::vector<Argument>& args,
                      const std::vector<std::string>&) {
  const std::string& scope = args[0].text;
  if (!stage.op().as_compute() || stage.node().is_output)
    schedule_error(str("set_scope: '", stage.name(), "' is ",
                       stage.node().is_output ? "an output" : "a placeholder",
                       "; its buffer is the kernel's argument"));
  static const char* scopes[] = {"global", "shared", "local"};
  if (std::find(std::begin(scopes), std::end(scopes), scope) == std::end(scopes))
    schedule_error(str("set_scope: unknown storage scope '", scope,
                       "'; the scopes are \"global\", \"shared\" and \"local\""));
  stage.ref()->scope = scope;
  return {};
}

}  // namespace lathe::schedule::apply
