// Reading and writing TVM's graph-executor JSON. The reader checks types key
// by key so that a broken mod.json says which key of which node is wrong.
#include "runtime/graph_json.h"

#include <nlohmann/json.hpp>

#include "runtime/ndarray.h"

namespace lathe::runtime {

namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error("graph JSON: " + where + ": " + what);
}

std::string node_where(size_t i, const std::string& name) {
  return "node " + std::to_string(i) + (name.empty() ? "" : " ('" + name + "')");
}

const json& member(const json& object, const std::string& key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) bad(where, "missing key '" + key + "'");
  return *it;
}

uint32_t as_u32(const json& value, const std::string& where) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
    bad(where, "expected a non-negative integer, got " + value.dump());
  const uint64_t v = value.get<uint64_t>();
  if (v > UINT32_MAX) bad(where, "value " + value.dump() + " is too large");
  return static_cast<uint32_t>(v);
}

// Node attributes are strings in TVM's JSON ("num_inputs": "2"); numbers are
// accepted too.
uint32_t attr_u32(const json& value, const std::string& where) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      bad(where, "expected an unsigned integer string, got " + value.dump());
    return static_cast<uint32_t>(std::stoul(s));
  }
  return as_u32(value, where);
}

const std::string& as_string(const json& value, const std::string& where) {
  if (!value.is_string()) bad(where, "expected a string, got " + value.dump());
  return value.get_ref<const std::string&>();
}

const json& as_array(const json& value, const std::string& where) {
  if (!value.is_array()) bad(where, "expected an array, got " + value.dump().substr(0, 80));
  return value;
}

GraphEntryRef parse_entry(const json& value, const std::string& where) {
  as_array(value, where);
  if (value.size() != 2 && value.size() != 3)
    bad(where, "an entry is [node_id, index, version], got " + value.dump());
  GraphEntryRef e;
  e.node_id = as_u32(value[0], where);
  e.index = as_u32(value[1], where);
  if (value.size() == 3) e.version = as_u32(value[2], where);
  return e;
}

// attrs.<key> is [type_tag, [values...]].
const json& typed_attr(const json& attrs, const std::string& key, const std::string& tag) {
  const std::string where = "attrs." + key;
  const json& pair = as_array(member(attrs, key, "attrs"), where);
  if (pair.size() != 2 || !pair[0].is_string() || pair[0].get<std::string>() != tag)
    bad(where, "expected [\"" + tag + "\", [...]], got " + pair.dump().substr(0, 80));
  return as_array(pair[1], where);
}

GraphNode parse_node(const json& value, size_t i) {
  std::string where = node_where(i, "");
  if (!value.is_object()) bad(where, "expected an object");
  GraphNode node;
  if (value.contains("name")) node.name = as_string(value["name"], where + ".name");
  where = node_where(i, node.name);
  member(value, "name", where);
  node.op = as_string(member(value, "op", where), where + ".op");
  if (node.op != "null" && node.op != "tvm_op")
    bad(where, "op is '" + node.op + "'; expected \"null\" or \"tvm_op\"");
  const json& inputs = as_array(member(value, "inputs", where), where + ".inputs");
  for (size_t k = 0; k < inputs.size(); ++k)
    node.inputs.push_back(parse_entry(inputs[k], where + ".inputs[" + std::to_string(k) + "]"));
  if (!node.is_op()) {
    node.num_inputs = 0;
    node.num_outputs = 1;
    return node;
  }
  // Older TVM wrote the attributes under "param".
  const char* attrs_key = value.contains("attrs") ? "attrs" : "param";
  const json& attrs = member(value, attrs_key, where);
  if (!attrs.is_object()) bad(where + "." + attrs_key, "expected an object");
  const std::string aw = where + "." + attrs_key;
  node.func_name = as_string(member(attrs, "func_name", aw), aw + ".func_name");
  node.num_inputs = attr_u32(member(attrs, "num_inputs", aw), aw + ".num_inputs");
  node.num_outputs = attr_u32(member(attrs, "num_outputs", aw), aw + ".num_outputs");
  if (attrs.contains("flatten_data"))
    node.flatten_data = attr_u32(attrs["flatten_data"], aw + ".flatten_data") != 0;
  if (attrs.contains("external_params")) {
    node.external = true;
    node.external_params = as_string(attrs["external_params"], aw + ".external_params");
  }
  if (attrs.contains("control_flow")) {
    node.control_flow = as_string(attrs["control_flow"], aw + ".control_flow");
    const json& subgraphs = as_array(member(attrs, "subgraphs", aw), aw + ".subgraphs");
    for (size_t k = 0; k < subgraphs.size(); ++k)
      node.subgraphs.push_back(as_u32(subgraphs[k], aw + ".subgraphs[" + std::to_string(k) + "]"));
  }
  return node;
}

}  // namespace

void finalize(GraphModuleDesc& desc) {
  desc.node_row_ptr.assign(1, 0);
  for (const GraphNode& node : desc.nodes)
    desc.node_row_ptr.push_back(desc.node_row_ptr.back() + (node.is_op() ? node.num_outputs : 1));
}

namespace {

// The control-flow node's op and subgraphs fit each other.
void validate_control_flow(const GraphModuleDesc& desc, size_t i) {
  const GraphNode& node = desc.nodes[i];
  const std::string where = node_where(i, node.name);
  const size_t expected = node.control_flow == "If" ? 2 : node.control_flow == "Loop" ? 1 : 0;
  if (expected == 0)
    bad(where, "control_flow is '" + node.control_flow + "'; expected \"If\" or \"Loop\"");
  if (node.subgraphs.size() != expected)
    bad(where, node.control_flow + " runs " + std::to_string(expected) + " subgraphs, it names " +
                   std::to_string(node.subgraphs.size()));
  for (uint32_t sub : node.subgraphs)
    if (sub >= desc.subgraphs.size())
      bad(where, "subgraph " + std::to_string(sub) + " does not exist");
  if (node.control_flow == "Loop" && node.num_inputs < 2 + node.num_outputs)
    bad(where, "a Loop takes M, cond and its " + std::to_string(node.num_outputs) +
                   " loop-carried values");
  if (node.control_flow == "If" && node.num_inputs < 1) bad(where, "an If takes its condition");
}

void validate_graph(const GraphModuleDesc& desc);

}  // namespace

void validate(const GraphModuleDesc& desc) {
  validate_graph(desc);
  for (const GraphModuleDesc& sub : desc.subgraphs) {
    try {
      validate(sub);
    } catch (const Error& e) {
      throw Error("subgraph '" + sub.name + "': " + e.what());
    }
  }
}

namespace {

void validate_launch(const std::string& kernel, const KernelLaunch& launch) {
  const std::string where = "launches." + kernel;
  for (int d = 0; d < 3; ++d) {
    const int64_t grid_limit = d == 0 ? INT32_MAX : 65535;
    if (launch.grid[d] < 1 || launch.grid[d] > grid_limit)
      bad(where, "grid extent " + std::to_string(launch.grid[d]) + " is not in [1, " +
                     std::to_string(grid_limit) + "]");
    if (launch.block[d] < 1 || launch.block[d] > 65535)
      bad(where, "block extent " + std::to_string(launch.block[d]) + " is not in [1, 65535]");
  }
  if (launch.shared_bytes < 0 || launch.shared_bytes > INT32_MAX)
    bad(where, "shared_bytes " + std::to_string(launch.shared_bytes) + " is out of range");
}

void validate_graph(const GraphModuleDesc& desc) {
  for (const auto& [kernel, launch] : desc.launches) validate_launch(kernel, launch);
  if (desc.node_row_ptr.size() != desc.nodes.size() + 1)
    bad("node_row_ptr", "has " + std::to_string(desc.node_row_ptr.size()) + " values for " +
                            std::to_string(desc.nodes.size()) + " nodes (expected nodes + 1)");
  for (size_t i = 0; i < desc.nodes.size(); ++i) {
    const GraphNode& node = desc.nodes[i];
    const uint32_t outputs = node.is_op() ? node.num_outputs : 1;
    if (desc.node_row_ptr[i + 1] != desc.node_row_ptr[i] + outputs)
      bad("node_row_ptr", "disagrees with the output count of " + node_where(i, node.name));
    if (node.is_op() && node.num_inputs != node.inputs.size())
      bad(node_where(i, node.name), "num_inputs is " + std::to_string(node.num_inputs) +
                                        " but it has " + std::to_string(node.inputs.size()) +
                                        " inputs");
    if (node.is_op() && node.func_name.empty()) bad(node_where(i, node.name), "empty func_name");
    if (!node.control_flow.empty()) validate_control_flow(desc, i);
    for (const GraphEntryRef& e : node.inputs) {
      if (e.node_id >= i)
        bad(node_where(i, node.name), "input [" + std::to_string(e.node_id) + ", " +
                                          std::to_string(e.index) +
                                          "] does not refer to an earlier node");
      const GraphNode& src = desc.nodes[e.node_id];
      if (e.index >= (src.is_op() ? src.num_outputs : 1u))
        bad(node_where(i, node.name), "input refers to output " + std::to_string(e.index) + " of " +
                                          node_where(e.node_id, src.name) +
                                          ", which has fewer outputs");
    }
  }
  for (uint32_t a : desc.arg_nodes) {
    if (a >= desc.nodes.size()) bad("arg_nodes", "node " + std::to_string(a) + " does not exist");
    if (desc.nodes[a].is_op())
      bad("arg_nodes", node_where(a, desc.nodes[a].name) + " is a tvm_op, not an input");
  }
  for (const GraphEntryRef& h : desc.heads) {
    if (h.node_id >= desc.nodes.size())
      bad("heads", "node " + std::to_string(h.node_id) + " does not exist");
    if (desc.entry_id(h) >= desc.node_row_ptr[h.node_id + 1])
      bad("heads", "output " + std::to_string(h.index) + " of " +
                       node_where(h.node_id, desc.nodes[h.node_id].name) + " does not exist");
  }
  const size_t n = desc.num_entries();
  auto check_size = [&](const char* key, size_t size) {
    if (size != n)
      bad(std::string("attrs.") + key,
          "has " + std::to_string(size) + " values for " + std::to_string(n) + " entries");
  };
  check_size("dltype", desc.dltype.size());
  check_size("shape", desc.shape.size());
  check_size("storage_id", desc.storage_id.size());
  for (size_t e = 0; e < n; ++e) {
    try {
      num_bytes(desc.shape[e], DataType::parse(desc.dltype[e]));
    } catch (const Error& error) {
      bad("entry " + std::to_string(e), error.what());
    }
    if (desc.storage_id[e] < 0)
      bad("attrs.storage_id", "entry " + std::to_string(e) + " has no storage (" +
                                  std::to_string(desc.storage_id[e]) + ")");
  }
}

ordered_json desc_to_json(const GraphModuleDesc& desc) {
  ordered_json root;
  if (!desc.name.empty()) root["name"] = desc.name;
  ordered_json nodes = ordered_json::array();
  for (const GraphNode& node : desc.nodes) {
    ordered_json j;
    j["op"] = node.op;
    j["name"] = node.name;
    if (node.is_op()) {
      j["attrs"] = {{"func_name", node.func_name},
                    {"num_inputs", std::to_string(node.num_inputs)},
                    {"num_outputs", std::to_string(node.num_outputs)},
                    {"flatten_data", node.flatten_data ? "1" : "0"}};
      if (node.external) j["attrs"]["external_params"] = node.external_params;
      if (!node.control_flow.empty()) {
        j["attrs"]["control_flow"] = node.control_flow;
        j["attrs"]["subgraphs"] = node.subgraphs;
      }
    }
    ordered_json inputs = ordered_json::array();
    for (const GraphEntryRef& e : node.inputs) inputs.push_back({e.node_id, e.index, e.version});
    j["inputs"] = inputs;
    nodes.push_back(j);
  }
  root["nodes"] = nodes;
  root["arg_nodes"] = desc.arg_nodes;
  ordered_json heads = ordered_json::array();
  for (const GraphEntryRef& e : desc.heads) heads.push_back({e.node_id, e.index, e.version});
  root["heads"] = heads;
  ordered_json shapes = ordered_json::array();
  for (const auto& s : desc.shape) shapes.push_back(s);
  root["attrs"] = {{"dltype", {"list_str", desc.dltype}},
                   {"storage_id", {"list_int", desc.storage_id}},
                   {"shape", {"list_shape", shapes}}};
  root["node_row_ptr"] = desc.node_row_ptr;
  if (!desc.subgraphs.empty()) {
    ordered_json subgraphs = ordered_json::array();
    for (const GraphModuleDesc& sub : desc.subgraphs) subgraphs.push_back(desc_to_json(sub));
    root["subgraphs"] = subgraphs;
  }
  if (!desc.target.empty()) root["target"] = desc.target;
  if (!desc.launches.empty()) {
    ordered_json launches = ordered_json::object();
    for (const auto& [kernel, l] : desc.launches)
      launches[kernel] = {{"grid", l.grid}, {"block", l.block}, {"shared_bytes", l.shared_bytes}};
    root["launches"] = launches;
  }
  return root;
}

std::array<int64_t, 3> parse_extents(const json& value, const std::string& where) {
  const json& list = as_array(value, where);
  if (list.size() != 3) bad(where, "expected 3 extents (x, y, z), got " + list.dump());
  std::array<int64_t, 3> extents{};
  for (size_t d = 0; d < 3; ++d) {
    if (!list[d].is_number_integer()) bad(where, "expected integer extents, got " + list.dump());
    extents[d] = list[d].get<int64_t>();
  }
  return extents;
}

KernelLaunch parse_launch(const json& value, const std::string& where) {
  if (!value.is_object()) bad(where, "expected an object");
  KernelLaunch launch;
  launch.grid = parse_extents(member(value, "grid", where), where + ".grid");
  launch.block = parse_extents(member(value, "block", where), where + ".block");
  const json& shared = member(value, "shared_bytes", where);
  if (!shared.is_number_integer()) bad(where + ".shared_bytes", "expected an integer");
  launch.shared_bytes = shared.get<int64_t>();
  return launch;
}

// Deeper nesting than any model has; a file that claims more is refused
// before the recursion could exhaust the stack.
constexpr int kMaxSubgraphDepth = 64;

// One description and its subgraphs, not yet validated.
GraphModuleDesc parse_desc(const json& root, int depth) {
  if (depth > kMaxSubgraphDepth)
    bad("subgraphs", "nested deeper than " + std::to_string(kMaxSubgraphDepth) + " levels");
  if (!root.is_object()) bad("top level", "expected an object");
  GraphModuleDesc desc;
  if (root.contains("name")) desc.name = as_string(root["name"], "name");
  const json& nodes = as_array(member(root, "nodes", "top level"), "nodes");
  for (size_t i = 0; i < nodes.size(); ++i) desc.nodes.push_back(parse_node(nodes[i], i));
  const json& args = as_array(member(root, "arg_nodes", "top level"), "arg_nodes");
  for (size_t i = 0; i < args.size(); ++i)
    desc.arg_nodes.push_back(as_u32(args[i], "arg_nodes[" + std::to_string(i) + "]"));
  const json& heads = as_array(member(root, "heads", "top level"), "heads");
  for (size_t i = 0; i < heads.size(); ++i)
    desc.heads.push_back(parse_entry(heads[i], "heads[" + std::to_string(i) + "]"));

  finalize(desc);
  if (root.contains("node_row_ptr")) {
    const json& ptr = as_array(root["node_row_ptr"], "node_row_ptr");
    std::vector<uint32_t> given;
    for (size_t i = 0; i < ptr.size(); ++i)
      given.push_back(as_u32(ptr[i], "node_row_ptr[" + std::to_string(i) + "]"));
    if (given != desc.node_row_ptr) bad("node_row_ptr", "disagrees with the nodes' output counts");
  }

  const json& attrs = member(root, "attrs", "top level");
  if (!attrs.is_object()) bad("attrs", "expected an object");
  const json& dltype = typed_attr(attrs, "dltype", "list_str");
  for (size_t e = 0; e < dltype.size(); ++e)
    desc.dltype.push_back(as_string(dltype[e], "attrs.dltype[" + std::to_string(e) + "]"));
  const json& storage = typed_attr(attrs, "storage_id", "list_int");
  for (size_t e = 0; e < storage.size(); ++e) {
    const std::string where = "attrs.storage_id[" + std::to_string(e) + "]";
    if (!storage[e].is_number_integer()) bad(where, "expected an integer");
    const int64_t v = storage[e].get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) bad(where, "out of range");
    desc.storage_id.push_back(static_cast<int32_t>(v));
  }
  const json& shapes = typed_attr(attrs, "shape", "list_shape");
  for (size_t e = 0; e < shapes.size(); ++e) {
    const std::string where = "attrs.shape[" + std::to_string(e) + "]";
    const json& s = as_array(shapes[e], where);
    std::vector<int64_t> dims;
    for (const json& d : s) {
      if (!d.is_number_integer()) bad(where, "expected integer extents, got " + s.dump());
      dims.push_back(d.get<int64_t>());
    }
    desc.shape.push_back(std::move(dims));
  }
  if (root.contains("subgraphs")) {
    const json& subgraphs = as_array(root["subgraphs"], "subgraphs");
    for (size_t k = 0; k < subgraphs.size(); ++k) {
      try {
        desc.subgraphs.push_back(parse_desc(subgraphs[k], depth + 1));
      } catch (const Error& e) {
        throw Error("subgraph " + std::to_string(k) + ": " + e.what());
      }
    }
  }
  if (root.contains("target")) desc.target = as_string(root["target"], "target");
  if (root.contains("launches")) {
    const json& launches = root["launches"];
    if (!launches.is_object()) bad("launches", "expected an object");
    for (const auto& [kernel, value] : launches.items())
      desc.launches[kernel] = parse_launch(value, "launches." + kernel);
  }
  return desc;
}

}  // namespace

std::string to_json(const GraphModuleDesc& desc) {
  return desc_to_json(desc).dump(2);
}

GraphModuleDesc parse_graph_json(const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number past double's range.
    throw Error(std::string("graph JSON: not valid JSON: ") + e.what());
  }
  GraphModuleDesc desc = parse_desc(root, 0);
  validate(desc);
  return desc;
}

}  // namespace lathe::runtime
