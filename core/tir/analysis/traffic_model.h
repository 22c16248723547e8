// The loop nest as the memory-traffic model sees it (memory_traffic.h states
// the model): each loop with its extent and the buffer accesses inside it,
// each access with its affine index, and the footprint of any set of accesses
// with some of their loops relaxed. What memory_traffic (the kernel's bytes
// per cache level) and loop_costs (the same bytes attributed to each loop)
// both read, so the per-loop costs the studio shows are the roofline's own.
// Internal to tir/analysis.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/roofline.h"
#include "tir/analysis/affine_index.h"
#include "tir/analysis/memory_traffic.h"
#include "tir/stmt.h"

namespace lathe::tir::traffic {

// An access's index as the model keys it: the affine view (affine_index.h)
// without zero coefficients, ordered by variable, and its vector's lanes.
struct AccessIndex {
  std::map<const te::VarNode*, int64_t> coeffs;
  std::vector<const te::VarNode*> opaque;
  int64_t offset = 0;
  int64_t lane_stride = 0;
  int lanes = 1;

  bool is_opaque(const te::VarNode* v) const;
  int64_t coeff(const te::VarNode* v) const;
};

struct Loop {
  const te::VarNode* var = nullptr;
  Stmt stmt;  // the For itself (undefined for the kernel's top level)
  std::string name;
  int64_t extent = 1;
  int depth = 0;
  int parent = -1;            // -1: the kernel's top level
  std::vector<int> children;  // loops directly inside
  std::vector<int> direct;    // accesses whose innermost loop this is
  std::vector<int> accesses;  // every access inside
};

struct Access {
  const te::VarNode* buffer = nullptr;
  int elem_bytes = 4;
  bool store = false;
  AccessIndex index;
  std::vector<int> path;  // enclosing loops, outermost first
};

inline constexpr int kParameter = -2;
inline constexpr int kCacheLineBytes = 64;

struct BufferInfo {
  std::string name;
  double elements = HUGE_VAL;
  int order = 0;           // first access, for a stable report
  int scope = kParameter;  // for a buffer the kernel allocates, the loop around it (-1: none)
};

// What a set of accesses touches with some of their loops relaxed.
struct Footprint {
  struct PerBuffer {
    // `elements` counts the lines' elements a cache holds; `used_elements`
    // those the accesses read or write (fewer for a strided walk).
    double elements = 0, read_elements = 0, write_elements = 0, used_elements = 0;
    int elem_bytes = 4;
  };
  std::map<const te::VarNode*, PerBuffer> buffers;

  double working_set() const;
  double bytes_of(const te::VarNode* buffer) const;
  // Every buffer but those in `skip`.
  LevelTraffic traffic(const std::vector<const te::VarNode*>& skip = {}) const;
};

class TrafficModel {
 public:
  explicit TrafficModel(const PrimFunc& func);

  // Loops in pre-order (the order the printer prints them).
  const std::vector<Loop>& loops() const { return loops_; }
  const Loop& loop_at(int id) const { return id < 0 ? root_ : loops_[id]; }
  const std::vector<Access>& accesses() const { return accesses_; }
  const BufferInfo& buffer(const te::VarNode* b) const { return buffers_.at(b); }

  // Each loop's one-iteration footprint, as loop_footprints() reports it.
  std::vector<LoopFootprint> loop_footprints() const;

  // The bytes the whole kernel moves through a cache of `capacity`.
  LevelTraffic traffic(double capacity, bool warm) const;

  // The part of the kernel's cold traffic through a cache of `capacity` that
  // the accesses inside loop `id` cause, over all of the loop's executions:
  // the rule of traffic() followed down the loop's ancestors to the first
  // one whose single iteration fits (there the loop's accesses come through
  // once per iteration of what is outside it), else the loop's own charge
  // times the iterations of its ancestors.
  LevelTraffic loop_share(int id, double capacity) const;

  // The accesses' footprint with their loops at depth >= `relaxed_from`
  // relaxed over their extents and the outer ones fixed.
  Footprint footprint(const std::vector<int>& ids, int relaxed_from) const;

 private:
  void walk(const Stmt& s, int parent);
  Loop& mutable_loop(int id) { return id < 0 ? root_ : loops_[id]; }
  void add_exprs(const Expr& e, int parent);
  void add_access(const te::VarNode* buffer, int elem_bytes, int lanes, const Expr& index,
                  bool store, int parent);
  LevelTraffic body_traffic(const Loop& loop, int body_depth, double capacity) const;
  LevelTraffic loop_traffic(int id, double capacity) const;
  std::vector<const te::VarNode*> allocated_within(int loop) const;

  std::vector<Loop> loops_;
  Loop root_;
  std::vector<Access> accesses_;
  std::vector<int> stack_;
  LetValues lets_;
  std::unordered_map<const te::VarNode*, BufferInfo> buffers_;
  int next_order_ = 0;
};

}  // namespace lathe::tir::traffic
