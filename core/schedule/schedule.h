// Schedules, after TVM's te.Schedule: one Stage per operation, whose
// primitives only rewrite iteration-variable relations and attributes; loops
// are built at lowering (core/tir). Every primitive applied is appended to the
// schedule's trace, which is what the schedule text prints and replays. The
// primitives themselves are the table in schedule/primitives.h; the methods
// below are their typed C++ spelling.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "support/error.h"
#include "te/tensor.h"

namespace lathe::schedule {

using te::Expr;
using te::IterVar;
using te::Operation;
using te::Tensor;

// Thrown for an illegal schedule: vectorizing a reduction axis, compute_at into
// a stage that does not consume the tensor, split by 0, an unknown axis ...
class ScheduleError : public Error {
 public:
  using Error::Error;
};

struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor = 0;  // inner extent; 0 when nparts is given
  int64_t nparts = 0;  // outer extent; 0 when factor is given
};

struct FuseRelation {
  IterVar outer, inner, fused;
};

// TVM's Singleton: fuse() of no axes makes a new outermost loop of extent 1
// that no root axis depends on. It gives a scalar stage a loop to bind and to
// attach its producers at.
struct SingletonRelation {
  IterVar iter;
};

using IterVarRelation = std::variant<SplitRelation, FuseRelation, SingletonRelation>;

// Tensorize: the loop and those inside it are one tensor intrinsic's call.
enum class LoopAnnotation : uint8_t { None, Parallel, Vectorize, Unroll, Bind, Tensorize };

// s[C].prefetch(tensor, var, offset): while iteration v of var runs, the
// elements of `tensor` that iteration v + offset reads are fetched into cache.
struct PrefetchSpec {
  Tensor tensor;
  int64_t offset = 1;
};

struct IterVarAttr {
  LoopAnnotation annotation = LoopAnnotation::None;
  std::string thread_tag;                             // for Bind
  std::string tensor_intrin;                          // for Tensorize: te/tensor_intrinsic.h's name
  std::vector<std::pair<std::string, Expr>> pragmas;  // ("auto_unroll_max_step", 16)
  std::vector<PrefetchSpec> prefetches;
};

enum class AttachType : uint8_t { Root, Inline, Scope };

struct StorageAlign {
  int axis = 0;  // dimension of the tensor
  int64_t factor = 0, offset = 0;
};

struct StageNode;
using StageRef = std::shared_ptr<StageNode>;

struct StageNode {
  Operation op;
  Operation origin_op;  // the op the stage was created for (cache_write replaces op)
  std::vector<IterVar> root_iter_vars;  // op's axis then reduce_axis
  std::vector<IterVar> leaf_iter_vars;  // loop order, outermost first
  std::vector<IterVar> all_iter_vars;   // root and every var a relation made
  std::vector<IterVarRelation> relations;
  std::unordered_map<IterVar, IterVarAttr, te::IterVarHash, te::IterVarEqual> attrs;
  AttachType attach_type = AttachType::Root;
  std::weak_ptr<StageNode> attach_stage;  // for Scope
  IterVar attach_ivar;                    // for Scope: the consumer's loop
  std::string scope = "global";           // storage scope ("local" for cache stages)
  std::vector<StorageAlign> storage_aligns;
  bool is_output = false;
};

// The handle the primitives are called on: s[C].split(...).
class Stage {
 public:
  Stage() = default;
  explicit Stage(StageRef node, class Schedule* owner) : node_(std::move(node)), owner_(owner) {}

  const StageNode& node() const { return *node_; }
  const StageRef& ref() const { return node_; }
  const Operation& op() const { return node_->op; }
  const std::string& name() const { return node_->op->name; }
  // The op's data-parallel and reduce axes, as C.op.axis / C.op.reduce_axis.
  std::vector<IterVar> axis() const;
  std::vector<IterVar> reduce_axis() const;

  // Names of created axes default to "<parent>_outer" / "<parent>_inner" ...
  std::pair<IterVar, IterVar> split(const IterVar& parent, int64_t factor,
                                    const std::string& outer_name = "",
                                    const std::string& inner_name = "");
  std::pair<IterVar, IterVar> split_nparts(const IterVar& parent, int64_t nparts,
                                           const std::string& outer_name = "",
                                           const std::string& inner_name = "");
  // Returns x_outer, y_outer, x_inner, y_inner, in loop order.
  std::vector<IterVar> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor,
                            const std::vector<std::string>& names = {});
  IterVar fuse(const IterVar& outer, const IterVar& inner, const std::string& name = "");
  // fuse(*axes): no axes give a new outermost loop of extent 1 (a scalar's).
  IterVar fuse(const std::vector<IterVar>& axes, const std::string& name = "");
  void reorder(const std::vector<IterVar>& order);
  void parallel(const IterVar& var);
  void vectorize(const IterVar& var);
  void unroll(const IterVar& var);
  void bind(const IterVar& var, const std::string& thread_tag);
  void pragma(const IterVar& var, const std::string& key, const Expr& value);
  // The loops from `var` inward become one call of the tensor intrinsic so
  // named (te/tensor_intrinsic.h), which they must match.
  void tensorize(const IterVar& var, const std::string& intrinsic);
  // Fetches `tensor`'s elements read `offset` iterations of `var` ahead; the
  // tensor must be an input (a placeholder) the stage reads.
  void prefetch(const Tensor& tensor, const IterVar& var, int64_t offset);
  void compute_at(const Stage& parent, const IterVar& scope);
  void compute_inline();
  void compute_root();
  void storage_align(const IterVar& axis, int64_t factor, int64_t offset);

 private:
  StageRef node_;
  class Schedule* owner_ = nullptr;
};

// One recorded primitive application: what the schedule text prints and
// what replaying a tuning record re-applies.
struct ScheduleStep {
  std::string primitive;          // "split", "fuse", "cache_write", ...
  std::string stage;              // the stage's tensor name
  std::vector<std::string> axes;  // iteration variables by name
  std::vector<int64_t> ints;  // factors, nparts, align factor/offset, pragma value, prefetch offset
  std::vector<std::string> strings;  // scope, thread tag, pragma key, other stage/tensor names,
                                     // prefetched tensor
  std::vector<std::string> results;  // names bound by the step (new axes, new tensors)
  bool operator==(const ScheduleStep&) const = default;
};

class Schedule {
 public:
  // te.create_schedule([C.op]): stages for every operation the outputs reach.
  explicit Schedule(const std::vector<Operation>& outputs);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  Stage operator[](const Tensor& t) { return stage_of(t.op()); }
  Stage stage_of(const Operation& op);
  // nullptr-like (undefined ref) when the schedule has no stage for that name.
  Stage find_stage(const std::string& tensor_name);
  // In dependency order: producers before consumers.
  std::vector<Stage> stages();
  const std::vector<Operation>& outputs() const { return outputs_; }

  Tensor cache_read(const Tensor& tensor, const std::string& scope,
                    const std::vector<Operation>& readers, const std::string& name = "");
  Tensor cache_write(const Tensor& tensor, const std::string& scope, const std::string& name = "");
  // Splits reduction axis `axis` of `tensor`'s stage into a new stage computing
  // partial results indexed by it (placed at `factor_axis`).
  Tensor rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis = 0,
                 const std::string& name = "");

  const std::vector<ScheduleStep>& trace() const { return trace_; }
  void record(ScheduleStep step) { trace_.push_back(std::move(step)); }

  // Dataflow rewrites, for the primitives' apply functions (schedule/apply.h).
  // A new stage for `op`, just before or just after `anchor` in dependency order.
  StageRef insert_stage(const Operation& op, const Stage& anchor, bool after);
  // Replaces reads of `from` by reads of `to` in the given stages' operations.
  void redirect_reads(const Operation& from, const Operation& to,
                      const std::vector<StageRef>& readers);
  // Gives `stage` the operation `op`: the stages and outputs that read its
  // old operation read `op` instead.
  void replace_op(const Stage& stage, const Operation& op);

 private:
  StageRef add_stage(const Operation& op, size_t position);

  std::vector<Operation> outputs_;
  std::vector<StageRef> stages_;  // dependency order
  std::vector<ScheduleStep> trace_;
};

}  // namespace lathe::schedule
