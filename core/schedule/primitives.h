// The schedule primitives as one table (after TVM's traced schedule, where
// each instruction kind knows how to apply and print itself): each entry
// names a primitive, lists its parameters with their kinds and what it
// returns, and points at its apply function. The C++ API (Stage::split ...),
// the schedule text's interpreter, the trace's printer and replayer, JSON
// records and the editor's completions all read this table, so adding a
// primitive is one entry plus its apply function (schedule/apply.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace lathe::schedule {

// What a parameter takes, and the ScheduleStep field that records it.
enum class ParamKind : uint8_t {
  Axis,        // a loop (leaf axis) of the stage                      -> axes
  Axes,        // *args: loops of the stage, at least `min_count`      -> axes
  DataAxis,    // a data axis of the stage's op (C.op.axis[i])         -> axes
  AttachAxis,  // a loop of the stage the preceding Stage param names  -> axes
  Int,         //                                                      -> ints
  Dim,         // a dimension index: an integer from 0                 -> ints
  String,      //                                                      -> strings
  ThreadTag,   // te.thread_axis("threadIdx.x"), recorded as its tag   -> strings
  Stage,       // s[C], recorded as its tensor's name                  -> strings
  Tensor,      // a tensor of the schedule, recorded by name           -> strings
  Tensors,     // one tensor or a list of them, recorded by name       -> strings
  Subject,     // a schedule method's tensor, whose stage it changes   -> stage
};

struct Param {
  const char* name;  // Python's parameter name: "factor"
  ParamKind kind;
  // Printed as name=value, as TVM's tutorials write split(x, factor=8).
  bool keyword = false;
  // An integer parameter that may be left out; printed only when it differs.
  std::optional<int64_t> default_int = std::nullopt;
  int min_count = 1;  // Axes, Tensors: how many at least
};

// s[C].split(...) or s.cache_read(...).
enum class Receiver : uint8_t { Stage, Schedule };

enum class Returns : uint8_t { Nothing, Axis, Axes, Tensor };

// One argument, in the member its parameter's kind uses.
// (Every member has an initializer, so that {.axis = v} leaves the rest empty.)
struct Argument {
  IterVar axis{};                 // Axis, DataAxis, AttachAxis
  std::vector<IterVar> axes{};    // Axes
  int64_t integer = 0;            // Int, Dim
  std::string text{};             // String, ThreadTag
  Stage stage{};                  // Stage
  Tensor tensor{};                // Tensor, Subject
  std::vector<Tensor> tensors{};  // Tensors
};

// What a primitive made: its new loops in return order, or its new tensor,
// and the names the trace records for them (the names the text binds).
struct AppliedStep {
  std::vector<IterVar> axes{};
  Tensor tensor{};
  std::vector<std::string> names{};
};

// `stage` is the stage the primitive is called on (a schedule method's:
// its Subject's); `args` follow the entry's params; `names` holds one name
// per result, "" where the caller gave none. Throws ScheduleError.
using ApplyFn = AppliedStep (*)(Schedule& s, Stage stage, const std::vector<Argument>& args,
                                const std::vector<std::string>& names);

struct Primitive {
  const char* name;    // in the trace and in records: "split_nparts"
  const char* method;  // in the text: "split" (entries may share one method)
  Receiver receiver;
  std::vector<Param> params;
  Returns returns;
  std::vector<const char*> results;  // what it returns, for completions: {"outer", "inner"}
  ApplyFn apply;
};

// Every primitive, in the order TVM's documentation lists them.
const std::vector<Primitive>& primitives();
// By trace name; nullptr when there is none.
const Primitive* find_primitive(const std::string& name);
// The entries a text method names, in table order (split: split, split_nparts).
std::vector<const Primitive*> method_primitives(Receiver receiver, const std::string& method);

// Applies `p` and appends its step to the schedule's trace.
AppliedStep apply_primitive(Schedule& s, const Primitive& p, const Stage& stage,
                            const std::vector<Argument>& args,
                            const std::vector<std::string>& names = {});

// A TVM method the schedule text names but Lathe rejects, and why.
struct RejectedMethod {
  const char* name;
  Receiver receiver;
  const char* reason;
};
const std::vector<RejectedMethod>& rejected_methods();
const RejectedMethod* find_rejected_method(Receiver receiver, const std::string& name);

// A text method with its Python signature, for completions:
// "split(parent, factor=None, nparts=None) → outer, inner".
struct MethodSignature {
  std::string method;
  Receiver receiver;
  std::string signature;
};
std::vector<MethodSignature> method_signatures();

}  // namespace lathe::schedule
