// Control-flow nodes: an If runs one of its two graphs, a Loop runs its body
// while its trip count and condition allow. Each subgraph is a whole graph of
// its own, with static shapes: a value it reads from an enclosing graph is one
// of its inputs, which the node passes in (a capture), so every subgraph
// compiles on its own as any graph does.
//
//   If    inputs:  cond, captures...              subgraphs: then, else
//         each branch's inputs: captures...;      its outputs: the If's outputs
//   Loop  inputs:  M (int64 scalar), cond (bool scalar), carried..., captures...
//         body inputs:  iteration (int64 scalar), cond, carried..., captures...
//         body outputs: cond, carried...;         the Loop's outputs: carried...
//
// A Loop runs while iteration < M and cond; each iteration's carried outputs
// are the next one's carried inputs and keep their types, so nothing about a
// shape depends on how often it runs.
#pragma once

#include <string>

#include "ir/graph.h"

namespace lathe {

inline constexpr const char* kIfOp = "If";
inline constexpr const char* kLoopOp = "Loop";

bool is_control_flow(const Node& node);

// How many of a control-flow node's inputs precede its captures: 1 for an If,
// 2 + the carried values for a Loop.
size_t control_flow_leading_inputs(const Node& node);

// "then", "else", "body": how diagnostics and compiled names call subgraph i.
std::string subgraph_role(const Node& node, size_t i);

}  // namespace lathe
